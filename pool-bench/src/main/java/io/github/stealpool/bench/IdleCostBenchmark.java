package io.github.stealpool.bench;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
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
 * Suite 4, idle cost: after a burst of 10,000 tasks, the pool sits idle for
 * {@link #IDLE_MILLIS} ms while the benchmark thread sleeps; the process CPU time used meanwhile,
 * as a percentage of one core, is the secondary result {@code cpuPercentOfCore} (the primary
 * one, the wall time of burst plus idle, is of no interest). The process figure comes from
 * {@code getProcessCpuTime}, which Linux counts in 10 ms clock ticks (0.5% of a core over the
 * 2 s) and which includes the JIT's and the GC's threads; {@code poolCpuPercentOfCore} adds up
 * the CPU time, to the nanosecond, of the threads the pool started (every thread alive after
 * the burst that was not before the pool was made): the pool's own spinning and waking.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2)
@Measurement(iterations = 3)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m"})
public class IdleCostBenchmark {

    static final long IDLE_MILLIS = 2_000;

    @Param({"stealpool", "forkjoin", "forkjoin-async", "fixed"})
    public String pool;

    private ExecutorService executor;
    private final Set<Long> threadsBeforePool = new HashSet<>();

    /** The reported counter. */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Cpu {
        public double cpuPercentOfCore;
        public double poolCpuPercentOfCore;
    }

    @Setup(Level.Trial)
    public void setUp() {
        for (long id : ManagementFactory.getThreadMXBean().getAllThreadIds()) {
            threadsBeforePool.add(id);
        }
        executor = Contender.of(pool).create(Runtime.getRuntime().availableProcessors());
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        Contender.stop(executor);
    }

    @Benchmark
    public void burstThenIdle(Cpu cpu) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(10_000);
        for (int i = 0; i < 10_000; i++) {
            executor.execute(done::countDown);
        }
        done.await();
        OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long[] ids = threads.getAllThreadIds();
        long[] threadBefore = new long[ids.length];
        for (int i = 0; i < ids.length; i++) {
            threadBefore[i] = threadsBeforePool.contains(ids[i]) ? -1L : threads.getThreadCpuTime(ids[i]);
        }
        long before = os.getProcessCpuTime();
        long t0 = System.nanoTime();
        Thread.sleep(IDLE_MILLIS);
        long wall = System.nanoTime() - t0;
        cpu.cpuPercentOfCore = 100.0 * (os.getProcessCpuTime() - before) / wall;
        long poolNanos = 0;
        for (int i = 0; i < ids.length; i++) {
            long after = threadBefore[i] < 0 ? -1L : threads.getThreadCpuTime(ids[i]);
            if (after >= 0) { // -1: not the pool's, or gone meanwhile
                poolNanos += after - threadBefore[i];
            }
        }
        cpu.poolCpuPercentOfCore = 100.0 * poolNanos / wall;
    }
}
