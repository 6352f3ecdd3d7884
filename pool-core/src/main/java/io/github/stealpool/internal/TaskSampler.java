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
 * per target gap, is the target gap over the time per submission just measured, at least 1
 * (submissions slower than the gap are all picked) and at most twice the previous stride (a
 * brief fast spell does not leave a long countdown behind). The next countdown is drawn at
 * random with mean {@code stride}, so a workload with a period cannot alias with the sample.
 * Reading the clock on every submission instead would cost as much as a tiny task
 * (docs/lab/timing-cost.md).
 *
 * <p>A countdown started in a fast spell runs on in a slow one: at most {@code 2 * stride - 1}
 * submissions until the next pick. So the pool cuts it short ({@link #restart()}) whenever a
 * worker is about to park, which is when submissions have slowed down or stopped: the next
 * submission is picked, and the stride set from the time since the last pick.
 *
 * <h2>Threads</h2>
 * Plain fields. A worker's sampler has one writer, its owner (and {@link #restart()} from the
 * thread that turns timing on). A stripe's sampler is restarted by any worker about to park. A stripe's is written
 * by every outside thread that submits to that stripe, without synchronization: a lost or
 * doubled decrement only moves the next pick by a task, and fields read torn or stale only give
 * one countdown a wrong length, which the next pick corrects. Two submitters may both see the
 * count at or below zero (the second decrement landing before the first one's pick wrote the
 * next count, or after it, leaving it below zero): every submission that sees it there is
 * picked, so it never stays below zero, but only the one that took it to exactly zero adapts
 * the stride ({@code adapt}), and only if no other thread set a new count meanwhile; a
 * straggler's gap, measured from a pick an instant before, would double the stride for nothing.
 * (Two decrements from 1 that both write 0 both adapt: the stride doubles once, and the next
 * pick corrects it.) Nothing else depends on these fields.
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

    /**
     * Counts one submission: if the result is 0 or less it is picked, and {@link #picked} must
     * follow, with {@code adapt} true only for 0.
     */
    public int tick() {
        return --countdown;
    }

    /**
     * Picks the next submission, as if the countdown had been set to end there: the pick then
     * measures the time per submission over the submissions really counted since the last one.
     */
    public void restart() {
        int done = counted - countdown; // submissions counted since the last pick
        counted = Math.max(done, 0) + 1;
        countdown = 1;
    }

    /**
     * The submission {@link #tick()} picked was stamped at {@code now}; sets the next countdown.
     *
     * @param now    {@code System.nanoTime()} at the pick
     * @param random a uniformly drawn int, for the next countdown's length
     * @param adapt  whether to set the stride from the time since the last pick: the pick that
     *               took the count to exactly zero, not a straggler (see "Threads")
     */
    public void picked(long now, int random, boolean adapt) {
        int s = stride;
        // A count already set again (a racing pick, a restart) means this pick's gap is not the
        // time since the count it ended began.
        if (adapt && countdown <= 0) {
            long gap = now - lastPick;
            lastPick = now;
            long doubled = Math.min(2L * s, MAX_STRIDE);
            long want = gap <= 0 ? doubled : TARGET_GAP_NANOS * Math.max(counted, 1) / gap;
            s = (int) Math.max(1, Math.min(want, doubled));
            stride = s;
        }
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
