package io.github.stealpool.bench;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
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
 * Suite 3, wake-up latency: the pool has been idle for {@link #IDLE_MILLIS} ms (every worker
 * parked), one task is submitted from outside, and the operation ends when that task has started
 * (the submitter spins on a volatile flag the task sets). Sampled, so the report gives the
 * median and the 99th percentile.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 3, jvmArgsAppend = {"-Xms512m", "-Xmx512m"})
public class WakeupLatencyBenchmark {

    /** Long enough for every pool to park its workers (ours parks within tens of microseconds). */
    static final long IDLE_MILLIS = 2;

    @Param({"stealpool", "forkjoin", "forkjoin-async", "fixed"})
    public String pool;

    private ExecutorService executor;
    private volatile boolean started;
    private final Runnable task = () -> started = true;

    @Setup(Level.Trial)
    public void setUp() {
        executor = Contender.of(pool).create(Runtime.getRuntime().availableProcessors());
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        Contender.stop(executor);
    }

    /** Not measured: lets the pool go idle before each sample. */
    @Setup(Level.Invocation)
    public void idle() {
        started = false;
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(IDLE_MILLIS));
    }

    @Benchmark
    public boolean wakeUp() {
        executor.execute(task);
        while (!started) {
            Thread.onSpinWait();
        }
        return started;
    }
}
