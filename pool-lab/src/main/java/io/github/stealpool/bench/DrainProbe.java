package io.github.stealpool.bench;

import io.github.stealpool.PoolStats;
import io.github.stealpool.WorkStealingPool;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.locks.LockSupport;

/**
 * A plain-timing harness for one producer after a lull: how many cores the pool's workers used
 * while the queue drained. Each round the pool idles 2 ms, this thread submits 100,000 tiny
 * tasks ({@link SubmitBenchmark.CountDown}), then, until they have all run, samples every
 * {@code SAMPLE_MICROS}: each worker's CPU time since the last sample ({@link ThreadMXBean}),
 * and for our pool the queued tasks and the workers parked and running
 * ({@link WorkStealingPool#stats()}). It prints the samples of the first {@code PRINT_ROUNDS}
 * measured rounds, then the medians: the round, the submitting loop, the tasks still queued when
 * it ended, and the cores the workers used from then until the last task ran (their CPU time
 * over that wall time; 1.0 on a pool of 8 means one worker's worth).
 *
 * <pre>
 * java -cp pool-lab/target/lab.jar io.github.stealpool.bench.DrainProbe \
 *     stealpool,forkjoin 8 40 200 3
 * </pre>
 * Arguments: pools, parallelism, measured rounds (after 10 unmeasured), sample interval in
 * microseconds, rounds to print. Workers are the threads whose name contains "-worker-".
 */
public final class DrainProbe {

    static final int TASKS = SubmitBenchmark.TASKS;
    static final int WARM_UP_ROUNDS = 10;

    private DrainProbe() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            throw new IllegalArgumentException("usage: POOLS PARALLELISM ROUNDS SAMPLE_MICROS PRINT_ROUNDS,"
                    + " such as stealpool,forkjoin 8 40 200 3");
        }
        int parallelism = Integer.parseInt(args[1]);
        int rounds = Integer.parseInt(args[2]);
        long sampleNanos = Long.parseLong(args[3]) * 1000;
        int printRounds = Integer.parseInt(args[4]);
        if (parallelism < 1 || rounds < 1 || sampleNanos < 1 || printRounds < 0) {
            throw new IllegalArgumentException("parallelism, rounds and sample interval must be positive,"
                    + " rounds to print not negative: " + String.join(" ", args));
        }
        for (String pool : args[0].split(",")) {
            probe(pool, parallelism, rounds, sampleNanos, printRounds);
        }
    }

    private static void probe(String pool, int parallelism, int rounds, long sampleNanos, int printRounds)
            throws Exception {
        ExecutorService executor = Contender.of(pool).create(parallelism);
        WorkStealingPool ours = executor instanceof WorkStealingPool ? (WorkStealingPool) executor : null;
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long[] workers = null;
        double[] total = new double[rounds];
        double[] submitting = new double[rounds];
        double[] queuedAtEnd = new double[rounds];
        double[] drainCores = new double[rounds];
        for (int r = -WARM_UP_ROUNDS; r < rounds; r++) {
            LockSupport.parkNanos(2_000_000); // every worker parks, as in a lull between bursts
            if (workers == null && r == 0) { // every worker has started by now
                workers = Thread.getAllStackTraces().keySet().stream()
                        .filter(t -> t.getName().contains("-worker-")).mapToLong(Thread::getId).toArray();
            }
            SubmitBenchmark.CountDown task = new SubmitBenchmark.CountDown(false);
            CountDownLatch done = new CountDownLatch(TASKS);
            task.latch = done;
            long start = System.nanoTime();
            for (int i = 0; i < TASKS; i++) {
                executor.execute(task);
            }
            long submitted = System.nanoTime();
            if (r < 0) {
                done.await();
                continue;
            }
            boolean print = r < printRounds;
            StringBuilder line = new StringBuilder();
            long queued = ours == null ? -1 : ours.stats().queuedTasks();
            long[] before = cpuTimes(threads, workers);
            long[] first = before;
            while (done.getCount() > 0) {
                LockSupport.parkNanos(sampleNanos);
                if (print) {
                    long[] now = cpuTimes(threads, workers);
                    line.append("\n  ").append(sample(before, now, ours));
                    before = now;
                }
            }
            long end = System.nanoTime();
            long[] last = cpuTimes(threads, workers);
            long drainCpu = 0;
            for (int k = 0; k < last.length; k++) {
                drainCpu += last[k] - first[k];
            }
            total[r] = (end - start) / 1e6;
            submitting[r] = (submitted - start) / 1e6;
            queuedAtEnd[r] = queued;
            drainCores[r] = (double) drainCpu / Math.max(1, end - submitted);
            if (print) {
                System.out.printf(Locale.ROOT, "%s p=%d round %d: %.2f ms, submitting %.2f ms, then queued %d;"
                        + " samples (CPU us per worker%s):%s%n", pool, parallelism, r, total[r], submitting[r],
                        queued, ours == null ? "" : ", queued, parked, running", line);
            }
        }
        Contender.stop(executor);
        System.out.printf(Locale.ROOT, "%-10s p=%d medians of %d rounds: %.2f ms, submitting %.2f ms, queued when"
                + " submitting ended %.0f, cores used while draining %.2f%n", pool, parallelism, rounds,
                median(total), median(submitting), median(queuedAtEnd), median(drainCores));
    }

    private static String sample(long[] before, long[] now, WorkStealingPool ours) {
        StringBuilder s = new StringBuilder("[");
        for (int k = 0; k < now.length; k++) {
            s.append(k == 0 ? "" : " ").append((now[k] - before[k]) / 1000);
        }
        s.append(']');
        if (ours != null) {
            PoolStats stats = ours.stats();
            s.append(" queued ").append(stats.queuedTasks()).append(", parked ").append(stats.parkedWorkers())
                    .append(", running ").append(stats.runningWorkers());
        }
        return s.toString();
    }

    /** CPU time of each worker; a worker that has ended reads as 0 from then on. */
    private static long[] cpuTimes(ThreadMXBean threads, long[] ids) {
        long[] times = new long[ids.length];
        for (int k = 0; k < ids.length; k++) {
            times[k] = Math.max(0, threads.getThreadCpuTime(ids[k]));
        }
        return times;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
