package io.github.stealpool.bench;

import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.Marker;

/**
 * The scaling-with-workers results ({@link ParallelismBenchmark}, {@link ParallelismFibBenchmark})
 * as one Markdown table, a row per workload and parallelism with each contender's time and the
 * ratios to ours, and one PNG of a line chart per workload, throughput against parallelism.
 * {@link Report} leaves these results out of its own tables and chart: here they read as curves.
 * Points above the machine's core count are marked oversubscribed.
 */
final class ParallelismReport {

    /** What an operation of each benchmark does, in table order. */
    enum Workload {
        SUBMIT_ONE_PRODUCER("ParallelismBenchmark.submitOneProducer", "submit, 1 producer",
                ParallelismBenchmark.TASKS),
        SUBMIT_PRODUCER_PER_WORKER("ParallelismBenchmark.submitProducerPerWorker",
                "submit, 1 producer per worker", ParallelismBenchmark.TASKS),
        FIB("ParallelismFibBenchmark.fib", "fib(" + ParallelismFibBenchmark.N + "), no cutoff",
                ParallelismFibBenchmark.TASKS);

        final String benchmark;
        final String label;
        final long tasks;

        Workload(String benchmark, String label, long tasks) {
            this.benchmark = benchmark;
            this.label = label;
            this.tasks = tasks;
        }

        static Workload of(String benchmark) {
            for (Workload w : values()) {
                if (w.benchmark.equals(benchmark)) {
                    return w;
                }
            }
            return null;
        }
    }

    /** The contenders always given a column, in column order; others found follow them. */
    static final List<String> CONTENDERS = List.of(Report.ANCHOR, "forkjoin", "fixed");

    /**
     * One row of the table: a workload at one parallelism, and each contender's time in ms per
     * operation.
     */
    record Point(Workload workload, int parallelism, Map<String, Double> millis) {

        /** Tasks per microsecond of this contender, or NaN where it did not run. */
        double throughput(String contender) {
            Double ms = millis.get(contender);
            return ms == null || ms <= 0 ? Double.NaN : workload.tasks / (ms * 1000);
        }
    }

    private final int cores;
    private final List<Point> points;
    private final Set<String> contenders = new LinkedHashSet<>(CONTENDERS);

    /**
     * @param measurements the suite's results; those of other benchmarks are ignored
     * @param cores        the core count of the machine that ran them: parallelism above it is
     *                     oversubscribed
     */
    ParallelismReport(List<Measurement> measurements, int cores) {
        this.cores = cores;
        Map<Workload, Map<Integer, Map<String, Double>>> byWorkload = new TreeMap<>();
        for (Measurement m : measurements) {
            Workload w = Workload.of(m.benchmark());
            if (w == null) {
                continue;
            }
            int parallelism = Integer.parseInt(m.params().get("parallelism"));
            double ms = m.score() * Report.nanosPer(m.unit()) / 1e6;
            byWorkload.computeIfAbsent(w, k -> new TreeMap<>())
                    .computeIfAbsent(parallelism, k -> new LinkedHashMap<>())
                    .put(m.contender(), ms);
            contenders.add(m.contender());
        }
        List<Point> ps = new ArrayList<>();
        byWorkload.forEach((w, byParallelism) -> byParallelism.forEach((p, millis) ->
                ps.add(new Point(w, p, millis))));
        points = List.copyOf(ps);
    }

    /** Whether {@code m} is one of the results this report covers (and {@link Report} skips). */
    static boolean covers(Measurement m) {
        return Workload.of(m.benchmark()) != null;
    }

    boolean isEmpty() {
        return points.isEmpty();
    }

    /** The rows: by workload in {@link Workload} order, then by parallelism, ascending. */
    List<Point> points() {
        return points;
    }

    /** The other's time divided by ours (above 1: ours is faster), or NaN where one is missing. */
    static double ratio(Point p, String other) {
        Double ours = p.millis().get(Report.ANCHOR);
        Double theirs = p.millis().get(other);
        return ours == null || theirs == null || ours <= 0 ? Double.NaN : theirs / ours;
    }

    boolean oversubscribed(int parallelism) {
        return parallelism > cores;
    }

