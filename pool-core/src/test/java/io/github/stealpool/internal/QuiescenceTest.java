package io.github.stealpool.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The pause counters of quiescence waits never wrap, however long the wait. */
class QuiescenceTest {

    @Test
    void aPauseCounterStopsGrowingOnceEveryPauseIsALongPark() {
        int round = 0;
        for (int i = 0; i < 1_000; i++) {
            round = Quiescence.nextRound(round);
        }
        assertEquals(Quiescence.SATURATED_ROUND, round);
        // Past it, the counter stays put: a plain increment from Integer.MAX_VALUE would give a
        // negative round, which pause() takes for a spin and a fresh poll every turn.
        assertEquals(Quiescence.SATURATED_ROUND, Quiescence.nextRound(Quiescence.SATURATED_ROUND));
        assertEquals(Quiescence.SATURATED_ROUND, Quiescence.nextRound(Integer.MAX_VALUE));
        // The saturated round parks as long as pauses ever do (10 doublings of a microsecond).
        assertTrue(Quiescence.SATURATED_ROUND - Quiescence.SPIN_ROUNDS - Quiescence.YIELD_ROUNDS >= 10);
    }
}
