package io.github.stealpool.bench;

import io.github.stealpool.WorkStealingPool;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the pool's hot-path statistics cost: the same two workloads with the counters on (the
 * default) and off ({@code -Dstealpool.statistics=false}, which the JIT folds away), in one run.
 * <ul>
 *   <li>{@code submit*}: one outside thread submits {@link #TASKS} tiny tasks and waits for all;
 *       every task is counted as completed, and batches moved from the injection queue are
 *       stolen and counted as steals;</li>
 *   <li>{@code fib*}: fib(30) as the {@code Task} port of {@link ForkJoinBenchmark} with no cutoff, 1.6 million forks, each
 *       counted as submitted and completed.</li>
 * </ul>
 * Compare each pair as a ratio of medians; the goal is under 2%.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public class StatisticsCostBenchmark {

    static final int TASKS = 100_000;
    private static final String OFF = "-Dstealpool.statistics=false";

    private WorkStealingPool pool;

    @Setup(Level.Trial)
    public void setUp() {
        pool = WorkStealingPool.builder()
                .parallelism(Runtime.getRuntime().availableProcessors()).daemon(true).build();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        pool.shutdownNow();
        pool.awaitTermination(10, TimeUnit.SECONDS);
    }

    @Benchmark
    @Fork(value = 3, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
    public long submitCounting() throws InterruptedException {
        return submitAll();
    }

    @Benchmark
    @Fork(value = 3, jvmArgsAppend = {"-Xms1g", "-Xmx1g", OFF})
    public long submitNotCounting() throws InterruptedException {
        return submitAll();
    }

    @Benchmark
    @Fork(value = 3, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
    public long fibCounting() {
        return pool.invoke(new ForkJoinBenchmark.Fib(30));
    }

    @Benchmark
    @Fork(value = 3, jvmArgsAppend = {"-Xms1g", "-Xmx1g", OFF})
    public long fibNotCounting() {
        return pool.invoke(new ForkJoinBenchmark.Fib(30));
    }

    private long submitAll() throws InterruptedException {
        CountDownLatch done = new CountDownLatch(TASKS);
        for (int i = 0; i < TASKS; i++) {
            pool.execute(done::countDown);
        }
        done.await();
        return done.getCount();
    }
}
