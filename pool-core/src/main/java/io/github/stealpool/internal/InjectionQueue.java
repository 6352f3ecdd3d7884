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
 * offer a cache miss. Reading the lock first halves that loss without removing it
 * (docs/lab/cores16.md has the figures): a search that finds the lock free still reads the
 * indexes, and so does the holder's look after its unlock.
 *
 * <h2>Why not one MPMC queue</h2>
 * JCTools' only unbounded MPMC queue ({@code MpmcUnboundedXaddArrayQueue}) lives in the
 * Unsafe-based {@code jctools-core}. The VarHandle flavour has a bounded MPMC array queue; with an
 * overflow queue behind it, producers outran the workers, so the bounded queue sat full and every
 * offer and poll contended on one index; the striped MPSC queues with batch transfer ran well
 * ahead of it (docs/design.md, "Injection queue"; docs/lab/ruled-out.md has the figures).
 *
 * <h2>Invariants</h2>
 * <ul>
 *   <li>A stripe has at most one consumer at a time: the holder of its lock. So each MPSC queue is
 *       used as specified, and every offered task is taken exactly once. The holder also owns
 *       the scratch array and {@code stashed}: a task in it is in the stripe.</li>
 *   <li>No task waits forever: every worker's cursor visits every stripe, and a worker whose
 *       search found a stripe locked may sleep only because the holder, once it unlocks, looks
 *       at the stripe again and gives notice of any task left there (below; {@link #drainTo}
 *       excepted, which runs only once the pool stops).</li>
 *   <li>Progress: offers are lock-free but for a chunk link, during which the stripe's other
 *       producers spin (JCTools). A consumer that is descheduled while holding a stripe's
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
 * <h2>Tasks in transit</h2>
 * An offer that links a new chunk (once per {@link #CHUNK} offers to a stripe) CASes the
 * producer index to an odd value, allocates and links the chunk with release stores, and only
 * then publishes the next even index; other producers of the stripe spin meanwhile. In that
 * window the stripe holds a task ({@code Stripe.isEmpty()} is false) that JCTools' {@code poll}
 * cannot take: it answers null. A worker skips it (the holder's look after unlocking gives
 * notice, below). {@link #drainTo}, the sweep of {@code shutdownNow} and of a late submitter,
 * must not: the submitter's re-check of the run state may have read RUNNING while the link's
 * stores were still on their way, so nobody else would hand the task back. The sweep therefore
 * drains each stripe until its indexes meet, spinning while a link is in progress: the linking
 * producer finishes in a bounded number of its own steps.
 * <p>Unless it died inside the link: a {@code StackOverflowError} (or any error) thrown in
 * JCTools' offer after its odd CAS leaves the index odd for good, its task never visible. That
 * task was not accepted (the error reached its submitter), but the stripe is wedged: every
 * later offer to it spins forever inside JCTools, and {@code poll} never gets past it. Only
 * JCTools can fix that (resize would have to restore the index on any throwable, as it does
 * for an {@code OutOfMemoryError} while allocating). The pool's own paths stay safe: {@link
 * #offer} marks a stripe whose offer threw ({@code offerFailed}, a field write in the catch,
 * which cannot throw again), and the sweep does not wait on a marked stripe. The mark may be
 * set by an offer that failed harmlessly (before its CAS, or out of memory, which JCTools
 * undoes) while another producer links; not waiting is still safe because the pool's submitter
 * re-checks the run state after a full fence that follows the whole offer (ShutdownSweep,
 * "Submissions racing with shutdown"): a sweep that reads the odd index after STOP means that
 * submitter sees STOP and settles its task itself.
 *
 * <h2>A batch in transit</h2>
 * Between polling a batch and pushing it onto the worker's deque, the tasks are only in the
 * stripe's scratch array. If anything throws there (the deque is full or cannot grow, a stack
 * overflow), {@code takeBatch} leaves the tasks taken so far in the scratch array and counts
 * them in {@code stashed}, still under the stripe's lock; the stripe is not empty while any is
 * stashed, the next holder takes them first, and {@link #drainTo} returns them first. So every
 * polled task is pushed, run by the taker, or back in the stripe, whatever throws.
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
 * own notice. Without it, a worker that saw tasks queued could never sleep, and workers that
 * lost the race for the producer's stripe spun on it, taking the cores the holder and the
 * producer needed (docs/design.md, "Injection queue").
 */
public final class InjectionQueue {

    /** Most tasks taken per lock hold: amortises the lock (docs/lab/ruled-out.md: 16 and 256). */
    public static final int BATCH = 64;

    /** Chunk size of each stripe's queue: one allocation per 1024 queued tasks. */
    public static final int CHUNK = 1 << 10;

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

        // --- accessors: access mode in the name, raw VarHandle calls (LOCK, above) only here ---

        private int lvLock() {
            return (int) LOCK.getVolatile(this);
        }

        private boolean casLock(int expect, int update) {
            return LOCK.compareAndSet(this, expect, update);
        }

        private void svLock(int v) {
            LOCK.setVolatile(this, v);
        }

        /**
         * Whether another thread drains this stripe now: a search skips it without reading the
         * queue's indexes, the lines its producers write on every offer (see "Searches").
         * Volatile, like the failed CAS it stands for: see "Tasks left behind a lock".
         */
        boolean isHeld() {
            return lvLock() != 0;
        }

        boolean tryLock() {
            // A strong CAS: a spurious failure (weakCompareAndSet) would make a searcher skip a
            // stripe nobody holds, and sleep with no holder to give notice.
            return casLock(0, 1);
        }

        void unlock() {
            svLock(0); // sequentially consistent: see "Tasks left behind a lock"
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
         * task can be taken; the sweep waits for it ("Tasks in transit"). Tasks a failed
         * transfer left in the scratch array count too ("A batch in transit").
         */
        boolean isEmpty() {
            return stashed == 0 && queueIsEmpty();
        }

        /** The queue alone, without {@code stashed}: consumer index first, as above. */
        boolean queueIsEmpty() {
            long consumed = queue.lvConsumerIndex();
            return consumed == queue.lvProducerIndex();
        }
    }

    private final Stripe[] stripes;
    private final int mask;
    private final Runnable tasksLeft;
    /**
     * The bound on queued outside submissions, or null (unbounded): given a permit back for
     * every task that leaves the queue ({@link SubmissionBound}, "Permits: what they count").
     */
    private final SubmissionBound bound;
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
        this(stripes, tasksLeft, null);
    }

    /**
     * @param stripes   as above
     * @param tasksLeft as above
     * @param bound     given a permit back for each task that leaves the queue; null for none
     */
    InjectionQueue(int stripes, Runnable tasksLeft, SubmissionBound bound) {
        this.tasksLeft = tasksLeft;
        this.bound = bound;
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

    /** {@code t} as thrown: takeBatch and the notice declare no checked exception. */
    private static RuntimeException unchecked(Throwable t) {
        if (t instanceof Error) {
            throw (Error) t;
        }
        return (RuntimeException) t;
    }

    /** Number of stripes (a power of two). */
    int stripes() {
        return stripes.length;
    }

    /**
     * Any thread: appends {@code task}. Fails only with an error thrown inside JCTools (out of
     * memory for a new chunk, a stack overflow); then the stripe is marked (see "Tasks in
     * transit") and the error propagates, the task not queued as far as the caller knows.
     */
    public void offer(Runnable task) {
        Stripe s = stripes[stripeOfCurrentThread()];
        try {
            s.queue.offer(task);
        } catch (Throwable e) {
            s.offerFailed = true; // a field write, no call: cannot overflow the stack again
            throw e;
        }
    }

    /**
     * Offers a task that is no new submission (a late submitter's sweep putting others' tasks
     * back, a dead worker's deque handed on): with a bound, it takes a permit by force first, as
     * the task will give one back when it leaves ({@link SubmissionBound}).
     */
    void requeue(Runnable task) {
        SubmissionBound b = bound;
        if (b != null) {
            b.forceAcquire(1);
        }
        try {
            offer(task);
        } catch (Throwable e) {
            if (b != null) {
                b.release();
            }
            throw e;
        }
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
            Runnable first = null;
            Throwable failed = null;
            int taken = 0;
            try {
                first = takeBatch(s, deque, fifo, bound != null);
                if (first != null && bound != null) {
                    taken = s.taken; // the holder's own field: read before the unlock
                }
            } catch (Throwable e) { // the batch is stashed in the stripe ("A batch in transit")
                failed = e;
            } finally {
                // A field write, no call: an error here (out of stack) would lock the stripe
                // for good. Volatile, as unlock(): see "Tasks left behind a lock".
                s.consumerLock = 0;
            }
            // From here the batch's first task is only in this frame: nothing may lose it.
            try {
                if (taken != 0 && bound != null) {
                    bound.release(taken); // the batch left the queue (SubmissionBound)
                }
                if (!s.isEmpty()) {
                    tasksLeft.run(); // after the unlock: see "Tasks left behind a lock"
                }
            } catch (Throwable noticeFailed) {
                // Out of stack (or memory) in the notice: the tasks left stay queued, and this
                // worker, awake, looks at the queue again before it can sleep; what is lost is
                // the wake-up of another worker for them, never a task.
                if (first == null && failed == null) {
                    throw unchecked(noticeFailed);
                }
            }
            if (failed != null) {
                throw unchecked(failed);
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
     *
     * <p>A batch in transit is never lost (see "A batch in transit"): the batch starts with the
     * tasks a failed transfer left in the scratch array, and if anything throws before the
     * push (a poll, or pushAll: the deque is full or cannot grow), the catch leaves every task
     * taken so far there, counted in {@code stashed}, for the next holder or a sweep. pushAll
     * adds all or nothing, so a throw means none was pushed. The catch and the scratch
     * clearing only read and write fields: no call, so no stack overflow, between taking a
     * task and handing it on.
     */
    private static Runnable takeBatch(Stripe s, ChaseLevDeque<Runnable> deque, boolean fifo,
                                      boolean counted) {
        Runnable[] batch = s.batch;
        int n = s.stashed; // under the lock: the holder's own field
        Runnable task;
        int lo;
        int hi;
        try {
            if (n != 0) {
                if (s.stashFifo != fifo) { // laid out for the other mode: reverse in place
                    for (int i = 0, j = BATCH - 1; i < j; i++, j--) {
                        Runnable x = batch[i];
                        batch[i] = batch[j];
                        batch[j] = x;
                    }
                    s.stashFifo = fifo;
                }
                s.stashed = 0; // the catch below counts them again if this transfer fails
            }
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
            task = batch[first];
            lo = Math.min(from, first);
            hi = Math.max(to, first + 1);
            deque.pushAll(batch, from, to);
        } catch (Throwable e) {
            s.stashFifo = fifo; // the layout of batch[0, n) or batch[BATCH - n, BATCH)
            s.stashed = n;      // volatile: counted by isEmpty from here on
            throw e;
        }
        for (int i = lo; i < hi; i++) { // the scratch never keeps a handed-on task reachable
            batch[i] = null;
        }
        if (counted) {
            s.taken = n; // a field write, no call; unbounded pools write no shared line here
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
            n += s.queue.size() + s.stashed;
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
     * submission that raced with it). Waits for a worker that is taking a batch, and for each
     * task in transit (see "Tasks in transit"): it returns only once each stripe was seen
     * really empty, or an offer to it failed.
     */
    public int drainTo(List<Runnable> sink) {
        int n = 0;
        for (Stripe s : stripes) {
            while (!s.tryLock()) {
                Thread.yield(); // held only while a worker takes one batch
            }
            int drained = 0;
            try {
                drained = drainStripe(s, sink);
            } finally {
                s.unlock();
            }
            n += drained;
            if (drained != 0 && bound != null) {
                bound.release(drained); // these left the queue (SubmissionBound)
            }
        }
        return n;
    }

    /** The lock holder: drains one stripe, a failed transfer's batch first (the oldest). */
    private int drainStripe(Stripe s, List<Runnable> sink) {
        int n = 0;
        int stashed = s.stashed;
        if (stashed != 0) {
            Runnable[] batch = s.batch;
            boolean fifo = s.stashFifo;
            for (int i = 0; i < stashed; i++) {
                sink.add(batch[fifo ? i : BATCH - 1 - i]);
            }
            Arrays.fill(batch, null);
            s.stashed = 0; // only once all are in the sink: a throw above leaves the stash whole
            n = stashed;
        }
        boolean waited = false;
        for (int spins = 1; ; spins++) {
            for (Runnable t; (t = s.queue.poll()) != null; n++) {
                sink.add(t);
            }
            // poll answers null with the indexes apart only while a producer links a chunk.
            if (s.queueIsEmpty() || s.offerFailed) {
                return n;
            }
            if (!waited) {
                waited = true;
                transitProbe.run();
            }
            if ((spins & 63) == 0) {
                Thread.yield(); // the linking producer may need this core
            } else {
                Thread.onSpinWait();
            }
        }
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
    /**
     * Tasks a failed transfer left in the scratch array (InjectionQueue, "A batch in transit"):
     * written only by the lock holder, read by searchers in {@code isEmpty}. Volatile, on the
     * lock's line (which every search reads first anyway), and written as a field in catch
     * blocks, where calling an accessor could overflow the stack again.
     */
    volatile int stashed;
    /** Layout of the stashed tasks (see takeBatch); read and written by the lock holder only. */
    boolean stashFifo;
    /**
     * Tasks the last successful takeBatch moved out of the stripe, its first included: for the
     * bound's permits (SubmissionBound). Read and written by the lock holder only.
     */
    int taken;
    /**
     * Set for good once an offer to this stripe threw (InjectionQueue, "Tasks in transit"): a
     * producer that dies inside JCTools' chunk link leaves the producer index odd forever, and
     * the sweep must not wait for that link.
     */
    volatile boolean offerFailed;
}

abstract class InjectionStripePad1 extends InjectionStripeLock {
    long p10, p11, p12, p13, p14, p15, p16, p17;
    long p18, p19, p1a, p1b, p1c, p1d, p1e, p1f;
}
