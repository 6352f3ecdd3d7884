package io.github.stealpool.internal;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A pool's quiescence: the count of its workers idle outside {@link Sleep}
 * ({@link #quietEnter}, {@link #quietLeave}), the check that every worker is idle and no task
 * queued ({@link #isQuiescent}, with its argument), and the waiting side. The scheduler holds one
 * ({@code Scheduler.quiescence}); it reads the scheduler's {@code liveWorkers}, Sleep's word and
 * the queues, as the check did when it was the scheduler's own.
 *
 * <p>Waiting until a pool looks quiescent ({@link Scheduler#isQuiescent}) is what
 * {@code Task.helpQuiesce()} does (on a worker through {@link Worker#helpQuiesce()}, which runs
 * tasks meanwhile; off the pool through {@link #await}, which does not) and what the common
 * pool's {@code awaitTermination} does. Nothing announces quiescence: that would cost every
 * worker a shared write each time it parks, for the sake of a rare caller. So a waiter polls,
 * backing off from spinning to yielding to parks of up to a millisecond, which bounds how late
 * it notices.
 */
public final class Quiescence {

    /** Polls with a spin-wait hint between them, for a pool about to settle. */
    static final int SPIN_ROUNDS = 32;
    /** Then polls with a {@link Thread#yield()}, which lets a worker on the same core park. */
    static final int YIELD_ROUNDS = 32;
    /** The longest park between two polls. */
    static final long MAX_PARK_NANOS = 1_000_000L;

    /**
     * Where a pause counter stops growing: from there on every pause is a park of
     * {@link #MAX_PARK_NANOS}, so a counter held here ({@link #nextRound}) never wraps to a
     * negative round, which would spin again.
     */
    static final int SATURATED_ROUND = SPIN_ROUNDS + YIELD_ROUNDS + 10;

    private final Scheduler scheduler;

    /**
     * Workers idle outside Sleep, as {@link #isQuiescent} counts them: the low 32 bits count
     * workers waiting in {@code helpQuiesce} with nothing to run, or parked in a join past the
     * help-depth bound ({@link LatchAlgorithm#parkUntilSet}); the high 32 bits count their returns to
     * work ({@link #quietLeave}), so that a second read notices one that came in between.
     */
    private final AtomicLong quietWorkers = new AtomicLong();
    private static final long QUIET_RETURN = 1L << 32;

    /** The quiescence of {@code scheduler}, made with it. */
    Quiescence(Scheduler scheduler) {
        this.scheduler = scheduler;
    }

    /** A worker becomes idle outside Sleep (see {@link #quietWorkers}). */
    void quietEnter() {
        quietWorkers.getAndIncrement();
    }

    /** A worker counted by {@link #quietEnter} returns to work: before it takes any task. */
    void quietLeave() {
        quietWorkers.getAndAdd(QUIET_RETURN - 1);
    }

    /**
     * Whether the pool looks quiescent: every live worker idle (asleep in {@link Sleep}, or
     * counted by {@link #quietEnter}: a {@code helpQuiesce} caller must count itself first)
     * and no task queued anywhere, as {@code ForkJoinPool.isQuiescent()} answers it. Sound when
     * nothing outside the pool submits or completes tasks meanwhile:
     * <ul>
     *   <li>Sleep's word is read under Sleep's lock, which a worker holds from counting itself
     *       asleep until it either blocks or backs out (its latch was set meanwhile), and under
     *       which wakers uncount whom they wake; so no worker about to go back to work is read
     *       as asleep. A worker counted idle holds no task and its pushes precede its count.</li>
     *   <li>For a task to be taken out of a queue between the first reads and the look at the
     *       queues, an idle worker must return to work: a sleeper is woken (Sleep's word
     *       changes, under the lock) or a quiet worker leaves (the high half of
     *       {@link #quietWorkers} grows, before it looks for a task). Both are read again after
     *       the look; any change answers false, and the caller asks again.</li>
     *   <li>A worker parked in a join, in Sleep or past the depth bound, counts as idle: what
     *       it waits for is queued, run by an awake worker, or done outside the pool. Whoever
     *       sets its latch uncounts it before going on (Sleep's {@code wakeWorker}, or the
     *       latch's waiter), so the setter's own next look sees it awake.</li>
     * </ul>
     */
    boolean isQuiescent() {
        // An unlocked look first, off Sleep's lock while the pool is plainly busy. It may err
        // either way for an instant (a worker moving between the quiet count and Sleep); an
        // idle answer is checked by the locked reads below, a busy one makes the caller ask
        // again.
        Scheduler s = scheduler;
        if (s.liveWorkers - s.sleep.sleepingWorkers() - (int) quietWorkers.get() > 0) {
            return false;
        }
        long quiet = quietWorkers.get();
        long ctl = s.sleep.readUnderLock();
        int idle = Sleep.sleepingIn(ctl) + (int) quiet;
        if (s.liveWorkers - idle > 0 || s.hasQueuedWork()) {
            return false;
        }
        return s.sleep.readUnderLock() == ctl && quietWorkers.get() == quiet;
    }

    /** The round after {@code round}, held at {@link #SATURATED_ROUND}: a wait may last weeks. */
    static int nextRound(int round) {
        return round < SATURATED_ROUND ? round + 1 : SATURATED_ROUND;
    }

    /**
     * One pause between two polls, the {@code round}-th in a row without progress: a spin-wait
     * hint, then a yield, then a park growing from a microsecond to {@link #MAX_PARK_NANOS}.
     *
     * @return true if the thread was interrupted: the status is cleared so that the next park
     *         waits, and the caller restores it (or throws) when it stops waiting
     */
    static boolean pause(int round) {
        if (round < SPIN_ROUNDS) {
            Thread.onSpinWait();
            return false;
        }
        if (round < SPIN_ROUNDS + YIELD_ROUNDS) {
            Thread.yield();
            return false;
        }
        int doublings = Math.min(10, round - SPIN_ROUNDS - YIELD_ROUNDS);
        LockSupport.parkNanos(Math.min(MAX_PARK_NANOS, 1_000L << doublings));
        return Thread.interrupted();
    }

    /**
     * Waits, without running tasks, until {@code scheduler} looks quiescent to a thread that is
     * none of its workers, or the timeout passes.
     *
     * @param scheduler     the pool to watch; the calling thread must not be one of its workers
     *                      (it would wait for itself)
     * @param nanos         the longest wait; negative for no limit
     * @param interruptible whether an interrupt ends the wait with InterruptedException; if
     *                      not, the wait goes on and the interrupt status is restored at the end
     * @return true if the pool looked quiescent, false if the time ran out first
     * @throws InterruptedException if {@code interruptible} and the thread is interrupted
     */
    public static boolean await(Scheduler scheduler, long nanos, boolean interruptible)
            throws InterruptedException {
        long deadline = System.nanoTime() + nanos;
        Worker.publishForksOfCurrent(); // a worker of another pool waits here running no task
        boolean interrupted = false;
        try {
            for (int round = 0; ; round = nextRound(round)) {
                if (scheduler.isQuiescent()) {
                    return true;
                }
                if (nanos >= 0 && deadline - System.nanoTime() <= 0L) {
                    return false;
                }
                if (interruptible && Thread.interrupted()) {
                    throw new InterruptedException();
                }
                if (pause(round)) {
                    if (interruptible) {
                        throw new InterruptedException();
                    }
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
