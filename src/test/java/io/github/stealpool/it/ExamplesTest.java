package io.github.stealpool.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.stealpool.Task;
import io.github.stealpool.WorkStealingPool;
import io.github.stealpool.examples.ForkJoinDemo;
import io.github.stealpool.examples.MandelbrotDemo;
import io.github.stealpool.examples.MetricsDemo;
import io.github.stealpool.examples.RequestService;
import io.github.stealpool.examples.TriangularMatrixDemo;
import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every example end to end with small inputs, so the README cannot drift from the code. */
class ExamplesTest {

    /** The metrics demo takes "--port N" as well as "--port=N" (the first failed before). */
    @Test
    void theMetricsDemoTakesOptionsWithOrWithoutEquals() throws Exception {
        java.io.PrintStream stdout = System.out;
        java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
        System.setOut(new java.io.PrintStream(printed, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            MetricsDemo.main(new String[] {"--port", "0", "--seconds=1", "--host", "127.0.0.1"});
        } finally {
            System.setOut(stdout);
        }
        String text = printed.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(text.startsWith("Serving http://127.0.0.1:") && text.contains("/metrics for 1 s"), text);
        IllegalArgumentException noValue = assertThrows(IllegalArgumentException.class,
                () -> MetricsDemo.main(new String[] {"--port"}));
        assertTrue(noValue.getMessage().contains("--port needs a value"), noValue.getMessage());
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> MetricsDemo.main(new String[] {"--bogus", "1"}));
        assertTrue(unknown.getMessage().contains("unknown option --bogus"), unknown.getMessage());
    }

    @Test
    void theRequestServiceGivesTheSameAnswersOnBothPools() throws Exception {
        List<RequestService.Request> requests = RequestService.sampleRequests(2_000);
        List<RequestService.Quote> fixed;
        try (RequestService service = RequestService.create(2, false)) {
            fixed = service.handleAll(requests);
        }
        try (RequestService service = RequestService.create(2, true)) {
            assertEquals(fixed, service.handleAll(requests));
            assertEquals(fixed.get(7), service.submit(requests.get(7)).get(30, TimeUnit.SECONDS));
        }
        assertEquals(2_000, fixed.size());
    }

    @Test
    void forkJoinDemosComputeTheSequentialAnswers() {
        long expected = ForkJoinDemo.fibSequential(24);
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build()) {
            assertEquals(expected, pool.invoke(new ForkJoinDemo.Fib(24)));
            assertEquals(expected, (long) pool.invoke(new Task<Long>() {
                @Override
                protected Long compute() {
                    return ForkJoinDemo.fibJoin(pool, 24);
                }
            }));
            int[] a = new Random(3).ints(100_000).toArray();
            int[] sorted = a.clone();
            java.util.Arrays.sort(sorted);
            ForkJoinDemo.mergeSort(pool, a);
            assertArrayEquals(sorted, a);
        }
        ForkJoinPool fjp = new ForkJoinPool(2);
        try {
            assertEquals(expected, fjp.invoke(new ForkJoinDemo.FjFib(24)));
        } finally {
            fjp.shutdown();
        }
    }

    @Test
    void mandelbrotMatchesTheSequentialImageAndWritesADecodablePng(@TempDir Path dir) throws Exception {
        int w = 160;
        int h = 120;
        int[] expected = MandelbrotDemo.renderSequential(w, h);
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build()) {
            assertArrayEquals(expected, MandelbrotDemo.render(pool, w, h));
        }
        assertArrayEquals(expected, MandelbrotDemo.renderParallelStream(w, h));
        Path png = dir.resolve("m.png");
        MandelbrotDemo.writePng(expected, w, h, png);
        BufferedImage image = ImageIO.read(png.toFile());
        assertNotNull(image);
        assertEquals(w, image.getWidth());
        assertEquals(h, image.getHeight());
        assertEquals(0, image.getRGB(w * 3 / 4 - 30, h / 2) & 0xFFFFFF, "a point of the set is black");
    }

    @Test
    void triangularMultiplyMatchesTheSequentialProduct() {
        int n = 90;
        double[][] in = TriangularMatrixDemo.inputs(n);
        double[] expected = TriangularMatrixDemo.multiplySequential(in[0], in[1], n);
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).loopBatch(1, 4).build()) {
            assertArrayEquals(expected, TriangularMatrixDemo.multiply(pool, in[0], in[1], n));
        }
        assertArrayEquals(expected, TriangularMatrixDemo.multiplyParallelStream(in[0], in[1], n));
        assertTrue(expected[n * n - 1] != 0);
    }
}
