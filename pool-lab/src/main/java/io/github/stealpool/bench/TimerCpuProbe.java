package io.github.stealpool.bench;

import io.github.stealpool.WorkStealingPool;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.Locale;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * A plain-timing harness (no JMH) for what the delay timer's own thread costs: a pool of 2
 * workers runs one periodic no-op ({@code scheduleAtFixedRate}), and the probe reports the
 * timer thread's CPU time over 5 s (after 1 s unmeasured) as a share of one core, from
 * {@link ThreadMXBean}; JMH measures throughput and latency, not one thread's CPU. Optionally
 * some plain threads spin meanwhile, to load the cores as a busy service would.
 *
 * <pre>
 * java -cp pool-lab/target/lab.jar io.github.stealpool.bench.TimerCpuProbe PERIOD_US [SPINNERS]
 * </pre>
 * docs/lab/delay-timer.md ("Waking ahead of a deadline") has what it measured.
 */
public final class TimerCpuProbe {

    private static volatile boolean stop;

    private TimerCpuProbe() {
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length < 1) {
            throw new IllegalArgumentException("usage: TimerCpuProbe PERIOD_US [SPINNERS]");
        }
        long periodMicros = Long.parseLong(args[0]);
        int spinners = args.length > 1 ? Integer.parseInt(args[1]) : 0;
        for (int i = 0; i < spinners; i++) {
            Thread t = new Thread(TimerCpuProbe::spin, "spinner-" + i);
            t.setDaemon(true);
            t.start();
        }
        WorkStealingPool pool = WorkStealingPool.builder().threadNamePrefix("probe").parallelism(2).daemon(true).build();
        LongAdder runs = new LongAdder();
        ScheduledFuture<?> periodic = pool.scheduleAtFixedRate(runs::increment, 0, periodMicros, TimeUnit.MICROSECONDS);
        Thread.sleep(1_000);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long timer = timerThreadId(threads);
        long cpu0 = threads.getThreadCpuTime(timer);
        long runs0 = runs.sum();
        long wall0 = System.nanoTime();
        Thread.sleep(5_000);
        long cpu1 = threads.getThreadCpuTime(timer);
        long runs1 = runs.sum();
        long wall1 = System.nanoTime();
        System.out.printf(Locale.ROOT, "period %d us, %d spinning threads: timer thread %.1f%% of a core, %d runs%n",
                periodMicros, spinners, 100.0 * (cpu1 - cpu0) / (wall1 - wall0), runs1 - runs0);
        stop = true;
        periodic.cancel(false);
        pool.shutdownNow();
    }

    private static long timerThreadId(ThreadMXBean threads) {
        for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
            if (info != null && info.getThreadName().equals("probe-timer")) {
                return info.getThreadId();
            }
        }
        throw new IllegalStateException("no timer thread named probe-timer");
    }

    private static void spin() {
        long n = 0;
        while (!stop) {
            n++;
        }
        if (n == 42) {
            System.out.print(""); // keeps the loop from being optimised away
        }
    }
}
