package io.github.stealpool.bench;

import io.github.stealpool.WorkStealingPool;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * A plain-timing harness (no JMH) for a storm of schedule-then-cancel, as {@code
 * ScheduleBenchmark.scheduleCancel} runs it and as a service's per-request timeouts that
 * complete in time make it: {@code THREADS} threads each schedule a task an hour away and
 * cancel it, for {@code SECONDS}. Every 250 ms it prints the rate over that quarter, the
 * entries pending with the timer ({@code PoolStats.delayedTasksPending}: the backlog the timer
 * has not yet looked at), and the timer thread's CPU per entry it took in. The timer alone
 * takes in what every thread offers, so where they offer faster than it takes in, the backlog
 * is what tells.
 *
 * <pre>
 * java -Xmx1g -cp pool-lab/target/lab.jar io.github.stealpool.bench.TimerCancelStormProbe [THREADS] [SECONDS]
 * </pre>
 * docs/lab/delay-timer.md ("A storm of offers") has what it measured.
 */
public final class TimerCancelStormProbe {

    private TimerCancelStormProbe() {
    }

    public static void main(String[] args) throws InterruptedException {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 16;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 8;
        if (threads < 1 || seconds < 1) {
            throw new IllegalArgumentException("usage: TimerCancelStormProbe [THREADS >= 1] [SECONDS >= 1]");
        }
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        LongAdder ops = new LongAdder();
        Runnable task = () -> { };
        try (WorkStealingPool pool = WorkStealingPool.builder().build()) {
            pool.schedule(task, 1, TimeUnit.HOURS).cancel(false); // starts the timer
            long timer = timerThreadId(mx);
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            Thread[] storm = new Thread[threads];
            for (int i = 0; i < threads; i++) {
                storm[i] = new Thread(() -> {
                    long n = 0L;
                    while ((n & 1023) != 0 || System.nanoTime() - end < 0L) {
                        pool.schedule(task, 1, TimeUnit.HOURS).cancel(false);
                        if ((++n & 1023) == 0) {
                            ops.add(1024);
                        }
                    }
                }, "storm-" + i);
                storm[i].start();
            }
            long lastOps = 0L;
            long lastCpu = mx.getThreadCpuTime(timer);
            long lastPending = 0L;
            long lastWall = System.nanoTime();
            while (System.nanoTime() - end < 0L) {
                Thread.sleep(250);
                long now = System.nanoTime();
                long o = ops.sum();
                long cpu = mx.getThreadCpuTime(timer);
                long pending = pool.stats().delayedTasksPending();
                long takenIn = (o - lastOps) - (pending - lastPending);
                System.out.printf(Locale.ROOT,
                        "%6.1f Mops/s offered, pending %,11d, timer cpu %6.1f ns per entry taken in (%.0f%% busy)%n",
                        (o - lastOps) * 1e3 / (now - lastWall), pending,
                        takenIn > 0 ? (cpu - lastCpu) / (double) takenIn : Double.NaN,
                        100.0 * (cpu - lastCpu) / (now - lastWall));
                lastOps = o;
                lastCpu = cpu;
                lastPending = pending;
                lastWall = now;
            }
            for (Thread t : storm) {
                t.join();
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
