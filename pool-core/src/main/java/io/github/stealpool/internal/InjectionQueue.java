package io.github.stealpool.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.List;
import org.jctools.queues.varhandle.MpscUnboundedVarHandleArrayQueue;

/**
 * The pool's global queue for tasks submitted by threads outside the pool: many producers, many
 * consumers (the workers), unbounded, built on JCTools' VarHandle queues (no
 * {@code sun.misc.Unsafe}, so no warning on JDK 24+).
 *
 * <h2>Design</h2>
 * A power-of-two number of <em>stripes</em>, each a JCTools
 * {@link MpscUnboundedVarHandleArrayQueue} (array chunks linked on demand, one CAS per offer) with
 * a consumer try-lock:
 * <ul>
 *   <li>A producer offers to the stripe its thread id hashes to, so concurrent submitters
 *       rarely share a producer index, and one thread's tasks stay in submission order.</li>
 *   <li>A worker polls the stripes round-robin from a cursor it advances on every poll. It
 *       skips a stripe another worker holds; on a stripe that is not empty and whose lock it
 *       wins (a CAS; no worker ever waits for it), it takes a batch of up to {@link #BATCH}
 *       tasks: it runs the first, and pushes the rest onto its own deque, where the other
 *       workers can steal them.</li>
 * </ul>
 *
 * <h2>Searches</h2>
 * A search reads the lock word of a stripe before the queue's indexes, and skips a held stripe
 * at once. The order matters with one submitter and many workers: the producer index is a line
 * the submitter writes on every offer, and every search that reads it costs the submitter's next
 * offer a cache miss. On 16 cores (JDK 17, one thread submitting 100,000 tiny tasks) the
 * submitting loop took 3.1-3.5 ms with one worker and 9.3-12.0 ms with 16 when searches read
 * the indexes first, 5.7 ms with the lock read first. That halves the loss without removing it:
 * a search that finds the lock free still reads the indexes, and so does the holder's look
 * after its unlock.
 *
 * <h2>Why not one MPMC queue</h2>
 * JCTools' only unbounded MPMC queue ({@code MpmcUnboundedXaddArrayQueue}) lives in the
 * Unsafe-based {@code jctools-core}. The VarHandle flavour has a bounded MPMC array queue; with an
 * overflow queue behind it, two threads submitting a million tiny tasks on two cores ran at
 * 0.6-1.0x {@code ForkJoinPool} (producers outran the workers, so the bounded queue sat full and
 * every offer and poll contended on one index). The striped MPSC queues with batch transfer ran
 * at 1.8-2.3x {@code ForkJoinPool} on the same test (see the README for the command).
 *
 * <h2>Invariants</h2>
 * <ul>
 *   <li>A stripe has at most one consumer at a time: the holder of its lock. So each MPSC queue is
 *       used as specified, and every offered task is taken exactly once.</li>
 *   <li>No task waits forever: every worker's cursor visits every stripe, and a worker whose
 *       search found a stripe locked may sleep only because the holder, once it unlocks, looks
 *       at the stripe again and gives notice of any task left there (below; {@link #drainTo}
 *       excepted, which runs only once the pool stops).</li>
 *   <li>Progress: offers are lock-free. A consumer that is descheduled while holding a stripe's
 *       lock (for one batch) delays that stripe only; the others skip it.</li>
 * </ul>
 *
 * <h2>Memory ordering</h2>
 * An offer publishes with a CAS on the stripe's producer index (sequentially consistent in Java;
 * one that links a new chunk CASes it to an odd value, which {@code Stripe.isEmpty()} counts as a
 * task), and {@link #isEmpty()} compares each stripe's indexes with volatile reads. The idle
 * protocol relies on exactly that: a producer's offer, then its volatile read of the sleep counter,
 * against a worker's CAS on that counter, then its {@code isEmpty()} check (a Dekker pattern; see
 * {@link Sleep}). A stripe lock is taken with a CAS and released with a volatile store, which
 * orders one holder's use of the MPSC consumer side before the next holder's.
 *
 * <h2>Tasks left behind a lock</h2>
 * A worker's search skips a stripe another thread holds, so it does not see the tasks in it. It
 * may still go to sleep: after every unlock in {@link #poll} the holder reads the stripe again
 * and, if any task is left, gives notice ({@code tasksLeft}, the pool's
 * {@link Sleep#notifyNewJob()}) as a submitter would ({@link #drainTo} does not: it runs only
 * after {@code shutdownNow}, when no task needs a worker). Why that is enough: a searcher W finds
 * the stripe locked, with a volatile read of the lock word that sees it held or with a failed
 * CAS, after its sleepy announcement (a CAS or a volatile read of the sleep counter); the
 * holder's unlock comes after that read or CAS (which saw the lock before the unlock overwrote
 * it), and its read of the stripe and of the sleep counter after the unlock, all of them
 * sequentially consistent, hence in one total order. So the holder sees every task whose poster
 * read the sleep counter before W's announcement (it was published before W's read of the lock
 * word), unless it was taken, and sees W sleepy or asleep: it calls W's sleep off or wakes a
 * worker, as for a fresh post. A poster that read the counter after W's announcement gives its
 * own notice. Before this notice, a worker that saw tasks queued never slept; with 8 workers on
 * 2 cores and one producer, workers that lost the race for the producer's stripe then spun on
 * it, 4.8M failed steal looks for 4.8M tasks, taking the cores the holder and the producer
 * needed.
 */
