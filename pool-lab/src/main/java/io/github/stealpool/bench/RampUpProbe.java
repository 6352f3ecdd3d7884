package io.github.stealpool.bench;

import io.github.stealpool.PoolStats;
import io.github.stealpool.Task;
import io.github.stealpool.WorkStealingPool;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveTask;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * How fast a pool puts its workers to work on one fork/join computation submitted from outside
 * (issue 12): fib(n) without cutoff, as {@link ParallelismFibBenchmark} runs it, where every
 * task notes the first time its thread runs a task in the round. A round reports, for each k,
 * the time from {@code invoke} to the moment k distinct threads had started a task: the ramp-up.
 * On 16 cores fib(25) takes about 1 ms in either pool, so a ramp that wakes the workers one at a
 * time, some tens of microseconds each, would take a large part of it; this probe says whether
 * it does, for our pool and {@code ForkJoinPool} alike (it watches tasks, not pool internals).
 *
 * <pre>
 * java -cp pool-lab/target/lab.jar io.github.stealpool.bench.RampUpProbe \
 *     stealpool,forkjoin 16 [n [rounds [idleMicros]]]
 * </pre>
 * Defaults: n = {@value ParallelismFibBenchmark#N}, {@value #ROUNDS} rounds after
 * {@value #WARM_UP_ROUNDS} unmeasured ones, no idle time between rounds (back to back, as JMH
 * runs operations, so some workers may still be awake from the last round; give an idle time in
 * microseconds to start each round from a pool whose workers have most likely all parked: our
 * pool's parks per round show whether they did).
 *
 * <p>It prints, per pool and parallelism, the median round; for k = 1, 2, 4, ... up to the
 * parallelism, the median time until k threads had started, over all rounds, a round that never
 * got k threads counting as never (so a {@code -} when fewer than half did), with the number of
 * rounds that got k; the median and largest number of threads a round used (a
 * {@code ForkJoinPool} may add a compensating thread beyond its parallelism while a worker
 * blocks, and the probe counts it as it counts workers); and our pool's parks and wake-ups per
 * round.
 *
 * <p>What noting costs: a task compares its creator with the thread running it, and only a task
 * run by another thread (stolen, or the root) reads the {@link ThreadLocal}: a thread's first
 * task of a round is never one it created, since it would have run the parent first. Each task
 * also carries its creator, one reference more, in both pools.
 */
public final class RampUpProbe {

    static final int WARM_UP_ROUNDS = 200;
    static final int ROUNDS = 300;

    private RampUpProbe() {
    }

    /**
     * The round's record of first tasks. {@link #arrive} writes {@link #startedAt} with plain
     * stores; the thread that invoked the round reads them after the root task completed, and
     * the root completes only after it joined every task of the round, each of which completed
     * after its thread's {@code arrive}: so every store happens before the reads.
     */
    static final class Ramp {
        /** More than any pool here starts: ForkJoinPool may add compensating threads. */
        private static final int MAX_THREADS = 4096;

        private final ThreadLocal<int[]> lastRound = ThreadLocal.withInitial(() -> new int[] {-1});
        private final AtomicInteger arrivals = new AtomicInteger();
        private final long[] startedAt = new long[MAX_THREADS];
        private volatile int round;

        /** Starts round {@code r}: no thread has arrived yet. */
        void begin(int r) {
            arrivals.set(0);
            round = r;
        }

        /** A task starts on this thread: notes the time if it is the thread's first this round. */
        void arrive() {
            int[] last = lastRound.get();
            int r = round;
            if (last[0] != r) {
                last[0] = r;
                int k = arrivals.getAndIncrement();
                if (k < MAX_THREADS) {
                    startedAt[k] = System.nanoTime();
                }
            }
        }

        /** After the round: nanoseconds from {@code start} until the k-th thread, k = 1, 2, .... */
        long[] ramp(long start) {
            return sinceStart(startedAt, Math.min(arrivals.get(), MAX_THREADS), start);
        }
    }

    /**
     * The first {@code n} times of {@code startedAt} as nanoseconds since {@code start}, in
     * increasing order: threads take their index, then read the clock, so two may note their
     * times in the other order.
     */
    static long[] sinceStart(long[] startedAt, int n, long start) {
        long[] ramp = new long[n];
        for (int k = 0; k < n; k++) {
            ramp[k] = startedAt[k] - start;
        }
        Arrays.sort(ramp);
        return ramp;
    }

    /** fib without cutoff on our pool, noting first tasks. */
    static final class Fib extends Task<Long> {
        private final Ramp ramp;
        private final int n;
        /** The thread that created this task: if it runs it too, it is not its first. */
        private final Thread creator = Thread.currentThread();

        Fib(Ramp ramp, int n) {
            this.ramp = ramp;
            this.n = n;
        }

        @Override
        protected Long compute() {
            if (Thread.currentThread() != creator) {
                ramp.arrive();
            }
            if (n < 2) {
                return (long) n;
            }
            Fib f1 = new Fib(ramp, n - 1);
            f1.fork();
            return new Fib(ramp, n - 2).compute() + f1.join();
        }
    }

    /** The same on {@code ForkJoinPool}. */
    static final class FjFib extends RecursiveTask<Long> {
        private static final long serialVersionUID = 1L;
        private final transient Ramp ramp;
        private final int n;
        private final transient Thread creator = Thread.currentThread();

        FjFib(Ramp ramp, int n) {
            this.ramp = ramp;
            this.n = n;
        }

        @Override
        protected Long compute() {
            if (Thread.currentThread() != creator) {
                ramp.arrive();
            }
            if (n < 2) {
                return (long) n;
            }
            FjFib f1 = new FjFib(ramp, n - 1);
            f1.fork();
            return new FjFib(ramp, n - 2).compute() + f1.join();
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2 || args.length > 5) {
            throw new IllegalArgumentException(
                    "usage: POOLS PARALLELISMS [n [rounds [idleMicros]]], such as stealpool,forkjoin 4,16 25 300 0");
        }
        String[] pools = args[0].split(",");
        int[] parallelisms = Arrays.stream(args[1].split(",")).mapToInt(Integer::parseInt).toArray();
        int n = args.length > 2 ? Integer.parseInt(args[2]) : ParallelismFibBenchmark.N;
        int rounds = args.length > 3 ? Integer.parseInt(args[3]) : ROUNDS;
        long idleMicros = args.length > 4 ? Long.parseLong(args[4]) : 0L;
        if (n < 2 || rounds < 1 || idleMicros < 0) {
            throw new IllegalArgumentException("n must be at least 2, rounds at least 1, idleMicros not negative: "
                    + n + ", " + rounds + ", " + idleMicros);
        }
        System.out.printf(Locale.ROOT, "fib(%d) without cutoff, %d rounds after %d, %d us idle before each; "
                + "times until k threads had started a task, us: median over all rounds (rounds that got k)%n",
                n, rounds, WARM_UP_ROUNDS, idleMicros);
        for (int p : parallelisms) {
            for (String pool : pools) {
                System.out.println(probe(pool, p, n, rounds, idleMicros));
            }
        }
    }

    static String probe(String pool, int parallelism, int n, int rounds, long idleMicros) throws Exception {
        Contender contender = Contender.of(pool);
        if (contender == Contender.FIXED) {
            throw new IllegalArgumentException("fib without cutoff deadlocks a fixed thread pool: pool=fixed");
        }
        ExecutorService executor = contender.create(parallelism);
        try {
            Ramp ramp = new Ramp();
            double[] roundMillis = new double[rounds];
            List<long[]> ramps = new ArrayList<>(rounds);
            int[] threads = new int[rounds];
            PoolStats before = null;
            for (int r = -WARM_UP_ROUNDS; r < rounds; r++) {
                if (idleMicros > 0) {
                    LockSupport.parkNanos(idleMicros * 1_000L);
                }
                if (r == 0 && executor instanceof WorkStealingPool) {
                    before = ((WorkStealingPool) executor).stats();
                }
                ramp.begin(r + WARM_UP_ROUNDS);
                long start = System.nanoTime();
                long result = executor instanceof ForkJoinPool
                        ? ((ForkJoinPool) executor).invoke(new FjFib(ramp, n))
                        : ((WorkStealingPool) executor).invoke(new Fib(ramp, n));
                long end = System.nanoTime();
                if (result != ForkJoinBenchmark.sequentialFib(n)) {
                    throw new AssertionError("fib(" + n + ") = " + result);
                }
                if (r >= 0) {
                    roundMillis[r] = (end - start) / 1e6;
                    ramps.add(ramp.ramp(start));
                    threads[r] = ramps.get(r).length;
                }
            }
            Arrays.sort(roundMillis);
            Arrays.sort(threads);
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
                    "p=%2d %-10s round median %6.3f ms | until k threads:", parallelism, pool, roundMillis[rounds / 2]));
            for (int k = 1; ; k = Math.min(2 * k, parallelism)) {
                line.append(String.format(Locale.ROOT, " %d: %s", k, medianUntil(ramps, k)));
                if (k == parallelism) {
                    break;
                }
            }
            line.append(String.format(Locale.ROOT, " | threads a round: median %d, most %d",
                    threads[rounds / 2], threads[rounds - 1]));
            if (before != null) {
                PoolStats after = ((WorkStealingPool) executor).stats();
                line.append(String.format(Locale.ROOT, " | per round: parks %.1f, wake-ups %.1f",
                        (after.parks() - before.parks()) / (double) rounds,
                        (after.wakeups() - before.wakeups()) / (double) rounds));
            }
            return line.toString();
        } finally {
            Contender.stop(executor);
        }
    }

    /**
     * Median microseconds until k threads had started, a round that never got k counting as
     * never ({@code -} when fewer than half did), then in brackets how many rounds got k.
     */
    static String medianUntil(List<long[]> ramps, int k) {
        long[] until = ramps.stream().mapToLong(ramp -> ramp.length >= k ? ramp[k - 1] : Long.MAX_VALUE).sorted().toArray();
        long got = Arrays.stream(until).filter(t -> t != Long.MAX_VALUE).count();
        long median = until[until.length / 2];
        return String.format(Locale.ROOT, "%s (%d/%d)",
                median == Long.MAX_VALUE ? "-" : String.format(Locale.ROOT, "%.1f", median / 1e3), got, until.length);
    }
}
