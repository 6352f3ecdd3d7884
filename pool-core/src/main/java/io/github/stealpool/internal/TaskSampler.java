package io.github.stealpool.internal;

import io.github.stealpool.TaskTimingListener;
import java.util.concurrent.TimeUnit;

/**
 * Picks which submissions of one submitting thread (a worker, or an injection-queue stripe)
 * are timed: about one every {@link #TARGET_GAP_NANOS} while tasks come faster than that, every
 * one when they come slower ({@link TaskTimingListener}, "How many").
 *
 * <h2>How</h2>
 * A countdown per submission ({@link #tick()}: one decrement of a field only this sampler's
 * submitters write, no clock). When it runs out the task is picked; the caller reads the clock
 * (which the timed task needs anyway as its submission time) and {@link #picked} sets the next
 * countdown from how long the last one took: {@code stride}, the wanted number of submissions
 * per target gap, is the target gap over the time per submission just measured, at most twice
 * the previous stride (one slow spell does not swing it far) and at least 1 (a burst after a
 * quiet spell is timed from its first task). The next countdown is drawn at random with mean
 * {@code stride}, so a workload with a period cannot alias with the sample. Reading the clock
 * on every submission instead would cost as much as a tiny task (about 25 ns).
 *
 * <h2>Threads</h2>
 * Plain fields. A worker's sampler has one writer, its owner. A stripe's is written by every
 * outside thread that submits to that stripe, without synchronization: a lost or doubled
 * decrement only moves the next pick by a task, and fields read torn or stale only give one
 * countdown a wrong length, which the next pick corrects. Nothing else depends on them.
 * The fields sit on cache lines of their own (padding by inheritance, as in InjectionQueue):
 * they are written on every submission, and nothing else may share their line.
 */
public final class TaskSampler extends TaskSamplerFields {

    /** The wanted time between two picks: {@link TaskTimingListener#SAMPLE_GAP_MICROS}. */
    static final long TARGET_GAP_NANOS = TimeUnit.MICROSECONDS.toNanos(TaskTimingListener.SAMPLE_GAP_MICROS);

    /** Largest stride: one pick per million submissions (a 50 ns task is picked every 1,000). */
    static final int MAX_STRIDE = 1 << 20;

    long p10, p11, p12, p13, p14, p15, p16, p17;

    /**
     * @param now {@code System.nanoTime()} now: the first submission is picked, as one after a
     *            quiet spell
     */
    public TaskSampler(long now) {
        countdown = 1;
        counted = 1;
        stride = 1;
        lastPick = now - TARGET_GAP_NANOS;
    }

    /** Counts one submission: true if it is to be timed, and then {@link #picked} must follow. */
    public boolean tick() {
        return --countdown <= 0;
    }

    /**
     * The submission {@link #tick()} picked was stamped at {@code now}; sets the next countdown.
     *
     * @param now    {@code System.nanoTime()} at the pick
     * @param random a uniformly drawn non-negative int, for the next countdown's length
     */
    public void picked(long now, int random) {
        long gap = now - lastPick;
        lastPick = now;
        long doubled = Math.min(2L * stride, MAX_STRIDE);
        long want = gap <= 0 ? doubled : TARGET_GAP_NANOS * Math.max(counted, 1) / gap;
        int s = (int) Math.max(1, Math.min(want, doubled));
        stride = s;
        // Uniform in [1, 2s - 1]: mean s.
        int next = s == 1 ? 1 : 1 + (random & Integer.MAX_VALUE) % (2 * s - 1);
        counted = next;
        countdown = next;
    }

    /** The current stride (tests). */
    int stride() {
        return stride;
    }

    /** Submissions left before the next pick (tests). */
    int countdown() {
        return countdown;
    }
}

abstract class TaskSamplerPad0 {
    long p00, p01, p02, p03, p04, p05, p06, p07;
}

abstract class TaskSamplerFields extends TaskSamplerPad0 {
    /** Submissions left before the next pick; written on every submission. */
    int countdown;
    /** The length the current countdown started with. */
    int counted;
    /** Wanted submissions per target gap. */
    int stride;
    /** {@code System.nanoTime()} at the last pick. */
    long lastPick;
}
