package io.github.stealpool.internal;

import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Spare threads for blocking calls: while workers are inside {@code WorkStealingPool.blocking}
 * calls, up to {@code maxSpares} spare threads run tasks in their place.
 *
 * <h2>Blocking calls: spare threads</h2>
 * A worker entering {@code WorkStealingPool.blocking} counts itself in {@code blockedWorkers}
 * ({@link #beginBlocking}) and, while fewer spares are alive than workers blocked, starts a
 * spare thread, up to {@code maxSpares}. A spare runs a Worker in a slot past
 * {@code parallelism}: its own deque and sleep record, searched by thieves and swept by
 * shutdown like any other, so it runs the pool's queue, the blocked worker's deque, anything.
 * {@code activeSpares} changes only under the scheduler's mainLock, and so do raises of
 * {@code blockedWorkers}, each followed there by {@link #topUp}; so after each unlock
 * {@code activeSpares} is at least {@code min(blockedWorkers, maxSpares)} (lowering
 * {@code blockedWorkers} without the lock only widens the margin). Less only while a thread
 * cannot be created, or while every spare slot still holds the thread of a retiring spare:
 * {@link LifeCycle#workerExited} frees the slot and tops up again, under the lock. So
 * {@code parallelism} threads stay free to run tasks. A spare whose own deque is empty between
 * two tasks retires ({@link #retire}) if more spares are alive than workers blocked, so a busy
 * pool does not stay above its parallelism once the blocking calls end. An idle spare parks
 * with a time limit, the keep-alive ({@link Sleep#sleepAtMost}); once it ran out, the spare
 * searches once more, as Sleep's proof asks of a sleeper that took itself off, and retires
 * under the same condition, or else parks again.
 * <ul>
 *   <li><b>Nothing lost.</b> A spare follows the rules of {@link ShutdownSweep} ("Nothing
 *       lost") as a worker does: it retires with its deque empty (between two tasks or idle; only its
 *       owner pushes there), exits at STOP settling its deque as a worker does, and if it dies its tasks are
 *       handed on like those of a worker that cannot be replaced. While the pool runs it may
 *       leave without a last search because {@code parallelism} threads not blocked stay, and
 *       search when done (Sleep's proof, fourth case); after shutdown only through
 *       {@link LifeCycle#tryRetire}, as the last worker to leave must, so no accepted task is
 *       left queued.</li>
 *   <li><b>After shutdown</b> the queues only need to drain: a worker may retire (queues empty,
 *       under mainLock) only if a thread not blocked in a {@code blocking} call stays, to run
 *       what the blocked ones fork; the last such thread sleeps instead (Sleep's
 *       {@code mustNotSleep} lets it), and {@link #endBlocking} wakes the sleepers so it can
 *       leave once nobody blocks. A spare is started only if no free thread is left.</li>
 *   <li><b>One thread per slot.</b> A spare slot takes a new thread only once its last thread
 *       left {@link LifeCycle#workerExited}, under mainLock, after which that thread touches the
 *       Worker no more; the lock, then {@code Thread.start}, make the old thread's writes
 *       visible to the new one. The deque keeps a single owner.</li>
 *   <li><b>New slots are seen.</b> A slot's Worker and deque are stored before the scheduler's
 *       {@code slots} (volatile, only raised) counts them, and readers without the lock read
 *       {@code slots} first. A spare's first push follows its thread's start, hence the raise;
 *       a search that Sleep's proof counts on follows the push's notice in the synchronization
 *       order, so its read of {@code slots} includes the spare's deque.</li>
 * </ul>
 *
 * <p>This class reads and writes the scheduler's life-cycle fields ({@code mainLock},
 * {@code runState}, {@code liveWorkers}, the slots) directly, with the modes they have there:
 * the counts above and the scheduler's are changed together, under one lock. Nothing here is on
 * a task's path: a worker reaches it only when it enters or leaves a blocking call, and a spare
 * when its own deque is empty or its keep-alive runs out.
 */
final class SpareThreads {

    /** The scheduler's logger: these lines were always the scheduler's. */
    private static final Logger LOG = LoggerFactory.getLogger(Scheduler.class);

    private final Scheduler scheduler;
    /** At most this many spare threads at once; 0 turns compensation off. */
    private final int maxSpares;
    /** How long a spare thread may stay parked, with nobody to stand in for, before it retires. */
    final long keepAliveNanos;
    /**
     * Threads inside {@code blocking} calls, nested ones counted once. Raised under mainLock
     * (each raise is followed by the check for a spare, under the same lock); lowered without
     * it, which can only delay a spare's retirement, never leave a blocked worker without one.
     */
    private final AtomicInteger blockedWorkers = new AtomicInteger();
    /** Spare threads started and not retired. Written under mainLock. */
    private volatile int activeSpares;
    /** Spare threads started, ever. Written under mainLock. */
    private volatile long compensations;

    SpareThreads(Scheduler scheduler, int maxSpares, long keepAliveNanos) {
        this.scheduler = scheduler;
        this.maxSpares = maxSpares;
        this.keepAliveNanos = keepAliveNanos;
    }

    /** Workers inside {@code blocking} calls now: one volatile read, for statistics. */
    int blockedWorkers() {
        return blockedWorkers.get();
    }

    /** Spare threads started, ever: one volatile read, for statistics. */
    long compensations() {
        return compensations;
    }

    /** {@link #beginBlocking}: a spare thread was started for the call. */
    static final int SPARE_STARTED = 0;
    /** {@link #beginBlocking}: none was started; the spares already alive cover the blocked workers. */
    static final int SPARE_REUSED = 1;
    /** {@link #beginBlocking}: no spare covers the call (the bound, stopping, a failed start, or after shutdown). */
    static final int NO_SPARE = 2;

    /**
     * Called by a worker entering the outermost {@code blocking} call on its thread: counts it
     * blocked and, if fewer spares are alive than workers blocked, starts one (up to
     * {@link #maxSpares}; not once the pool is stopping). Never throws: a spare that cannot be
     * created or started is logged, and the call blocks uncompensated.
     *
     * @return {@link #SPARE_STARTED}, {@link #SPARE_REUSED} or {@link #NO_SPARE}, for the
     *     BlockingCall event
     */
    int beginBlocking() {
        scheduler.mainLock.lock();
        try {
            int blocked = blockedWorkers.incrementAndGet();
            long started = compensations;
            topUp();
            return compensations != started ? SPARE_STARTED
                    : activeSpares >= blocked ? SPARE_REUSED : NO_SPARE;
        } finally {
            scheduler.mainLock.unlock();
        }
    }

    /** Spare threads started and not retired: one volatile read, for the BlockingCall event. */
    int activeSpares() {
        return activeSpares;
    }

    /**
     * Called by a worker leaving its outermost {@code blocking} call. No lock, and nothing to
     * start: a spare no longer needed retires by itself ({@link #retire}). After shutdown
     * it wakes the sleepers: one kept asleep as the last thread free for blocked workers
     * ({@link #leavingKeepsAFreeThread}) may retire now. Its check, under Sleep's lock, either
     * comes after this decrement or finds it asleep when {@code wakeAll} runs.
     */
    void endBlocking() {
        blockedWorkers.decrementAndGet();
        if (scheduler.runState >= Scheduler.SHUTDOWN) {
            scheduler.sleep.wakeAll();
        }
    }

    /**
     * Whether a worker leaving now would leave a thread not blocked in a {@code blocking} call,
     * to run what the blocked ones fork or wait for; true if none is blocked. After shutdown
     * this, not the spares' count, decides who may leave: the queues only need to drain.
     */
    boolean leavingKeepsAFreeThread() {
        int blocked = blockedWorkers.get();
        return blocked == 0 || scheduler.liveWorkers - 1 - blocked >= 1;
    }

    /**
     * Under mainLock: whether to start another spare. While the pool runs, until as many are
     * alive as workers are blocked, keeping {@code parallelism} threads free; after shutdown,
     * only while no thread is free (the other workers retired, and the ones left all block):
     * one free thread is enough to drain the queues, and more would only retire again.
     */
    private boolean wantsSpare() {
        Scheduler s = scheduler;
        if (activeSpares >= maxSpares || s.runState >= Scheduler.STOP) {
            return false;
        }
        int blocked = blockedWorkers.get();
        return s.runState == Scheduler.RUNNING ? activeSpares < blocked : s.liveWorkers - blocked < 1;
    }

    /**
     * Under mainLock: starts spares until as many are alive as workers are blocked (up to
     * maxSpares), unless the pool is stopping. Called when a worker blocks and when a spare
     * slot is freed: a blocking call that came while every slot still held a retiring spare's
     * thread gets its spare as soon as that thread is gone, not never. Never throws: a thread
     * that cannot be created or started is logged, and the call blocks uncompensated until the
     * next try.
     */
    private void topUp() {
        try {
            while (wantsSpare()) {
                if (!startSpare()) {
                    return;
                }
            }
        } catch (Throwable e) {
            try {
                LOG.warn("{}: could not start a spare thread for a blocking call; it blocks "
                        + "uncompensated", scheduler.name(), e);
            } catch (Throwable ignored) {
                // out of memory: the call still runs
            }
        }
    }

    /**
     * Under mainLock: starts a spare thread in a free spare slot, creating the slot if none is
     * free. A slot is free once its last thread has left {@link LifeCycle#workerExited} (under
     * this lock), so one Worker never has two threads. If every slot still has a thread (spares
     * retiring but not yet gone), nothing is started.
     */
    private boolean startSpare() {
        Scheduler s = scheduler;
        Worker[] workers = s.workers;
        Worker spare = null;
        int n = s.slots();
        for (int i = s.parallelism; i < n; i++) {
            if (workers[i].slotFree) {
                spare = workers[i];
                break;
            }
        }
        if (spare == null) {
            if (n == workers.length) {
                return false; // topped up when a retiring spare's thread is gone
            }
            spare = new Worker(s, n, s.spinRounds, s.yieldRounds, true);
            workers[n] = spare;
            s.deques[n] = spare.deque;
            s.publishSlots(n + 1); // volatile: publishes the slot to thieves and statistics
        }
        Thread t = s.newThread(spare);
        spare.slotFree = false;
        spare.retired = false;
        spare.thread = t;
        s.liveWorkers++;
        activeSpares++;
        try {
            t.start();
        } catch (Throwable e) {
            s.liveWorkers--;
            activeSpares--;
            spare.slotFree = true;
            if (e instanceof IllegalThreadStateException) {
                throw new IllegalStateException("threadFactory returned a thread that was already started", e);
            }
            throw e;
        }
        compensations++;
        return true;
    }

    /** Whether more spares are alive than workers blocked: two volatile reads, no lock. */
    boolean inSurplus() {
        return activeSpares > blockedWorkers.get();
    }

    /**
     * Called by a spare with an empty deque (between tasks, or idle for its whole keep-alive):
     * while the pool runs, it retires if more spares are alive than workers blocked. Those left
     * are enough to keep {@code parallelism} threads free to run tasks, which is also what lets
     * it leave without a last search (Sleep's proof, fourth case). After shutdown spares leave
     * only through {@link LifeCycle#tryRetire}, which looks at the queues under the lock, as
     * the last worker to leave must (ShutdownSweep, "Nothing lost"); the regular workers may be
     * gone by then.
     */
    boolean retire(Worker w) {
        Scheduler s = scheduler;
        if (!inSurplus() || s.runState != Scheduler.RUNNING) {
            return false; // the common answer without the lock
        }
        s.mainLock.lock();
        try {
            if (!inSurplus() || s.runState != Scheduler.RUNNING) {
                return false;
            }
            w.retired = true;
            activeSpares--;
            s.life.workerGone();
            return true;
        } finally {
            s.mainLock.unlock();
            s.life.fireTermination();
        }
    }

    /** Under mainLock: a spare retired through {@link LifeCycle#tryRetire}. */
    void retiredAfterShutdown() {
        activeSpares--;
    }

    /**
     * Under mainLock: the thread of retired spare {@code w} has left
     * {@link LifeCycle#workerExited} and touches the Worker no more, so its slot may take a new
     * thread; one may be wanted at once.
     */
    void slotFreed(Worker w) {
        w.slotFree = true;
        topUp();
    }

    /**
     * Under mainLock: spare {@code w} ended without retiring (it died, or the pool stopped).
     * Its slot is free; a spare that died leaves a blocked worker uncovered, so top up.
     */
    void exitedUnretired(Worker w) {
        activeSpares--;
        w.slotFree = true;
        topUp();
    }
}
