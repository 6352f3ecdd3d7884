package io.github.stealpool.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What {@link RampUpProbe} counts: each thread's first task of a round once, afresh each round;
 * times since the round's start, in order; medians over all rounds, a round that never got k
 * threads counting as never; and that a probe of either pool runs to its report. The timeout
 * only detects a hang.
 */
@Timeout(120)
class RampUpProbeTest {

    @Test
    void eachThreadIsNotedOnceARoundAndAfreshTheNext() throws Exception {
        RampUpProbe.Ramp ramp = new RampUpProbe.Ramp();
        ExecutorService threads = Executors.newFixedThreadPool(3); // the same three, every round
        try {
            CyclicBarrier together = new CyclicBarrier(3); // so the three jobs hold three threads
            for (int round = 0; round < 2; round++) {
                ramp.begin(round);
                long start = System.nanoTime();
                List<Future<?>> jobs = new ArrayList<>();
                for (int i = 0; i < 3; i++) {
                    jobs.add(threads.submit(() -> {
                        together.await();
                        ramp.arrive();
                        ramp.arrive(); // a second task of the same thread: not a new arrival
                        return null;
                    }));
                }
                ramp.arrive(); // this thread too, in every round
                for (Future<?> job : jobs) {
                    job.get();
                }
                long[] until = ramp.ramp(start);
                assertEquals(4, until.length, "round " + round + ": threads noted");
                assertTrue(until[0] >= 0, "round " + round + ": times from the start: " + Arrays.toString(until));
            }
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void timesComeSinceTheStartInIncreasingOrder() {
        long[] startedAt = {1_030, 1_010, 1_020, 99};
        assertArrayEquals(new long[] {10, 20, 30}, RampUpProbe.sinceStart(startedAt, 3, 1_000));
    }

    @Test
    void aRoundThatNeverGotKThreadsCountsAsNever() {
        List<long[]> ramps = List.of(new long[] {10_000, 20_000}, new long[] {30_000}, new long[] {5_000, 6_000, 7_000});
        assertEquals("10.0 (3/3)", RampUpProbe.medianUntil(ramps, 1));
        assertEquals("20.0 (2/3)", RampUpProbe.medianUntil(ramps, 2)); // 6, 20, never
        assertEquals("- (1/3)", RampUpProbe.medianUntil(ramps, 3)); // 7, never, never
        assertEquals("- (0/3)", RampUpProbe.medianUntil(ramps, 4));
    }

    @Test
    void eachPoolRunsToItsReport() throws Exception {
        for (String pool : new String[] {"stealpool", "forkjoin"}) {
            String line = RampUpProbe.probe(pool, 3, 12, 5, 0);
            assertTrue(line.startsWith("p= 3 " + pool), line);
            String[] ks = line.replaceAll(".*until k threads:", "").replaceAll("\\|.*", "").trim()
                    .replaceAll(" \\(\\d+/5\\)", "").replaceAll(": [-0-9.]+", "").split(" ");
            assertArrayEquals(new String[] {"1", "2", "3"}, ks, line);
            assertTrue(line.matches(".*until k threads: 1: [0-9.]+ \\(5/5\\) .*"), "every round had a first thread: " + line);
            assertTrue(line.matches(".*threads a round: median [1-9]\\d*, most [1-9]\\d*.*"), line);
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
