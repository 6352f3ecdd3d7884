package io.github.stealpool.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link TaskSampler}'s policy, driven with a made-up clock: about one pick per
 * {@link TaskSampler#TARGET_GAP_NANOS} of submitting, every submission when they come slower,
 * the first after a quiet spell, and countdowns of the right mean.
 */
class TaskSamplerTest {

    private static final long GAP = TaskSampler.TARGET_GAP_NANOS;

    private final Random random = new Random(42);
    private long now = 1_000_000_000L;

    /** One submission {@code nanos} after the previous one; true if it was picked. */
    private boolean submit(TaskSampler s, long nanos) {
        now += nanos;
        int left = s.tick();
        if (left <= 0) {
            s.picked(now, random.nextInt(), left == 0);
            return true;
        }
        return false;
    }

    @Test
    void theFirstSubmissionIsPicked() {
        TaskSampler s = new TaskSampler(now);
        assertTrue(submit(s, 1));
    }

    @Test
    void submissionsSlowerThanTheGapAreAllPicked() {
        TaskSampler s = new TaskSampler(now);
        for (int i = 0; i < 1000; i++) {
            assertTrue(submit(s, GAP + i), "submission " + i);
        }
        assertEquals(1, s.stride());
    }

    @Test
    void aSteadyStreamIsPickedAboutOncePerGap() {
        TaskSampler s = new TaskSampler(now);
        long every = 10; // ns between submissions
        int submissions = 20_000_000;
        int picks = 0;
        for (int i = 0; i < submissions; i++) {
            if (submit(s, every)) {
                picks++;
            }
        }
        // The stride settles at GAP / every, and picks come one per GAP of submitting on average.
        assertEquals(GAP / every, s.stride());
        double expected = (double) submissions * every / GAP; // 4,000
        assertTrue(Math.abs(picks - expected) < 0.1 * expected, "picks " + picks + ", expected about " + expected);
    }

    @Test
    void theStrideAtMostDoublesPerPickAndStopsAtItsMaximum() {
        TaskSampler s = new TaskSampler(now);
        int previous = s.stride();
        for (int i = 0; i < 100_000_000 && s.stride() < TaskSampler.MAX_STRIDE; i++) {
            if (submit(s, 0)) { // a clock that does not move: as fast as it gets
                assertTrue(s.stride() <= 2 * previous, s.stride() + " after " + previous);
                previous = s.stride();
            }
        }
        assertEquals(TaskSampler.MAX_STRIDE, s.stride());
        for (int i = 0; i < 3 * TaskSampler.MAX_STRIDE; i++) {
            submit(s, 0);
        }
        assertEquals(TaskSampler.MAX_STRIDE, s.stride());
    }

    @Test
    void aBurstAfterAQuietSpellIsTimedFromItsFirstTasks() {
        TaskSampler s = new TaskSampler(now);
        for (int i = 0; i < 1_000_000; i++) {
            submit(s, 10);
        }
        assertEquals(GAP / 10, s.stride());
        // A second of silence: the next pick (at most 2 strides away) drops the stride to 1,
        // and the submission after it is picked too.
        now += 1_000_000_000L;
        int ticks = 0;
        while (!submit(s, 10)) {
            ticks++;
        }
        assertTrue(ticks < 2 * GAP / 10, "ticks " + ticks);
        assertEquals(1, s.stride());
        assertTrue(submit(s, 10));
    }

    @Test
    void aRestartPicksTheNextSubmissionAndMeasuresOnlyWhatWasCounted() {
        TaskSampler s = new TaskSampler(now);
        for (int i = 0; i < 1_000_000; i++) {
            submit(s, 10);
        }
        assertEquals(GAP / 10, s.stride());
        // Still fast: the restart costs one early pick, and the stride stays (the pick divides
        // the time since the last pick by the submissions really counted since).
        s.restart();
        assertTrue(submit(s, 10));
        assertTrue(s.stride() >= GAP / 10 / 2 && s.stride() <= 2 * GAP / 10, "stride " + s.stride());
        // Idle, then slow: the pool's restart when it went idle makes the first slow one a pick,
        // which drops the stride to 1, and every slow one after it is picked too.
        for (int i = 0; i < 100_000; i++) {
            submit(s, 10);
        }
        s.restart();
        now += 200_000_000L;
        for (int i = 0; i < 20; i++) {
            assertTrue(submit(s, 2 * GAP), "slow submission " + i);
        }
        assertEquals(1, s.stride());
    }

    /**
     * Two submitters of one stripe may both see the count at or below zero: each is picked, but
     * only the one that took it to exactly zero sets the stride, so the straggler's near-zero gap
     * does not double it.
     */
    @Test
    void aStragglersPickLeavesTheStrideAlone() {
        TaskSampler s = new TaskSampler(now);
        for (int i = 0; i < 1_000_000; i++) {
            submit(s, 10);
        }
        int stride = s.stride();
        while (s.countdown() > 1) {
            submit(s, 10);
        }
        assertEquals(0, s.tick()); // the first submitter's decrement: a pick that adapts
        assertEquals(-1, s.tick()); // the second's, before the first could set the next count
        now += 10;
        s.picked(now, random.nextInt(), true);
        now += 1;
        s.picked(now, random.nextInt(), false); // the straggler, an instant later
        assertEquals(stride, s.stride());
        assertTrue(s.countdown() >= 1);
    }

    @Test
    void countdownsAreDrawnWithTheStrideAsTheirMean() {
        TaskSampler s = new TaskSampler(now);
        long every = 100; // stride GAP / 100 = 500
        for (int i = 0; i < 100_000; i++) {
            submit(s, every);
        }
        int stride = s.stride();
        assertEquals(500, stride);
        long sum = 0;
        int picks = 0;
        boolean allSame = true;
        int first = -1;
        while (picks < 2000) {
            now += every;
            if (s.tick() == 0) {
                s.picked(now, random.nextInt(), true);
                int next = s.countdown();
                assertTrue(next >= 1 && next <= 2 * stride - 1, "countdown " + next);
                sum += next;
                allSame &= first == -1 || next == first;
                first = next;
                picks++;
            }
        }
        double mean = (double) sum / picks;
        assertTrue(Math.abs(mean - stride) < 0.05 * stride, "mean countdown " + mean);
        assertFalse(allSame, "countdowns are drawn, not fixed");
    }
}
