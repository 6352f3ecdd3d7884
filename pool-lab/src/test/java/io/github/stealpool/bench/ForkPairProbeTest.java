package io.github.stealpool.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What {@link ForkPairProbe} reports: the median of each block of rounds but the first, and a
 * report from either pool for a computation it checked. The timeout only detects a hang.
 */
@Timeout(120)
class ForkPairProbeTest {

    @Test
    void eachBlockButTheFirstGivesItsMedian() {
        long[] nanos = new long[3 * ForkPairProbe.BLOCK];
        for (int i = 0; i < nanos.length; i++) {
            nanos[i] = (i / ForkPairProbe.BLOCK + 1) * 1_000_000L; // block k takes k + 1 ms
        }
        nanos[ForkPairProbe.BLOCK] = 50_000_000L; // one slow round does not move a median
        assertArrayEquals(new double[] {2.0, 3.0}, ForkPairProbe.blockMedians(nanos), 1e-9);
    }

    @Test
    void eitherPoolRunsToItsReport() {
        String ours = ForkPairProbe.probe("stealpool", 2, 12, 2 * ForkPairProbe.BLOCK);
        assertTrue(ours.startsWith("stealpool p=2 fib(12): median "), ours);
        assertTrue(ours.contains("completed="), ours);
        String theirs = ForkPairProbe.probe("forkjoin", 2, 12, 2 * ForkPairProbe.BLOCK);
        assertTrue(theirs.startsWith("forkjoin p=2 fib(12): median "), theirs);
        assertTrue(theirs.contains("steals="), theirs);
    }

    @Test
    void badArgumentsAreRefusedByName() {
        assertThrows(IllegalArgumentException.class, () -> ForkPairProbe.probe("fixed", 2, 12, 100));
        assertThrows(IllegalArgumentException.class, () -> ForkPairProbe.probe("stealpool", 2, 12, 99));
    }
}
