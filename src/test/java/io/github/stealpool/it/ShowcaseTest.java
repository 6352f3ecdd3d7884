package io.github.stealpool.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.stealpool.examples.Showcase;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The README's demo command runs this: it must work, end to end, with small inputs. */
class ShowcaseTest {

    /** A verdict: a ratio with its direction, or "level", and the quartiles of the ratio. */
    private static final String VERDICT =
            "(\\d+\\.\\d\\dx (faster|slower) than|level with) \\(\\d+\\.\\d\\d-\\d+\\.\\d\\dx, \\d+ rounds\\)";

    @Test
    void theShowcaseComparesThePools() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        double[][] medians;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            medians = Showcase.run(out, 20_000, 1);
        }
        String text = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("stealpool WorkStealingPool"), text);
        assertTrue(text.contains("Executors.newFixedThreadPool"), text);
        assertTrue(text.contains("ForkJoinPool"), text);
        assertTrue(text.contains("-> stealpool is"), text);
        for (String demo : new String[] {"[1/4] RequestService", "[2/4] fork/join fib", "[3/4] Mandelbrot",
                "[4/4] triangular matrix product"}) {
            assertTrue(text.contains(demo), demo + " missing:\n" + text);
        }
        assertEquals(4, text.split(" \\(same answer all three ways\\)", -1).length - 1, text);
        assertEquals(4, count(text, "stealpool is " + VERDICT + " sequential, " + VERDICT + " "), text);
        // Each demo's own counters, taken when every submitted task had completed.
        assertEquals(4, count(text, "the pool, timed runs only: ([\\d,]+) tasks completed of \\1 submitted"), text);
        assertEquals(2, medians.length);
        for (double[] workload : medians) {
            for (double nanos : workload) {
                assertTrue(nanos > 0, text);
            }
        }
    }

    private static int count(String text, String regex) {
        return (int) java.util.regex.Pattern.compile(regex).matcher(text).results().count();
    }

    @Test
    void badArgumentsAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> Showcase.main(new String[] {"--bogus"}));
        assertThrows(IllegalArgumentException.class, () -> Showcase.main(new String[] {"--tasks=1"}));
    }

    @Test
    void aVerdictNeedsTheMiddleHalfOfTheRoundsToAgree() {
        double[] ours = {10, 10, 10, 10, 10};
        assertEquals("2.00x faster than (2.00-2.00x, 5 rounds)",
                Showcase.verdict(new double[] {20, 20, 20, 20, 20}, ours));
        assertEquals("2.00x slower than (0.50-0.50x, 5 rounds)",
                Showcase.verdict(new double[] {5, 5, 5, 5, 5}, ours));
        // Ahead in three rounds of five, behind in two: the quartiles straddle 1, so "level".
        assertEquals("level with (0.90-1.20x, 5 rounds)",
                Showcase.verdict(new double[] {9, 8, 12, 13, 12}, ours));
        double[] q = Showcase.quartiles(new double[] {4, 1, 3, 2, 5});
        assertEquals(2.0, q[0]);
        assertEquals(3.0, q[1]);
        assertEquals(4.0, q[2]);
    }
}