    /** A section for the suite's Markdown: a heading, {@code caption}, what is what, the table. */
    String markdown(String caption) {
        List<String> others = contenders.stream().filter(c -> !c.equals(Report.ANCHOR)).collect(Collectors.toList());
        StringBuilder md = new StringBuilder();
        md.append("### ParallelismBenchmark, ParallelismFibBenchmark (ms/op)\n\n");
        md.append(caption).append("\n\n");
        md.append("Time per operation in ms: ").append(String.format(Locale.ROOT, "%,d", ParallelismBenchmark.TASKS))
                .append(" tiny tasks submitted from outside the pool, or fib(").append(ParallelismFibBenchmark.N)
                .append(") without cutoff (").append(String.format(Locale.ROOT, "%,d", ParallelismFibBenchmark.TASKS))
                .append(" tasks). Ratios are the other's time divided by stealpool's (above 1: stealpool is "
                        + "faster). Parallelism above this machine's ").append(cores)
                .append(" cores is oversubscribed. fib has no `fixed` time: newFixedThreadPool deadlocks on "
                        + "fork/join without cutoff.\n\n");
        md.append("| workload | parallelism |");
        for (String c : contenders) {
            md.append(' ').append(c).append(" |");
        }
        for (String c : others) {
            md.append(' ').append(c).append('/').append(Report.ANCHOR).append(" |");
        }
        md.append("\n|---|---|").append("---|".repeat(contenders.size() + others.size())).append('\n');
        for (Point p : points) {
            md.append("| ").append(p.workload().label).append(" | ").append(p.parallelism())
                    .append(oversubscribed(p.parallelism()) ? " (oversubscribed)" : "").append(" |");
            for (String c : contenders) {
                Double v = p.millis().get(c);
                md.append(v == null ? " |" : " " + Report.format(v) + " |");
            }
            for (String c : others) {
                double x = ratio(p, c);
                md.append(Double.isNaN(x) ? " |" : String.format(Locale.ROOT, " %.2fx |", x));
            }
            md.append('\n');
        }
        return md.toString();
    }

    /** Width and height of one workload's chart in the PNG. */
    static final int PANEL_WIDTH = 640;
    static final int PANEL_HEIGHT = 480;
    /** Height of the title band above the charts. */
    static final int TITLE_HEIGHT = 40;

    /**
     * One PNG: {@code title} (say which machine, JDK and date) above a line chart per workload,
     * side by side; x is the parallelism, evenly spaced (so a log2 scale), y the throughput in
     * tasks per microsecond, one line per contender.
     */
    void chart(String title, Path png) throws IOException {
        Map<Workload, List<Point>> byWorkload = new TreeMap<>();
        for (Point p : points) {
            byWorkload.computeIfAbsent(p.workload(), k -> new ArrayList<>()).add(p);
        }
        List<BufferedImage> panels = new ArrayList<>();
        for (Map.Entry<Workload, List<Point>> e : byWorkload.entrySet()) {
            panels.add(BitmapEncoder.getBufferedImage(panel(e.getKey(), e.getValue())));
        }
        int width = Math.max(1, panels.size()) * PANEL_WIDTH;
        BufferedImage image = new BufferedImage(width, TITLE_HEIGHT + PANEL_HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, image.getWidth(), image.getHeight());
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
            int titleWidth = g.getFontMetrics().stringWidth(title);
            g.drawString(title, Math.max(8, (width - titleWidth) / 2), TITLE_HEIGHT - 14);
            for (int i = 0; i < panels.size(); i++) {
                g.drawImage(panels.get(i), i * PANEL_WIDTH, TITLE_HEIGHT, null);
            }
        } finally {
            g.dispose();
        }
        Files.createDirectories(png.toAbsolutePath().getParent());
        if (!ImageIO.write(image, "png", png.toFile())) {
            throw new IOException("no PNG writer in this JDK");
        }
    }

    private CategoryChart panel(Workload w, List<Point> ps) {
        List<Point> sorted = new ArrayList<>(ps);
        sorted.sort(Comparator.comparingInt(Point::parallelism));
        List<String> x = new ArrayList<>();
        for (Point p : sorted) {
            x.add(Integer.toString(p.parallelism()));
        }
        CategoryChart chart = new CategoryChartBuilder()
                .width(PANEL_WIDTH).height(PANEL_HEIGHT)
                .title(w.label)
                .xAxisTitle("parallelism (workers; above " + cores + ": oversubscribed)")
                .yAxisTitle("throughput, tasks/us (higher is better)")
                .build();
        chart.getStyler().setDefaultSeriesRenderStyle(CategorySeries.CategorySeriesRenderStyle.Line);
        chart.getStyler().setOverlapped(true); // every line's points on the category, not side by side
        chart.getStyler().setChartBackgroundColor(Color.WHITE); // as the title band above
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
        chart.getStyler().setYAxisMin(0.0);
        Color[] colors = chart.getStyler().getSeriesColors();
        Marker[] markers = chart.getStyler().getSeriesMarkers();
        int index = -1;
        for (String c : contenders) {
            index++; // a contender's colour and marker are the same in every panel
            List<Double> y = new ArrayList<>();
            boolean any = false;
            for (Point p : sorted) {
                double t = p.throughput(c);
                any |= !Double.isNaN(t);
                y.add(Double.isNaN(t) ? null : t);
            }
            if (any) {
                CategorySeries series = chart.addSeries(c, x, y);
                series.setLineColor(colors[index % colors.length]);
                series.setMarkerColor(colors[index % colors.length]);
                series.setMarker(markers[index % markers.length]);
            }
        }
        return chart;
    }
}
