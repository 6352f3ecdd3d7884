package io.github.stealpool.internal;

import java.util.concurrent.locks.LockSupport;

/**
 * Waiting until a pool looks quiescent ({@link Scheduler#isQuiescent}): what
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

    private Quiescence() {
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
