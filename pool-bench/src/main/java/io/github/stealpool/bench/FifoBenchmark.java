package io.github.stealpool.bench;

import java.util.concurrent.CountDownLatch;
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
 * Suite 9, event-style work that is never joined (issue 15): the FIFO mode against
 * {@code ForkJoinPool}'s asyncMode, with both pools' default LIFO order beside them. An outside
 * thread posts {@link #SEEDS} tasks; each posts {@link #FOLLOW_UPS} tiny follow-up tasks from its
 * worker (the worker's own deque), as an event handler posts the next stage; an operation ends
 * when every follow-up ran. Workers = available processors. The follow-up task is one object kept
 * off its latch's cache lines, as in {@link SubmitBenchmark}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class FifoBenchmark {

    static final int SEEDS = 1_000;
    static final int FOLLOW_UPS = 100;

    @Param({"stealpool-fifo", "forkjoin-async", "stealpool", "forkjoin"})
    public String pool;

    private ExecutorService executor;

    @Setup(Level.Trial)
    public void setUp() {
        executor = Contender.of(pool).create(Runtime.getRuntime().availableProcessors());
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        Contender.stop(executor);
    }

    @Benchmark
    public long events() throws InterruptedException {
        SubmitBenchmark.CountDown followUp = new SubmitBenchmark.CountDown(false); // before the latch
        ExecutorService pool = executor;
        Runnable seed = () -> {
            for (int i = 0; i < FOLLOW_UPS; i++) {
                pool.execute(followUp);
            }
        };
        CountDownLatch done = new CountDownLatch(SEEDS * FOLLOW_UPS);
        followUp.latch = done; // published to the workers by the executor
        for (int s = 0; s < SEEDS; s++) {
            executor.execute(seed);
        }
        done.await();
        return done.getCount();
    }
}
