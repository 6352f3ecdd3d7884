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

    private static Measurement p(String bench, String pool, int parallelism, String unit, double score) {
        return new Measurement(bench, Map.of("pool", pool, "parallelism", Integer.toString(parallelism)),
                unit, score, Double.NaN, Double.NaN, Double.NaN);
    }

    @Test
    void parallelismTableHasARowPerWorkloadAndParallelismWithRatiosToOurs(@TempDir Path dir) throws Exception {
        String one = "ParallelismBenchmark.submitOneProducer";
        String perWorker = "ParallelismBenchmark.submitProducerPerWorker";
        String fib = "ParallelismFibBenchmark.fib";
        // JMH's order, not the table's: fib first, parallelism 16 before 2.
        List<Measurement> ms = List.of(
                p(fib, "forkjoin", 16, "ms/op", 6.0),
                p(fib, "stealpool", 16, "ms/op", 4.0),
                p(fib, "stealpool", 2, "us/op", 2000.0),
                p(fib, "forkjoin", 2, "us/op", 3000.0),
                p(one, "stealpool", 16, "ms/op", 10.0),
                p(one, "forkjoin", 16, "ms/op", 15.0),
                p(one, "fixed", 16, "ms/op", 40.0),
                p(one, "stealpool", 2, "ms/op", 5.0),
                p(one, "forkjoin", 2, "ms/op", 5.0),
                p(one, "fixed", 2, "ms/op", 20.0),
                p(perWorker, "stealpool", 2, "ms/op", 4.0),
                p(perWorker, "fixed", 2, "ms/op", 2.0),
                m("SubmitBenchmark.submitAll", "stealpool", 2.0, Map.of("producers", "1")));
        ParallelismReport report = new ParallelismReport(ms, 2);

        List<ParallelismReport.Point> points = report.points();
        assertEquals(5, points.size(), "one row per workload and parallelism, nothing else");
        assertEquals(List.of("submit, 1 producer 2", "submit, 1 producer 16", "submit, 1 producer per worker 2",
                        "fib(25), no cutoff 2", "fib(25), no cutoff 16"),
                points.stream().map(x -> x.workload().label + " " + x.parallelism()).toList());
        assertEquals(4.0, ParallelismReport.ratio(points.get(1), "fixed"), 1e-9);
        assertEquals(1.5, ParallelismReport.ratio(points.get(1), "forkjoin"), 1e-9);
        assertEquals(0.5, ParallelismReport.ratio(points.get(2), "fixed"), 1e-9, "below 1: the other is faster");
        assertTrue(Double.isNaN(ParallelismReport.ratio(points.get(2), "forkjoin")), "forkjoin did not run");
        assertEquals(1.5, ParallelismReport.ratio(points.get(3), "forkjoin"), 1e-9, "us/op read as ms");
        assertEquals(2.0, points.get(3).millis().get("stealpool"), 1e-9);
        assertEquals(ParallelismFibBenchmark.TASKS / 2000.0, points.get(3).throughput("stealpool"), 1e-9,
                "tasks per microsecond");
        assertEquals(100_000 / 5000.0, points.get(0).throughput("stealpool"), 1e-9);

        String md = report.markdown("Machine: 2 cores. JDK 17. Date 2026-01-01.");
        assertTrue(md.contains("Machine: 2 cores. JDK 17. Date 2026-01-01."), md);
        assertTrue(md.contains("| workload | parallelism | stealpool | forkjoin | fixed "
                + "| forkjoin/stealpool | fixed/stealpool |"), md);
        assertTrue(md.contains("| submit, 1 producer | 2 | 5.00 | 5.00 | 20.00 | 1.00x | 4.00x |"), md);
        assertTrue(md.contains("| submit, 1 producer | 16 (oversubscribed) | 10.00 | 15.00 | 40.00 | 1.50x | 4.00x |"), md);
        assertTrue(md.contains("| submit, 1 producer per worker | 2 | 4.00 | | 2.00 | | 0.50x |"), md);
        assertTrue(md.contains("| fib(25), no cutoff | 2 | 2.00 | 3.00 | | 1.50x | |"), md);
        assertTrue(md.contains("| fib(25), no cutoff | 16 (oversubscribed) | 4.00 | 6.00 | | 1.50x | |"), md);
        assertEquals(5, md.lines().filter(l -> l.startsWith("| submit") || l.startsWith("| fib")).count(), md);

        Report main = new Report(ms);
        assertEquals(1, main.rows().size(), "the main report leaves the parallelism results to their own");

        Path png = dir.resolve("parallelism.png");
        report.chart("Throughput: JDK 17, 2 cores, 2026-01-01", png);
        BufferedImage image = ImageIO.read(png.toFile());
        assertNotNull(image, "a decodable PNG");
        assertEquals(3 * ParallelismReport.PANEL_WIDTH, image.getWidth(), "a chart per workload");
        assertEquals(ParallelismReport.TITLE_HEIGHT + ParallelismReport.PANEL_HEIGHT, image.getHeight());
    }
}