public final class InjectionQueue {

    /** Most tasks taken per lock hold: amortises the lock; 16 and 256 measured no better. */
    public static final int BATCH = 64;

    /** Chunk size of each stripe's queue: one allocation per 1024 queued tasks. */
    static final int CHUNK = 1 << 10;

    /** Upper bound on stripes: beyond that producers rarely collide anyway. */
    static final int MAX_STRIPES = 64;

    private static final VarHandle LOCK;

    static {
        try {
            LOCK = MethodHandles.lookup().findVarHandle(InjectionStripeLock.class, "consumerLock", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** One stripe: an MPSC queue and the lock that makes its holder the single consumer. */
    static final class Stripe extends InjectionStripePad1 {
        final MpscUnboundedVarHandleArrayQueue<Runnable> queue = new MpscUnboundedVarHandleArrayQueue<>(CHUNK);
        /** Scratch for one batch; used only by the lock holder, emptied before unlock. */
        final Runnable[] batch = new Runnable[BATCH];

        /**
         * Whether another thread drains this stripe now: a search skips it without reading the
         * queue's indexes, the lines its producers write on every offer (see "Searches").
         * Volatile, like the failed CAS it stands for: see "Tasks left behind a lock".
         */
        boolean isHeld() {
            return (int) LOCK.getVolatile(this) != 0;
        }

        boolean tryLock() {
            // A strong CAS: a spurious failure (weakCompareAndSet) would make a searcher skip a
            // stripe nobody holds, and sleep with no holder to give notice.
            return LOCK.compareAndSet(this, 0, 1);
        }

        void unlock() {
            LOCK.setVolatile(this, 0); // sequentially consistent: see "Tasks left behind a lock"
        }

        /**
         * True if no task was queued at the moment of the reads: the raw indexes, consumer first,
         * compared for equality. Not JCTools' {@code isEmpty()}: an offer that links a new chunk
         * first CASes the producer index to an odd value and publishes the next even one later
         * with a release store, and {@code isEmpty()} halves the difference, so it reports such
         * a stripe empty. Its task may then be invisible to a worker's last search and to a
         * holder's look after unlocking, while its submitter, whose release store may still sit
         * in its store buffer, reads the sleep counter and sees nobody to wake. An odd index is
         * a task on its way. JCTools' {@code poll} answers null for it until the offer has linked
         * the chunk (it halves the difference too), so a holder may take nothing; its look after
         * unlocking then sees the odd index and gives notice, and workers search again until the
         * task can be taken.
         */
        boolean isEmpty() {
            long consumed = queue.lvConsumerIndex();
            return consumed == queue.lvProducerIndex();
        }
    }

    private final Stripe[] stripes;
    private final int mask;
    private final Runnable tasksLeft;
    /**
     * Test seam: run by {@link #drainTo} when it starts waiting for a task in transit (see
     * "Tasks in transit"), so a test can let the linking producer go only then. Tests in this
     * package set it before any other thread uses the queue; the pool's does nothing.
     */
    Runnable transitProbe = () -> { };

    /** A queue on its own, with nobody to give notice of tasks left behind a lock. */
    public InjectionQueue(int stripes) {
        this(stripes, () -> { });
    }

    /**
     * @param stripes   wanted number of stripes, rounded up to a power of two, at most 64
     * @param tasksLeft run by a worker that unlocked a stripe and found tasks still in it (see
     *                  "Tasks left behind a lock"): the pool's new-job notice
     */
    public InjectionQueue(int stripes, Runnable tasksLeft) {
        this.tasksLeft = tasksLeft;
        if (stripes < 1) {
            throw new IllegalArgumentException("stripes must be positive: " + stripes);
        }
        int n = Math.min(MAX_STRIPES, stripes == 1 ? 1 : Integer.highestOneBit(stripes - 1) << 1);
        this.stripes = new Stripe[n];
        for (int i = 0; i < n; i++) {
            this.stripes[i] = new Stripe();
        }
        this.mask = n - 1;
    }

    /** Stripe {@code i}, for tests in this package. */
    Stripe stripe(int i) {
        return stripes[i];
    }

    /** Number of stripes (a power of two). */
    int stripes() {
        return stripes.length;
    }

    /** Any thread: appends {@code task}. Never fails. */
    public void offer(Runnable task) {
        stripes[stripeOfCurrentThread()].queue.offer(task);
    }

    /**
     * The calling thread's {@code task} as it is to be posted while {@code timer} times tasks:
     * the task, or, if the sampler of the stripe this thread offers to picks it, its timed
     * wrapper. The caller then offers (or hands off) exactly what this returns.
     */
    Runnable forTiming(Runnable task, TaskTimer timer) {
        return timer.forStripe(task, stripeOfCurrentThread());
    }

    /** Fibonacci hashing of the thread id: stable per thread, spread across stripes. */
    private int stripeOfCurrentThread() {
        long id = Thread.currentThread().getId();
        return (int) ((id * 0x9E3779B97F4A7C15L) >>> 40) & mask;
    }

    /**
     * A worker: takes a batch of up to {@link #BATCH} tasks from one stripe, trying stripes from
     * {@code cursor} on. Returns the first (oldest) task for the caller to run and pushes the
     * rest onto {@code deque}, the caller's own, newest first, so that the owner pops them in
     * submission order while thieves take the newest. Returns null if every stripe was empty or
     * being drained by another worker.
     *
     * <p>The pushes happen while the stripe's lock is held, so whoever takes the lock next (such
     * as {@link #drainTo}) finds each task of the batch in the queue, in the deque, or gone.
     * The caller must announce the pushed tasks as new jobs ({@link Scheduler}).
     */
    public Runnable poll(int cursor, ChaseLevDeque<Runnable> deque) {
        return poll(cursor, deque, false);
    }

    /**
     * As {@link #poll(int, ChaseLevDeque)}; with {@code fifo} the rest of the batch is pushed
     * oldest first instead, for an owner that takes its deque's tasks from the top (a pool in
     * FIFO mode), so that it too runs them in submission order.
     */
    public Runnable poll(int cursor, ChaseLevDeque<Runnable> deque, boolean fifo) {
        Stripe[] ss = stripes;
        for (int k = 0; k <= mask; k++) {
            Stripe s = ss[(cursor + k) & mask];
            if (s.isHeld() || s.isEmpty() || !s.tryLock()) {
                continue;
            }
            Runnable first;
            try {
                first = takeBatch(s, deque, fifo);
            } finally {
                s.unlock();
                if (!s.isEmpty()) {
                    tasksLeft.run(); // after the unlock: see "Tasks left behind a lock"
                }
            }
            if (first != null) {
                return first;
            }
        }
        return null;
    }

    /**
     * The lock holder: takes up to BATCH tasks; returns the first (oldest) and pushes the rest
     * on deque in one {@link ChaseLevDeque#pushAll}, newest first (the owner pops the bottom) or,
     * with {@code fifo}, oldest first (the owner takes the top). For the owner popping, the
     * tasks are laid into the scratch array from its end backwards, so that the newest sits
     * lowest and the range pushed runs in the order wanted either way.
     */
    private static Runnable takeBatch(Stripe s, ChaseLevDeque<Runnable> deque, boolean fifo) {
        Runnable[] batch = s.batch;
        int n = 0;
        for (Runnable t; n < BATCH && (t = s.queue.poll()) != null; n++) {
            batch[fifo ? n : BATCH - 1 - n] = t;
        }
        if (n == 0) {
            return null;
        }
        // fifo: the oldest at 0, the rest [1, n) oldest first; else the oldest at BATCH - 1,
        // the rest [BATCH - n, BATCH - 1) newest first.
        int first = fifo ? 0 : BATCH - 1;
        int from = fifo ? 1 : BATCH - n;
        int to = fifo ? n : BATCH - 1;
        Runnable task = batch[first];
        try {
            deque.pushAll(batch, from, to);
        } finally { // the scratch never keeps a task reachable, even if the deque is full
            Arrays.fill(batch, Math.min(from, first), Math.max(to, first + 1), null);
        }
        return task;
    }

    /** True if no task was queued at the moment of the reads (volatile reads of each stripe). */
    public boolean isEmpty() {
        for (Stripe s : stripes) {
            if (!s.isEmpty()) {
                return false;
            }
        }
        return true;
    }

    /** Approximate number of queued tasks. */
    public int size() {
        long n = 0;
        for (Stripe s : stripes) {
            n += s.queue.size();
        }
        return (int) Math.min(n, Integer.MAX_VALUE);
    }

    /**
     * Tasks ever offered, read from each stripe's producer index (JCTools'
     * {@code currentProducerIndex()}, a volatile read), so counting submissions costs the
     * producers nothing. Never decreases.
     */
    public long offeredCount() {
        long n = 0;
        for (Stripe s : stripes) {
            n += s.queue.currentProducerIndex();
        }
        return n;
    }

    /**
     * Moves every queued task to {@code sink} and returns how many (shutdownNow, and settling a
     * submission that raced with it). Waits for a worker that is taking a batch.
     */
    public int drainTo(List<Runnable> sink) {
        int n = 0;
        for (Stripe s : stripes) {
            while (!s.tryLock()) {
                Thread.yield(); // held only while a worker takes one batch
            }
            try {
                for (Runnable t; (t = s.queue.poll()) != null; n++) {
                    sink.add(t);
                }
            } finally {
                s.unlock();
            }
        }
        return n;
    }
}

// Padding by inheritance (the JVM lays superclass fields first and never interleaves levels):
// each stripe's lock gets its own cache lines, so workers draining different stripes do not
// slow each other down.

abstract class InjectionStripePad0 {
    long p00, p01, p02, p03, p04, p05, p06, p07;
    long p08, p09, p0a, p0b, p0c, p0d, p0e, p0f;
}

abstract class InjectionStripeLock extends InjectionStripePad0 {
    /** 1 while a thread is the stripe's consumer. */
    volatile int consumerLock;
}

abstract class InjectionStripePad1 extends InjectionStripeLock {
    long p10, p11, p12, p13, p14, p15, p16, p17;
    long p18, p19, p1a, p1b, p1c, p1d, p1e, p1f;
}
