package io.github.stealpool.bench;

import io.github.stealpool.WorkStealingPool;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A plain-timing harness (no JMH) for the delay timer's own CPU per task in a burst: one thread
 * schedules 10,000 tasks due 0 to {@code SPREAD_US} µs later ({@code i % SPREAD_US}, as
 * {@code ScheduleBenchmark.scheduleBurst}) on a pool of 2 workers and waits for them; the probe
 * reports the timer thread's CPU time per task over {@code BURSTS} bursts (after one
 * unmeasured), from {@link ThreadMXBean}, and the wall time per burst, five times. JMH measures
 * the burst's throughput, which on two cores sits at the scheduling thread's floor; this tells
 * what the timer's thread spends, which bounds the rate on a machine where it has a core of its
 * own. With {@code PERIOD_US}, a periodic no-op at that rate runs alongside, as a service's
 * housekeeping would: an entry a few milliseconds out while the bursts come.
 *
 * <pre>
 * java -cp pool-lab/target/lab.jar io.github.stealpool.bench.TimerBurstCpuProbe [BURSTS] [SPREAD_US] [PERIOD_US]
 * </pre>
 * docs/lab/delay-timer.md ("A wheel in front of the heap") has what it measured.
 */
public final class TimerBurstCpuProbe {

    private static final int TASKS = 10_000;

    private TimerBurstCpuProbe() {
    }

    public static void main(String[] args) throws InterruptedException {
        int bursts = args.length > 0 ? Integer.parseInt(args[0]) : 300;
        int spreadMicros = args.length > 1 ? Integer.parseInt(args[1]) : 1_000;
        long periodMicros = args.length > 2 ? Long.parseLong(args[2]) : 0L;
        if (bursts < 2 || spreadMicros < 1 || periodMicros < 0L) {
            throw new IllegalArgumentException(
                    "usage: TimerBurstCpuProbe [BURSTS >= 2] [SPREAD_US >= 1] [PERIOD_US >= 0, 0: none]");
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build()) {
            if (periodMicros > 0L) {
                pool.scheduleAtFixedRate(() -> { }, periodMicros, periodMicros, TimeUnit.MICROSECONDS);
            }
            for (int round = 0; round < 6; round++) {
                long timer = -1L;
                long cpuStart = 0L;
                long wallStart = 0L;
                for (int b = 0; b < bursts; b++) {
                    CountDownLatch done = new CountDownLatch(TASKS);
                    Runnable task = done::countDown;
                    for (int i = 0; i < TASKS; i++) {
                        pool.schedule(task, i % spreadMicros, TimeUnit.MICROSECONDS);
                    }
                    done.await();
                    if (b == 0) { // the timer thread exists from the first schedule on
                        timer = timerThreadId(threads);
                        cpuStart = threads.getThreadCpuTime(timer);
                        wallStart = System.nanoTime();
                    }
                }
                long cpu = threads.getThreadCpuTime(timer) - cpuStart;
                long wall = System.nanoTime() - wallStart;
                if (round > 0) { // the first round warms up
                    System.out.printf(Locale.ROOT, "timer cpu %.1f ns/task, wall %.3f ms/burst%n",
                            cpu / ((bursts - 1) * (double) TASKS), wall / 1e6 / (bursts - 1));
                }
            }
        }
    }

    private static long timerThreadId(ThreadMXBean threads) {
        for (ThreadInfo info : threads.dumpAllThreads(false, false)) {
            if (info.getThreadName().endsWith("-timer")) { // the one pool in this JVM
                return info.getThreadId();
            }
        }
        throw new IllegalStateException("no thread named *-timer");
    }
}
