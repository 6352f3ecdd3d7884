package io.github.stealpool.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CyclicBarrier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What {@link RampUpProbe} counts: each thread's first task of a round once, and medians over
 * the rounds that got k threads; and that a probe of either pool runs to its report. The
 * timeout only detects a hang.
 */
@Timeout(120)
class RampUpProbeTest {

    @Test
    void eachThreadIsNotedOnceARound() throws Exception {
        RampUpProbe.Ramp ramp = new RampUpProbe.Ramp();
        CyclicBarrier together = new CyclicBarrier(3);
        for (int round = 0; round < 2; round++) {
            ramp.begin(round);
            long start = System.nanoTime();
            Thread[] threads = new Thread[3];
            for (int i = 0; i < threads.length; i++) {
                threads[i] = new Thread(() -> {
                    try {
                        together.await();
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                    ramp.arrive();
                    ramp.arrive(); // a second task of the same thread: not a new arrival
                });
                threads[i].start();
            }
            ramp.arrive(); // this thread too, in every round
            for (Thread t : threads) {
                t.join();
            }
            long[] until = ramp.ramp(start);
            assertEquals(4, until.length, "round " + round + ": threads noted");
            for (int k = 0; k < until.length; k++) {
                assertTrue(until[k] >= 0 && (k == 0 || until[k] >= until[k - 1]),
                        "round " + round + ": times from the start, in order: " + java.util.Arrays.toString(until));
            }
        }
    }

    @Test
    void mediansCountOnlyTheRoundsThatGotThatManyThreads() {
        List<long[]> ramps = List.of(new long[] {10_000, 20_000}, new long[] {30_000}, new long[] {5_000, 6_000, 7_000});
        assertEquals("10.0 (100%)", RampUpProbe.medianUntil(ramps, 1));
        assertEquals("20.0 (66%)", RampUpProbe.medianUntil(ramps, 2));
        assertEquals("7.0 (33%)", RampUpProbe.medianUntil(ramps, 3));
        assertEquals("- (0%)", RampUpProbe.medianUntil(ramps, 4));
    }

    @Test
    void eachPoolRunsToItsReport() throws Exception {
        for (String pool : new String[] {"stealpool", "forkjoin"}) {
            String line = RampUpProbe.probe(pool, 3, 12, 5, 0);
            assertTrue(line.startsWith("p= 3 " + pool), line);
            String[] ks = line.replaceAll(".*until k threads:", "").replaceAll("\\|.*", "").trim()
                    .replaceAll(" \\(\\d+%\\)", "").replaceAll(": [-0-9.]+", "").split(" ");
            assertArrayEquals(new String[] {"1", "2", "3"}, ks, line);
            assertTrue(line.contains(" 1: ") && line.contains("(100%)"), "every round had a first thread: " + line);
            assertEquals("stealpool".equals(pool), line.contains("parks"), line);
        }
    }

    @Test
    void aFixedThreadPoolIsRefusedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> RampUpProbe.probe("fixed", 2, 10, 1, 0));
        assertTrue(e.getMessage().contains("pool=fixed"), e.getMessage());
    }
}
