package io.github.stealpool.internal;

import io.github.stealpool.TaskTimingListener;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pool's task timing while some {@link TaskTimingListener} listens: the listeners, and a
 * {@link TaskSampler} per injection-queue stripe for outside submitters (each worker has its
 * own). Immutable but for the samplers: adding or removing a listener makes a new one
 * ({@link #with}, {@link #without}), which keeps the samplers, and {@link TimingListeners}
 * publishes it in the scheduler with a volatile store. A submitter that read the old one times
 * its task for the old listeners.
 *
 * <p>While none listens the scheduler holds null, and submitting costs one volatile read and a
 * null check more than without this class: no clock, no sampler, no object.
 */
public final class TaskTimer {

    private static final Logger LOG = LoggerFactory.getLogger(TaskTimer.class);

    private final TaskTimingListener[] listeners;
    private final TaskSampler[] stripeSamplers;

    /** A timer for {@code listener} alone, with a sampler for each of {@code stripes} stripes. */
    TaskTimer(TaskTimingListener listener, int stripes) {
        this.listeners = new TaskTimingListener[] {listener};
        this.stripeSamplers = new TaskSampler[stripes];
        long now = System.nanoTime();
        for (int i = 0; i < stripes; i++) {
            stripeSamplers[i] = new TaskSampler(now);
        }
    }

    private TaskTimer(TaskTimingListener[] listeners, TaskSampler[] stripeSamplers) {
        this.listeners = listeners;
        this.stripeSamplers = stripeSamplers;
    }

    /** This timer with {@code listener} added (a listener added twice hears each task twice). */
    TaskTimer with(TaskTimingListener listener) {
        TaskTimingListener[] more = Arrays.copyOf(listeners, listeners.length + 1);
        more[listeners.length] = listener;
        return new TaskTimer(more, stripeSamplers);
    }

    /**
     * This timer without one registration of {@code listener} (compared by identity), this
     * timer if it has none, or null if none would be left.
     */
    TaskTimer without(TaskTimingListener listener) {
        for (int i = listeners.length - 1; i >= 0; i--) {
            if (listeners[i] == listener) {
                if (listeners.length == 1) {
                    return null;
                }
                TaskTimingListener[] fewer = new TaskTimingListener[listeners.length - 1];
                System.arraycopy(listeners, 0, fewer, 0, i);
                System.arraycopy(listeners, i + 1, fewer, i, fewer.length - i);
                return new TaskTimer(fewer, stripeSamplers);
            }
        }
        return this;
    }

    /** An outside thread submits {@code task} to stripe {@code stripe}: it, or its timed wrapper. */
    Runnable forStripe(Runnable task, int stripe) {
        TaskSampler s = stripeSamplers[stripe];
        int left = s.tick();
        return left > 0 ? task : picked(task, s, left == 0);
    }

    /** A worker submits {@code task}, counted by its own {@code sampler}: it, or its timed wrapper. */
    Runnable forWorker(Runnable task, TaskSampler sampler) {
        int left = sampler.tick();
        return left > 0 ? task : picked(task, sampler, left == 0);
    }

    private Runnable picked(Runnable task, TaskSampler sampler, boolean adapt) {
        if (ForkedJob.isForkJoinPiece(task)) {
            // A fork/join piece stays itself: shutdownNow must recognise it (it cancels it
            // rather than hand it back), and a Task's future is the Task. Like forks, it is never
            // timed; the pick passes to the next submission, so mixed streams keep their rate.
            sampler.restart();
            return task;
        }
        long now = System.nanoTime();
        sampler.picked(now, ThreadLocalRandom.current().nextInt(), adapt);
        return new TimedTask(task, now, this);
    }

    /**
     * A worker, idle, is about to park; {@code own} is its sampler. A count started in a
     * faster spell must not run on into a slow one (TaskSampler): a worker parks when
     * submissions have slowed down or stopped, so its own sampler and every stripe's pick their
     * next submission, unless some worker did so less than a sample gap ago. Any park rather
     * than the last worker's: deciding which park is the last (two workers parking at once, a
     * worker blocked in a blocking call or in a long task) would take Sleep's lock, and a
     * missed restart leaves a slow submitter untimed. At most one restart per sample gap: a
     * pool whose workers park and wake thousands of times a second while a producer submits
     * fast would otherwise time one task per park, which makes tiny tasks markedly slower
     * (docs/lab/timing-cost.md); this way the restarts at most double the sample rate.
     */
    void aboutToPark(TaskSampler own) {
        if (restartDue(System.nanoTime())) {
            own.restart();
            restartStripes();
        }
    }

    /**
     * When the samplers were last restarted ({@link #restartDue}). Its own object, away from
     * the fields every submitter reads; written at most once per sample gap.
     */
    private final AtomicLong lastRestart = new AtomicLong(System.nanoTime() - TaskSampler.TARGET_GAP_NANOS);

    /**
     * A worker about to park asks whether to restart the samplers: true, and noted, if no
     * restart happened in the last sample gap. Racing askers may both be told yes: harmless.
     */
    boolean restartDue(long now) {
        if (now - lastRestart.get() < TaskSampler.TARGET_GAP_NANOS) {
            return false;
        }
        lastRestart.set(now);
        return true;
    }

    /** A worker is about to park: the next submission of every outside thread is picked (TaskSampler). */
    void restartStripes() {
        for (TaskSampler s : stripeSamplers) {
            s.restart();
        }
    }

    /**
     * A timed task ran: tells every listener. Never throws: what a listener throws, Errors
     * included, is logged (the first failure at once, then about one warning per
     * {@link #WARNING_INTERVAL_NANOS}, counted per TaskTimer: adding or removing a listener
     * starts afresh) and dropped, so the task's own outcome reaches its future or handler unchanged.
     */
    void record(long queuedNanos, long runNanos) {
        for (TaskTimingListener l : listeners) {
            try {
                l.taskTimed(queuedNanos, runNanos);
            } catch (Throwable e) {
                listenerFailed(l, e);
            }
        }
    }

    /** About one warning a minute: a listener that always throws would log every sample. */
    static final long WARNING_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final AtomicLong failures = new AtomicLong();
    private volatile long lastWarning;

    private void listenerFailed(TaskTimingListener l, Throwable e) {
        try {
            long n = failures.incrementAndGet();
            long now = System.nanoTime();
            long last = lastWarning;
            if (n == 1 || now - last >= WARNING_INTERVAL_NANOS) {
                lastWarning = now;
                LOG.warn("task timing listener {} threw ({} failures so far; at most one warning a minute);"
                        + " the task's outcome is unaffected", l, n, e);
            }
        } catch (Throwable ignored) {
            // out of memory or stack: the timing is lost, the task's outcome is not
        }
    }

    /**
     * The task as it was submitted: {@code task} itself unless it is a timed wrapper, a
     * decorated one ({@link DecoratedTask}), or a timed wrapper of a decorated one (the pool's
     * API decorates a task before the scheduler picks it for timing).
     */
    static Runnable unwrap(Runnable task) {
        return DecoratedTask.submitted(task instanceof TimedTask ? ((TimedTask) task).task : task);
    }
}
