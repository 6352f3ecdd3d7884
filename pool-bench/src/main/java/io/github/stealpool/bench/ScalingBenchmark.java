package io.github.stealpool.bench;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
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
 * Suite 7, scaling with work: the cost per task as the task count grows 10x and 100x, which must
 * stay flat. {@code submit}: {@code size} tiny tasks from one outside thread (10k, 100k, 1M);
 * {@code fib}: fib(n) with no cutoff for n = 20, 25, 30 (about 22k, 243k and 2.7M tasks, each
 * step about 11x). The report divides by the task count.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class ScalingBenchmark {

    @Param({"stealpool", "forkjoin"})
    public String pool;

    @Param({"1", "10", "100"})
    public int scale;

    private ExecutorService executor;
    private ExecutorService producer;

    @Setup(Level.Trial)
    public void setUp() {
        executor = Contender.of(pool).create(Runtime.getRuntime().availableProcessors());
        producer = Contender.FIXED.create(1);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        Contender.stop(executor);
        Contender.stop(producer);
    }

    /** Tasks of the submit workload at this scale. */
    static int submitTasks(int scale) {
        return 10_000 * scale;
    }

    /** fib's n at this scale. */
    static int fibN(int scale) {
        return scale == 1 ? 20 : scale == 10 ? 25 : 30;
    }

    /** Calls of fib(n) without cutoff: the number of tasks. */
    static long fibTasks(int n) {
        return 2 * ForkJoinBenchmark.sequentialFib(n + 1) - 1;
    }

    @Benchmark
    public long submit() throws Exception {
        return SubmitBenchmark.submit(executor, producer, 1, submitTasks(scale), false);
    }

    @Benchmark
    public long fib() {
        int n = fibN(scale);
        if (executor instanceof ForkJoinPool) {
            return ((ForkJoinPool) executor).invoke(new ForkJoinBenchmark.FjFib(n));
        }
        return ((io.github.stealpool.WorkStealingPool) executor).invoke(new ForkJoinBenchmark.Fib(n));
    }
}
