package io.github.stealpool.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report's arithmetic and files, from made-up measurements. */
class ReportTest {

    private static Measurement m(String bench, String pool, double score, Map<String, String> more) {
        Map<String, String> params = new java.util.HashMap<>(more);
        params.put("pool", pool);
        return new Measurement(bench, params, "ms/op", score, Double.NaN, Double.NaN, Double.NaN);
    }

    @Test
    void ratiosAreTheirTimeOverOursAndFilesAreWritten(@TempDir Path dir) throws Exception {
        List<Measurement> ms = List.of(
                m("SubmitBenchmark.submitAll", "stealpool", 2.0, Map.of("producers", "1")),
                m("SubmitBenchmark.submitAll", "fixed", 16.0, Map.of("producers", "1")),
                m("SubmitBenchmark.submitAll", "forkjoin", 3.0, Map.of("producers", "1")),
                m("ScalingBenchmark.submit", "stealpool", 1.0, Map.of("scale", "10")),
                new Measurement("WakeupLatencyBenchmark.wakeUp", Map.of("pool", "stealpool"), "us/op",
                        30, 20, 90, Double.NaN),
                new Measurement("WakeupLatencyBenchmark.wakeUp", Map.of("pool", "forkjoin"), "us/op",
                        40, 40, 100, Double.NaN),
                new Measurement("IdleCostBenchmark.burstThenIdle", Map.of("pool", "stealpool"), "ms/op",
                        2000, Double.NaN, Double.NaN, 0.1),
                new Measurement("RangeBenchmark.c2", Map.of("impl", "sequential", "workload", "EXP"),
                        "ms/op", 10, Double.NaN, Double.NaN, Double.NaN),
                new Measurement("RangeBenchmark.c2", Map.of("impl", "stealpool", "workload", "EXP"),
                        "ms/op", 5, Double.NaN, Double.NaN, Double.NaN));
        Report report = new Report(ms);
        Report.Row submit = report.rows().get(0);
        assertEquals(8.0, Report.ratio(submit, "fixed"), 1e-9);
        assertEquals(1.5, Report.ratio(submit, "forkjoin"), 1e-9);
        Report.Row scaling = report.rows().get(1);
        assertEquals("ns/task", scaling.unit());
        assertEquals(1e6 / 100_000, scaling.values().get("stealpool"), 1e-9);

        String md = report.markdown("context line");
        assertTrue(md.contains("| producers=1 | 2.00 | 16.00 | 3.00 | 8.00x | 1.50x |"), md);
        assertTrue(md.contains("| p50 | 20.00 | 40.00 | 2.00x |"), md);
        assertTrue(md.contains("| workload=EXP | 10.00 | 5.00 | 2.00x |"), md);
        assertTrue(md.contains("% of a core"), md);

        Path png = dir.resolve("chart.png");
        report.chart("test", png);
        BufferedImage image = ImageIO.read(png.toFile());
        assertNotNull(image, "a decodable PNG");
        assertTrue(image.getWidth() >= 1200 && image.getHeight() == 800);
        assertTrue(Files.size(png) > 1000);
    }
}
