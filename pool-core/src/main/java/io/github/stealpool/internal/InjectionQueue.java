package io.github.stealpool.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
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
 *   <li>A worker polls the stripes round-robin from a cursor it advances on every poll. On a
 *       stripe that is not empty and whose lock it wins (a CAS; no worker ever waits for it),
 *       it takes a batch of up to {@link #BATCH} tasks: it runs the first, and pushes the rest
 *       onto its own deque, where the other workers can steal them.</li>
 * </ul>
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
 *   <li>No task waits forever: every worker's cursor visits every stripe, and a worker that sees a
 *       non-empty injection queue does not go to sleep ({@link Worker}).</li>
 *   <li>Progress: offers are lock-free. A consumer that is descheduled while holding a stripe's
 *       lock (for one batch) delays that stripe only; the others skip it.</li>
 * </ul>
 *
 * <h2>Memory ordering</h2>
 * An offer publishes with a CAS on the stripe's producer index (sequentially consistent in Java),
 * and {@link #isEmpty()} compares each stripe's indexes with volatile reads. The idle protocol
 * relies on exactly that: a producer's offer, then its volatile read of the sleep counter, against
 * a worker's CAS on that counter, then its {@code isEmpty()} check (a Dekker pattern; see
 * {@link Sleep}). A stripe lock is taken with a CAS and released with a release store, which
 * orders one holder's use of the MPSC consumer side before the next holder's.
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

        boolean tryLock() {
            return LOCK.compareAndSet(this, 0, 1);
        }

        void unlock() {
            LOCK.setRelease(this, 0);
        }
    }

    private final Stripe[] stripes;
    private final int mask;

    /** @param stripes wanted number of stripes, rounded up to a power of two, at most 64 */
    public InjectionQueue(int stripes) {
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

    /** Number of stripes (a power of two). */
    int stripes() {
        return stripes.length;
    }

    /** Any thread: appends {@code task}. Never fails. */
    public void offer(Runnable task) {
        // Fibonacci hashing of the thread id: stable per thread, spread across stripes.
        long id = Thread.currentThread().getId();
        int i = (int) ((id * 0x9E3779B97F4A7C15L) >>> 40) & mask;
        stripes[i].queue.offer(task);
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
        Stripe[] ss = stripes;
        for (int k = 0; k <= mask; k++) {
            Stripe s = ss[(cursor + k) & mask];
            if (s.queue.isEmpty() || !s.tryLock()) {
                continue;
            }
            try {
                Runnable[] batch = s.batch;
                int n = 0;
                for (Runnable t; n < BATCH && (t = s.queue.poll()) != null; ) {
                    batch[n++] = t;
                }
                if (n == 0) {
                    continue;
                }
                for (int i = n - 1; i > 0; i--) {
                    deque.push(batch[i]);
                    batch[i] = null;
                }
                Runnable first = batch[0];
                batch[0] = null;
                return first;
            } finally {
                s.unlock();
            }
        }
        return null;
    }

    /** True if no task was queued at the moment of the reads (volatile reads of each stripe). */
    public boolean isEmpty() {
        for (Stripe s : stripes) {
            if (!s.queue.isEmpty()) {
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
