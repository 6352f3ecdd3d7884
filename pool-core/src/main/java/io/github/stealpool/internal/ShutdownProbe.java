package io.github.stealpool.internal;

/**
 * Test seam for the shutdown protocol: called at the two points where {@code shutdownNow} and a
 * worker on its way out meet, so that a test can hold either thread there and force the
 * interleaving that once lost tasks (a worker's exit overlapping {@code shutdownNow}'s sweep).
 * The pool's own probe does nothing; only tests in this package install another, before
 * {@link Scheduler#start()}. No point is on a task's path but the timer's: once per batch it
 * hands over, and once per stripe of the inbox it takes in. The timer thread's points let a
 * test fail it ({@code DelayScheduler}, rule 6), also mid-batch, hold it as it lets go of the
 * pool, or keep its inbox from ever being empty.
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

    /** The timer thread, at the top of each turn of its loop (holding no lock). */
    default void timerTurn() {
    }

    /**
     * The timer thread, after it took in one stripe of its inbox (holding no lock); once per
     * stripe taken ({@code DelayScheduler}, "A storm of offers").
     */
    default void timerTookIn() {
    }

    /**
     * The timer thread, after it polled the first due entry of a batch, before it hands the
     * batch over (holding no lock); once per batch ({@code DelayScheduler}, "Handing over in
     * batches").
     */
    default void timerBatchBegun() {
    }

    /** The timer thread, about to let go of the pool ({@code tryFinish}), before taking the lock. */
    default void timerLettingGo() {
    }
}
