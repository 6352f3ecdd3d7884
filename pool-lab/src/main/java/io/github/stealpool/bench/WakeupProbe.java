package io.github.stealpool.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Where a wake-up's time goes (issue 12): the pools' wake-up after {@link #IDLE_MICROS} us idle
 * (one task submitted from outside, timed from just before {@code execute} to the task's first
 * line, as {@link WakeupLatencyBenchmark} does) next to the bare mechanisms a pool is built
 * from, each a thread parked for the same time and woken by this one:
 * <ul>
 *   <li>{@code unpark}: a volatile flag and {@link LockSupport#unpark}, the floor;</li>
 *   <li>{@code lock+unpark}: the same with a {@link ReentrantLock} taken and released around
 *       the flag first, as our pool's waker does (Sleep);</li>
 *   <li>{@code condition}: {@link Condition#signal()} under the lock, the waiter in
 *       {@link Condition#await()}, as a {@code newFixedThreadPool}'s queue does.</li>
 * </ul>
 * Every contender is sampled once per round, in an order drawn per round, so a drift in a shared
 * machine's load hits all alike. Plain timing, no JMH: for a borrowed machine.
 *
 * <p>Run: {@code java -cp pool-lab/target/lab.jar io.github.stealpool.bench.WakeupProbe
 * [rounds [parallelism [idleMicros]]]} (default 2,000 rounds, the machine's cores, 2,000 us
 * idle before each wake-up); it prints the median,
 * 90th and 99th percentile of each, in microseconds, and the median time the waking thread spent
 * posting ({@code execute} until it returned; setting the flag and unparking), the waker's
 * side of the wake-up.
 */
public final class WakeupProbe {

    /** Idle time before each wake-up unless the third argument says otherwise: 2 ms. */
    static final long IDLE_MICROS = 2_000;
    private static final int WARMUP = 300;

    private WakeupProbe() {
    }

    /**
     * One way of waking a thread: {@link #post} wakes it to run {@link #stamp}'s
     * {@link Stamp#mark}; {@link #wakeOnce} times that from the post to the wakee's first line.
     */
    private abstract static class Waker {
        final Stamp stamp = new Stamp();
        /** How long the last post took the waking thread ({@code execute}, or flag and unpark). */
        private long postNanos;

        /** Nanoseconds from the post to the wakee's first line. */
        final long wakeOnce() {
            long t0 = System.nanoTime();
            post();
            postNanos = System.nanoTime() - t0;
            return stamp.awaitFrom(t0);
        }

        /** Nanoseconds the last {@link #wakeOnce} spent posting, before it waited for the task. */
        final long lastPostNanos() {
            return postNanos;
        }

        /** Wakes the wakee, which then marks the stamp. */
        abstract void post();

        /** Stops the pool or the thread. */
        abstract void close() throws InterruptedException;
    }

    /** The task's side: when it began, and a flag the submitter spins on. */
    private static final class Stamp {
        volatile long startedAt;
        volatile boolean started;

        void mark() {
            startedAt = System.nanoTime();
            started = true;
        }

        long awaitFrom(long postedAt) {
            while (!started) {
                Thread.onSpinWait();
            }
            started = false;
            return startedAt - postedAt;
        }
    }

    /** A pool: one task submitted per wake-up. */
    private static final class PoolContender extends Waker {
        private final ExecutorService pool;
        private final Runnable task = stamp::mark;

        PoolContender(String label, int parallelism) {
            this.pool = Contender.of(label).create(parallelism);
        }

        @Override
        void post() {
            pool.execute(task);
        }

        @Override
        void close() throws InterruptedException {
            Contender.stop(pool);
        }
    }

    /** A thread of its own, parked until this one posts, woken as {@code lock} says. */
    private static final class BareContender extends Waker {
        private final ReentrantLock lock = new ReentrantLock();
        private final Condition posted = lock.newCondition();
        private final boolean withLock;
        private final boolean withCondition;
        private final Thread wakee;
        private volatile boolean go;
        private volatile boolean closed;

        BareContender(boolean withLock, boolean withCondition) {
            this.withLock = withLock;
            this.withCondition = withCondition;
            this.wakee = new Thread(this::waitLoop, "wakee");
            wakee.setDaemon(true);
            wakee.start();
        }

        private void waitLoop() {
            while (!closed) {
                if (withCondition) {
                    lock.lock();
                    try {
                        while (!go && !closed) {
                            posted.awaitUninterruptibly();
                        }
                        go = false;
                    } finally {
                        lock.unlock();
                    }
                } else {
                    while (!go && !closed) {
                        LockSupport.park(this);
                    }
                    go = false;
                }
                if (!closed) {
                    stamp.mark();
                }
            }
        }

        @Override
        void post() {
            if (withCondition) {
                lock.lock();
                try {
                    go = true;
                    posted.signal();
                } finally {
                    lock.unlock();
                }
            } else {
                if (withLock) {
                    lock.lock();
                    try {
                        go = true;
                    } finally {
                        lock.unlock();
                    }
                } else {
                    go = true;
                }
                LockSupport.unpark(wakee);
            }
        }

        @Override
        void close() throws InterruptedException {
            closed = true;
            lock.lock();
            try {
                posted.signalAll();
            } finally {
                lock.unlock();
            }
            LockSupport.unpark(wakee);
            wakee.join(TimeUnit.SECONDS.toMillis(10));
        }
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 2_000;
        int parallelism = args.length > 1 ? Integer.parseInt(args[1]) : Runtime.getRuntime().availableProcessors();
        long idleMicros = args.length > 2 ? Long.parseLong(args[2]) : IDLE_MICROS;
        String[] names = {"stealpool", "forkjoin", "unpark", "lock+unpark", "condition"};
        List<Waker> wakers = new ArrayList<>();
        wakers.add(new PoolContender("stealpool", parallelism));
        wakers.add(new PoolContender("forkjoin", parallelism));
        wakers.add(new BareContender(false, false));
        wakers.add(new BareContender(true, false));
        wakers.add(new BareContender(false, true));
        long[][] nanos = new long[names.length][rounds];
        long[][] post = new long[names.length][rounds];
        Integer[] order = {0, 1, 2, 3, 4};
        try {
            for (int r = -WARMUP; r < rounds; r++) {
                shuffle(order);
                for (int c : order) {
                    LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(idleMicros));
                    long n = wakers.get(c).wakeOnce();
                    if (r >= 0) {
                        nanos[c][r] = n;
                        post[c][r] = wakers.get(c).lastPostNanos();
                    }
                }
            }
        } finally {
            for (Waker c : wakers) {
                c.close();
            }
        }
        System.out.printf(Locale.ROOT, "%d cores, %s %s, parallelism %d; wake-up after %d us idle, %d interleaved rounds%n",
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.vm.name"),
                System.getProperty("java.version"), parallelism, idleMicros, rounds);
        System.out.println("| woken by | median, us | p90, us | p99, us | the post itself, median, us |");
        System.out.println("|---|---|---|---|---|");
        for (int c = 0; c < names.length; c++) {
            long[] s = nanos[c].clone();
            Arrays.sort(s);
            long[] p = post[c].clone();
            Arrays.sort(p);
            System.out.printf(Locale.ROOT, "| %s | %.1f | %.1f | %.1f | %.1f |%n", names[c],
                    s[rounds / 2] / 1e3, s[(int) (rounds * 0.9)] / 1e3, s[(int) (rounds * 0.99)] / 1e3,
                    p[rounds / 2] / 1e3);
        }
    }

    private static void shuffle(Integer[] order) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int i = order.length - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            Integer t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
    }
}
