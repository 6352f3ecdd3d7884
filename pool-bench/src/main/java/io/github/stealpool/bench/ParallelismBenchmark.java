package io.github.stealpool.bench;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Suite 8, scaling with workers (issue 12), submit half: the same submissions at parallelism 1,
 * 2, 4, 8 and 16 on our pool, {@code ForkJoinPool} and {@code newFixedThreadPool} in the same
 * run, to show how each pool's submit throughput changes as workers are added. An operation is
 * {@link #TASKS} tiny tasks submitted from outside the pool ({@link SubmitBenchmark#submit}), and
 * ends when every task ran.
 * <ul>
 *   <li>{@code submitOneProducer}: one outside thread submits them all. Added workers cannot make
 *       the producer faster; what they can do is cost it: more queues to look in, more idle
 *       workers to wake and park again, more contention on the entry queue. Flat is good.</li>
 *   <li>{@code submitProducerPerWorker}: {@code parallelism} outside threads split them, so the
 *       offered load grows with the workers and the submission path itself must scale.</li>
 * </ul>
 * The divide-and-conquer half, fib(25) without cutoff, is {@link ParallelismFibBenchmark}: a
 * class of its own because {@code newFixedThreadPool} cannot run it at all.
 *
 * <p>Points above the machine's core count are the <em>oversubscribed points</em>: on 2 cores,
 * 1 and 2 workers measure scaling and 4, 8 and 16 measure what each pool loses when its workers
 * (and, in {@code submitProducerPerWorker}, as many producers) outnumber the cores. On a machine
 * with 16 cores or more the defaults have no oversubscribed point: add some with
 * {@code -p parallelism=1,2,4,...,2N} (or Suite's {@code --param=parallelism=...}).
 *
 * <p>One fork of 3 x 1 s warm-up and 5 x 1 s measured: the 30 trials take about 5 minutes, with
 * {@link ParallelismFibBenchmark} about 7, on 2 cores. {@link ParallelismReport} turns the
 * results into a table with ratios and a chart of throughput against parallelism.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class ParallelismBenchmark {

    /** Tasks per operation, in both benchmarks: SubmitBenchmark's count. */
    static final int TASKS = SubmitBenchmark.TASKS;

    @Param({"stealpool", "forkjoin", "fixed"})
    public String pool;

    /** Workers of the pool, and producers of {@code submitProducerPerWorker}. */
    @Param({"1", "2", "4", "8", "16"})
    public int parallelism;

    private ExecutorService executor;
    /** {@code parallelism} threads; {@code submitOneProducer} uses one of them. */
    private ExecutorService producers;

    @Setup(Level.Trial)
    public void setUp() {
        executor = Contender.of(pool).create(parallelism);
        producers = Contender.FIXED.create(parallelism);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        Contender.stop(executor);
        Contender.stop(producers);
    }

    @Benchmark
    public long submitOneProducer() throws Exception {
        return SubmitBenchmark.submit(executor, producers, 1, TASKS, false);
    }

    @Benchmark
    public long submitProducerPerWorker() throws Exception {
        return SubmitBenchmark.submit(executor, producers, parallelism, TASKS, false);
    }
}
