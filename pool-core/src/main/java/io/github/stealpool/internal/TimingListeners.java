package io.github.stealpool.internal;

import io.github.stealpool.TaskTimingListener;

/**
 * Adds and removes a scheduler's {@link TaskTimingListener}s: each change replaces the
 * scheduler's {@link TaskTimer} ({@code Scheduler.taskTimer}, null while none listens) with a
 * volatile store, under one lock, so that concurrent changes lose none. Submitters never come
 * here: they read {@code taskTimer} alone, and one that read the old timer times its task for
 * the old listeners.
 */
final class TimingListeners {

    private final Scheduler scheduler;
    private final Object timingLock = new Object();

    /** The listeners of {@code scheduler}, made with it. */
    TimingListeners(Scheduler scheduler) {
        this.scheduler = scheduler;
    }

    /** Starts timing a sample of submitted tasks for {@code listener} (see TaskTimingListener). */
    void add(TaskTimingListener listener) {
        Scheduler s = scheduler;
        synchronized (timingLock) {
            TaskTimer t = s.taskTimer;
            if (t == null) {
                // Counts left from an earlier spell of timing would delay the first picks.
                for (int i = 0, n = s.slots(); i < n; i++) {
                    s.workers[i].submitSampler.restart();
                }
                s.taskTimer = new TaskTimer(listener, s.injection.stripes());
            } else {
                s.taskTimer = t.with(listener);
            }
        }
    }

    /** Stops telling {@code listener}; true if it was listening. Timing stops with the last one. */
    boolean remove(TaskTimingListener listener) {
        Scheduler s = scheduler;
        synchronized (timingLock) {
            TaskTimer t = s.taskTimer;
            TaskTimer after = t == null ? null : t.without(listener);
            if (after == t) {
                return false;
            }
            s.taskTimer = after;
            return true;
        }
    }
}
