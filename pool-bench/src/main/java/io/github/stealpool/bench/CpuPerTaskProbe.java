package io.github.stealpool.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * A plain-timing harness that reports, besides the median round, the CPU time per task of the
 * pool's threads and of the submitting threads (from {@link ThreadMXBean}): on a shared machine
 * whose speed drifts, CPU per task moves less than wall time, and it says which side, workers
 * or submitters, a change made cheaper. Each round, {@code PRODUCERS} threads submit 100,000
 * tiny tasks between them (each adds to a {@code LongAdder}, so tasks do not contend with each
 * other), back to back, no lull between rounds; 200 rounds warm up, then {@code ROUNDS} are
 * measured. The pool's CPU includes whatever its idle workers spin.
 *
 * <pre>
 * java -cp pool-bench/target/benchmarks.jar io.github.stealpool.bench.CpuPerTaskProbe \
 *     stealpool,forkjoin 8 1 400 3
 * </pre>
 * Arguments: pools, parallelism, producers, measured rounds, repetitions (each a fresh pool).
 * To compare two builds of the library, run it from both with {@link InterleavedBuilds}.
 */
public final class CpuPerTaskProbe {

    static final int TASKS = SubmitBenchmark.TASKS;
    static final int WARM_UP_ROUNDS = 200;

    private CpuPerTaskProbe() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            throw new IllegalArgumentException("usage: POOLS PARALLELISM PRODUCERS ROUNDS REPETITIONS,"
                    + " such as stealpool,forkjoin 8 1 400 3");
        }
        String[] pools = args[0].split(",");
        int parallelism = Integer.parseInt(args[1]);
        int producers = Integer.parseInt(args[2]);
        int rounds = Integer.parseInt(args[3]);
        int repetitions = Integer.parseInt(args[4]);
        if (parallelism < 1 || producers < 1 || producers > TASKS || rounds < 1 || repetitions < 1) {
            throw new IllegalArgumentException("parallelism, producers (at most " + TASKS
                    + "), rounds and repetitions must be positive: " + String.join(" ", args));
        }
        for (int r = 0; r < repetitions; r++) {
            for (String pool : pools) {
                probe(pool, parallelism, producers, rounds);
            }
        }
    }

    private static void probe(String pool, int parallelism, int producers, int rounds) throws Exception {
        ExecutorService executor = Contender.of(pool).create(parallelism);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        LongAdder done = new LongAdder();
        Runnable task = done::increment;
        int share = TASKS / producers;
        int total = WARM_UP_ROUNDS + rounds;
        // Every round starts when the producers and this thread meet here; one more meeting
        // after the last round keeps the producers alive until their CPU time has been read.
        CyclicBarrier go = new CyclicBarrier(producers + 1);
        Thread[] submitters = new Thread[producers];
        for (int k = 0; k < producers; k++) {
            submitters[k] = new Thread(() -> {
                try {
                    for (int r = 0; r < total; r++) {
                        go.await();
                        for (int i = 0; i < share; i++) {
                            executor.execute(task);
                        }
                    }
                    go.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, "producer-" + k);
            submitters[k].start();
        }
        long[] wall = new long[rounds];
        Map<Thread, Long> cpuBefore = null;
        long expected = 0;
        for (int r = 0; r < total; r++) {
            if (r == WARM_UP_ROUNDS) {
                cpuBefore = cpuTimes(threads);
            }
            long start = System.nanoTime();
            go.await();
            expected += (long) share * producers;
            while (done.sum() < expected) {
                LockSupport.parkNanos(10_000); // leaves the cores to the pool and the producers
            }
            if (r >= WARM_UP_ROUNDS) {
                wall[r - WARM_UP_ROUNDS] = System.nanoTime() - start;
            }
        }
        Map<Thread, Long> cpuAfter = cpuTimes(threads);
        go.await();
        long poolNanos = 0;
        long producerNanos = 0;
        for (Map.Entry<Thread, Long> e : cpuBefore.entrySet()) {
            Long after = cpuAfter.get(e.getKey());
            if (after == null || after < 0 || e.getValue() < 0 || e.getKey() == Thread.currentThread()) {
                continue; // gone, not measurable, or this thread
            }
            if (e.getKey().getName().startsWith("producer-")) {
                producerNanos += after - e.getValue();
            } else {
                poolNanos += after - e.getValue();
            }
        }
        for (Thread t : submitters) {
            t.join();
        }
        Contender.stop(executor);
        Arrays.sort(wall);
        double tasks = (double) share * producers * rounds;
        System.out.printf(Locale.ROOT, "%-14s p=%d producers=%d round median %6.2f ms, CPU per task: pool %5.1f ns,"
                + " producers %5.1f ns%n", pool, parallelism, producers, wall[rounds / 2] / 1e6,
                poolNanos / tasks, producerNanos / tasks);
    }

    /** CPU time of every live thread (the pool's, the producers', the JVM's few others). */
    private static Map<Thread, Long> cpuTimes(ThreadMXBean threads) {
        Set<Thread> live = Thread.getAllStackTraces().keySet();
        Map<Thread, Long> times = new HashMap<>();
        for (Thread t : live) {
            times.put(t, threads.getThreadCpuTime(t.getId()));
        }
        return times;
    }
}
