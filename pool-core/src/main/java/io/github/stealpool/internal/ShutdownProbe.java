package io.github.stealpool.internal;

/**
 * Test seam for the shutdown protocol: called at the two points where {@code shutdownNow} and a
 * worker on its way out meet, so that a test can hold either thread there and force the
 * interleaving that once lost tasks (a worker's exit overlapping {@code shutdownNow}'s sweep).
 * The pool's own probe does nothing; only tests in this package install another, before
 * {@link Scheduler#start()}. Neither point is on a task's path.
 */
interface ShutdownProbe {

    ShutdownProbe NONE = new ShutdownProbe() {
    };

    /** In {@code shutdownNow}, under the pool's lock, after STOP is published, before the sweep. */
    default void stopPublished() {
    }

    /** A worker saw STOP at the top of its loop and is about to exit (holding no lock). */
    default void workerExitingAfterStop(Worker w) {
    }
}
