package io.github.stealpool.internal;

/**
 * A piece of fork/join work (a forked task, the second half of a join, a scope's spawned task)
 * that someone inside the pool waits for. {@code shutdownNow} does not hand these back to its
 * caller, who never submitted them; it abandons them, which must release their waiters.
 * {@code Task} is such a piece too, but does not implement this interface: see
 * {@link #isForkJoinPiece}.
 */
public interface ForkedJob extends Runnable {

    /** The pool will never run this job: fail it so that whoever waits for it stops waiting. */
    void abandon();

    /**
     * True if {@code job} is a fork/join piece: a ForkedJob, or a {@code Task}, which is one
     * without implementing this interface (its {@code abandon()} would be public API), and
     * which this package recognises through the accessor Task registered
     * ({@link TaskSecrets}). Task exactly, not any latch: a latch-based wrapper of a submitted
     * task, should one ever exist, must be returned by shutdownNow, not cancelled.
     */
    static boolean isForkJoinPiece(Runnable job) {
        return job instanceof ForkedJob || TaskSecrets.isTask(job);
    }

    /** Abandons {@code job}, a fork/join piece (see {@link #isForkJoinPiece}). */
    static void abandonPiece(Runnable job) {
        if (job instanceof ForkedJob) {
            ((ForkedJob) job).abandon();
        } else {
            TaskSecrets.task().tryCancel(job); // a Task: cancelled, as its cancel(false) does
        }
    }
}
