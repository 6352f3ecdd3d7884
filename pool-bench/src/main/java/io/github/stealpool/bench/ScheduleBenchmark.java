package io.github.stealpool.bench;

import io.github.stealpool.WorkStealingPool;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Delayed tasks (issue 37), against {@link ScheduledThreadPoolExecutor} (with
 * {@code setRemoveOnCancelPolicy(true)}, so both drop a cancelled task at once) and, on JDK 25,
 * where it is a {@link ScheduledExecutorService}, {@link ForkJoinPool} ({@code -p
 * pool=forkjoin}; refused by name on older JDKs). The goals: scheduling throughput at least
 * twice STPE's, lateness p50/p99 no worse.
 * <ul>
 *   <li>{@link #scheduleCancel}: four threads schedule a task an hour away and cancel it: the
 *       submit path and the cancel path, with the timer taking both in (throughput).</li>
 *   <li>{@link #scheduleBurst}: one thread schedules {@link #BURST} tasks, due over the next
 *       {@link #BURST_SPREAD_MICROS} µs, and waits until all of them ran: scheduled tasks
 *       taken in, ordered, handed to the workers and run (throughput, tasks per µs).</li>
 *   <li>{@link #lateness}: one thread schedules a task {@link #DELAY_MICROS} µs away on an
 *       idle pool and waits for it to start: the sample is the delay plus the lateness, so the
 *       report's p50 and p99 less {@code DELAY_MICROS} are the lateness.</li>
 * </ul>
 */
@State(Scope.Benchmark)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 2, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class ScheduleBenchmark {

    /** The lateness benchmark's delay. */
    static final long DELAY_MICROS = 500;

    @Param({"stealpool", "stpe"})
    public String pool;

    private ScheduledExecutorService executor;
    private final LongAdder ran = new LongAdder();
    private final Runnable count = ran::increment;

    /** The contender {@code label} names, with {@code workers} threads. */
    static ScheduledExecutorService create(String label, int workers) {
        switch (label) {
            case "stealpool":
                return WorkStealingPool.builder().parallelism(workers).daemon(true).build();
            case "stpe": {
                ScheduledThreadPoolExecutor e = new ScheduledThreadPoolExecutor(workers);
                e.setRemoveOnCancelPolicy(true);
                return e;
            }
            case "forkjoin": {
                ExecutorService e = new ForkJoinPool(workers);
                if (!(e instanceof ScheduledExecutorService)) {
                    e.shutdown();
                    throw new IllegalArgumentException("forkjoin: a ForkJoinPool schedules only on JDK 25+");
                }
                return (ScheduledExecutorService) e;
            }
            default:
                throw new IllegalArgumentException("unknown pool: " + label);
        }
    }

    @Setup(Level.Trial)
    public void setUp() {
        executor = create(pool, Runtime.getRuntime().availableProcessors());
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        executor.shutdownNow();
        executor.awaitTermination(30, TimeUnit.SECONDS);
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    @Threads(4)
    public boolean scheduleCancel() {
        ScheduledFuture<?> f = executor.schedule(count, 1, TimeUnit.HOURS);
        return f.cancel(false);
    }

    /** Tasks per {@link #scheduleBurst} operation. */
    static final int BURST = 10_000;
    /** The burst's tasks are due 0 to this many µs after they are scheduled. */
    static final int BURST_SPREAD_MICROS = 1_000;

    /** The burst's countdown, one per operation (only that benchmark uses it). */
    @State(Scope.Thread)
    public static class Burst {
        CountDownLatch done;
        Runnable task;

        @Setup(Level.Invocation)
        public void reset() {
            CountDownLatch d = new CountDownLatch(BURST);
            done = d;
            task = d::countDown;
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    @OperationsPerInvocation(BURST)
    public void scheduleBurst(Burst burst) throws InterruptedException {
        for (int i = 0; i < BURST; i++) {
            executor.schedule(burst.task, i % BURST_SPREAD_MICROS, TimeUnit.MICROSECONDS);
        }
        burst.done.await();
    }

    /** The lateness benchmark's flag, reset before each sample (only that benchmark uses it). */
    @State(Scope.Thread)
    public static class Flag {
        volatile boolean started;
        final Runnable start = () -> started = true;

        @Setup(Level.Invocation)
        public void reset() {
            started = false;
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public boolean lateness(Flag flag) {
        executor.schedule(flag.start, DELAY_MICROS, TimeUnit.MICROSECONDS);
        while (!flag.started) {
            Thread.onSpinWait();
        }
        return flag.started;
    }
}
