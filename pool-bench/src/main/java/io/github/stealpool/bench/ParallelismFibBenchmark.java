package io.github.stealpool.bench;

import io.github.stealpool.WorkStealingPool;
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
 * Suite 8, scaling with workers (issue 12), divide-and-conquer half: fib({@value #N}) with no
 * sequential cutoff ({@link #TASKS} tasks, so nearly all scheduling: forks, steals, joins) at
 * parallelism 1, 2, 4, 8 and 16, on our pool ({@link ForkJoinBenchmark.Fib}, a {@code Task})
 * and {@code ForkJoinPool} ({@link ForkJoinBenchmark.FjFib}, a {@code RecursiveTask}) in the same
 * run. Ideally the time halves with each doubling of the workers up to the core count.
 *
 * <p>{@code newFixedThreadPool} is not a contender here, and that is why this is a class of its
 * own rather than a third benchmark of {@link ParallelismBenchmark}: without work stealing a
 * task that waits for its subtask blocks its thread, and fib without cutoff blocks every thread
 * of the pool within a few levels of recursion, a deadlock. A {@code pool} parameter of its own,
 * without {@code fixed}, skips that combination before it is ever set up (an explicit
 * {@code -p pool=fixed} is refused in set-up, with the reason).
 *
 * <p>Parallelism above the machine's core count gives the <em>oversubscribed points</em>, as in
 * {@link ParallelismBenchmark}. One fork of 3 x 1 s warm-up and 5 x 1 s measured: the 10 trials
 * take under 2 minutes.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class ParallelismFibBenchmark {

    /** fib's n: ScalingBenchmark's middle size. */
    static final int N = 25;
    /** Tasks per operation: calls of fib(N) without cutoff. */
    static final long TASKS = ScalingBenchmark.fibTasks(N);

    @Param({"stealpool", "forkjoin"})
    public String pool;

    @Param({"1", "2", "4", "8", "16"})
    public int parallelism;

    private ExecutorService executor;

    @Setup(Level.Trial)
    public void setUp() {
        if (Contender.of(pool) == Contender.FIXED) {
            throw new IllegalArgumentException("fib without cutoff deadlocks a fixed thread pool: pool=fixed");
        }
        executor = Contender.of(pool).create(parallelism);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        Contender.stop(executor);
    }

    @Benchmark
    public long fib() {
        if (executor instanceof ForkJoinPool) {
            return ((ForkJoinPool) executor).invoke(new ForkJoinBenchmark.FjFib(N));
        }
        return ((WorkStealingPool) executor).invoke(new ForkJoinBenchmark.Fib(N));
    }
}
