package io.github.stealpool.bench;

import io.github.stealpool.PoolStats;
import io.github.stealpool.WorkStealingPool;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * A plain-timing harness (no JMH) for the case of issue 12: outside threads submitting 100,000
 * tiny tasks to a pool of many workers. It reports, per case, the median and best of 30 rounds
 * (after 10 unmeasured), how long the submitting loop itself took (the submitter is the
 * bottleneck when that is close to the total), and for our pool the steals, failed looks, parks
 * and wake-ups per round, from {@link WorkStealingPool#stats()}. It runs in seconds, so it suits
 * a borrowed many-core machine; the ratios to publish come from {@link ParallelismBenchmark}.
 *
 * <pre>
 * java -cp pool-lab/target/lab.jar io.github.stealpool.bench.OneProducerProbe \
 *     stealpool,forkjoin,fixed 4,16 latch,apart,adder,multi
 * </pre>
 * Kinds of task: {@code latch}, a lambda that counts down one shared {@code CountDownLatch},
 * allocated right after it (so the task's header shares a cache line with the count every
 * worker CASes); {@code apart}, the same with {@link SubmitBenchmark.CountDown}, kept off the
 * latch's lines (what the JMH suites use); {@code adder}, each adds to a {@code LongAdder} and the
 * submitter polls its sum (no contention between tasks; {@link SubmitBenchmark}'s
 * {@code tiny-adder}); {@code multi}, as {@code apart} from one
 * submitting thread per worker.
 */
public final class OneProducerProbe {

    static final int TASKS = SubmitBenchmark.TASKS;
    static final int WARM_UP_ROUNDS = 10;
    static final int ROUNDS = 30;

    private OneProducerProbe() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            throw new IllegalArgumentException("usage: POOLS PARALLELISMS KINDS, such as stealpool,forkjoin 4,16 latch,adder");
        }
        String[] pools = args[0].split(",");
        int[] parallelisms = Arrays.stream(args[1].split(",")).mapToInt(Integer::parseInt).toArray();
        String[] kinds = args[2].split(",");
        for (int p : parallelisms) {
            for (String kind : kinds) {
                for (String pool : pools) {
                    probe(pool, p, kind);
                }
            }
        }
    }

    private static void probe(String pool, int parallelism, String kind) throws Exception {
        ExecutorService executor = Contender.of(pool).create(parallelism);
        try {
            double[] total = new double[ROUNDS];
            double[] submit = new double[ROUNDS];
            PoolStats before = null;
            for (int r = -WARM_UP_ROUNDS; r < ROUNDS; r++) {
                if (r == 0 && executor instanceof WorkStealingPool) {
                    before = ((WorkStealingPool) executor).stats();
                }
                long[] times = round(executor, parallelism, kind);
                if (r >= 0) {
                    submit[r] = times[0] / 1e6;
                    total[r] = times[1] / 1e6;
                }
                LockSupport.parkNanos(2_000_000); // let the workers go idle, as a real lull would
            }
            Arrays.sort(total);
            Arrays.sort(submit);
            String counts = "";
            if (before != null) {
                PoolStats after = ((WorkStealingPool) executor).stats();
                counts = String.format(Locale.ROOT, " | per round: steals %d, looks %d, parks %d, wake-ups %d",
                        (after.steals() - before.steals()) / ROUNDS,
                        (after.stealAttempts() - before.stealAttempts()) / ROUNDS,
                        (after.parks() - before.parks()) / ROUNDS,
                        (after.wakeups() - before.wakeups()) / ROUNDS);
            }
            System.out.printf(Locale.ROOT, "p=%2d %-6s %-14s total median %6.2f ms (best %6.2f), submitting %6.2f ms%s%n",
                    parallelism, kind, pool, total[ROUNDS / 2], total[0], submit[ROUNDS / 2], counts);
        } finally {
            Contender.stop(executor);
        }
    }

    /** Submits {@code task} {@link #TASKS} times from this thread; returns the time it ended. */
    private static long submitAll(ExecutorService executor, Runnable task) {
        for (int i = 0; i < TASKS; i++) {
            executor.execute(task);
        }
        return System.nanoTime();
    }

    /** One round: nanoseconds until the submitting ended, and until every task had run. */
    private static long[] round(ExecutorService executor, int parallelism, String kind) throws Exception {
        long start = System.nanoTime();
        long submitted;
        switch (kind) {
            case "latch": {
                CountDownLatch done = new CountDownLatch(TASKS);
                submitted = submitAll(executor, done::countDown);
                done.await();
                break;
            }
            case "apart": {
                SubmitBenchmark.CountDown task = new SubmitBenchmark.CountDown(false);
                CountDownLatch done = new CountDownLatch(TASKS);
                task.latch = done;
                submitted = submitAll(executor, task);
                done.await();
                break;
            }
            case "adder": {
                SubmitBenchmark.Add task = new SubmitBenchmark.Add();
                LongAdder done = new LongAdder();
                task.adder = done;
                submitted = submitAll(executor, task);
                SubmitBenchmark.awaitSum(done, TASKS);
                break;
            }
            case "multi": {
                SubmitBenchmark.CountDown task = new SubmitBenchmark.CountDown(false);
                CountDownLatch done = new CountDownLatch(TASKS);
                task.latch = done;
                Thread[] producers = new Thread[parallelism];
                int share = TASKS / parallelism;
                for (int k = 0; k < parallelism; k++) {
                    int n = k == parallelism - 1 ? TASKS - share * (parallelism - 1) : share;
                    producers[k] = new Thread(() -> {
                        for (int i = 0; i < n; i++) {
                            executor.execute(task);
                        }
                    });
                    producers[k].start();
                }
                for (Thread t : producers) {
                    t.join();
                }
                submitted = System.nanoTime();
                done.await();
                break;
            }
            default:
                throw new IllegalArgumentException("kind must be latch, apart, adder or multi: " + kind);
        }
        long end = System.nanoTime();
        return new long[] {submitted - start, end - start};
    }
}
