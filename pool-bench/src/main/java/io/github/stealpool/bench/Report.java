package io.github.stealpool.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * Turns the suite's measurements into a Markdown table per benchmark and one PNG chart of how
 * much faster our pool is than each alternative, case by case. Every comparison is within one
 * run: ratios are the alternative's time divided by ours (above 1: ours is faster). The
 * scaling-with-workers suite has its own table and chart, {@link ParallelismReport}.
 */
final class Report {

    static final String ANCHOR = "stealpool";

    /** One line of a table: a case, and a value per contender. */
    record Row(String group, String label, String unit, Map<String, Double> values) {
    }

    private final List<Row> rows = new ArrayList<>();

    Report(List<Measurement> measurements) {
        Map<String, Row> byKey = new LinkedHashMap<>();
        for (Measurement m : measurements) {
            if (ParallelismReport.covers(m)) {
                continue; // curves against parallelism: a table and chart of their own
            }
            String group = m.benchmark();
            String label = m.caseParams();
            double value = m.score();
            String unit = m.unit();
            if (!Double.isNaN(m.cpuPercent())) {
                value = m.cpuPercent();
                unit = "% of a core";
            } else if (group.startsWith("ScalingBenchmark")) {
                int scale = Integer.parseInt(m.params().get("scale"));
                double tasks = group.endsWith("fib")
                        ? ScalingBenchmark.fibTasks(ScalingBenchmark.fibN(scale))
                        : ScalingBenchmark.submitTasks(scale);
                value = value * nanosPer(unit) / tasks;
                unit = "ns/task";
                label = (group.endsWith("fib") ? "fib(" + ScalingBenchmark.fibN(scale) + ")"
                        : ScalingBenchmark.submitTasks(scale) + " tasks") + ", scale=" + scale;
            }
            if (!Double.isNaN(m.p50())) {
                add(byKey, group, label.isEmpty() ? "p50" : label + ", p50", m.unit(), m.contender(), m.p50());
                add(byKey, group, label.isEmpty() ? "p99" : label + ", p99", m.unit(), m.contender(), m.p99());
            } else {
                add(byKey, group, label, unit, m.contender(), value);
            }
        }
        rows.addAll(byKey.values());
    }

    /** Nanoseconds in the time unit of a JMH score unit such as {@code ms/op}. */
    static double nanosPer(String unit) {
        switch (unit) {
            case "ms/op": return 1e6;
            case "us/op": return 1e3;
            case "ns/op": return 1;
            default: return 1e9;
        }
    }

    private static void add(Map<String, Row> rows, String group, String label, String unit,
                            String contender, double value) {
        rows.computeIfAbsent(group + "|" + label, k -> new Row(group, label, unit, new LinkedHashMap<>()))
                .values().put(contender, value);
    }

    List<Row> rows() {
        return rows;
    }

    /** Alternative's value divided by ours: how many times faster (or cheaper) ours is. */
    static double ratio(Row r, String other) {
        Double ours = r.values().get(ANCHOR);
        Double theirs = r.values().get(other);
        return ours == null || theirs == null || ours <= 0 ? Double.NaN : theirs / ours;
    }

    /** The Markdown: a header with the context, then one table per benchmark. */
    String markdown(String context) {
        StringBuilder md = new StringBuilder();
        md.append(context).append("\n\n");
        md.append("Ratios are the other's time divided by stealpool's (above 1: stealpool is faster); "
                + "for range loops with a `sequential` column, speedups over it.\n");
        Map<String, List<Row>> groups = new LinkedHashMap<>();
        for (Row r : rows) {
            groups.computeIfAbsent(r.group(), k -> new ArrayList<>()).add(r);
        }
        for (Map.Entry<String, List<Row>> g : groups.entrySet()) {
            Set<String> contenders = new LinkedHashSet<>();
            for (Row r : g.getValue()) {
                contenders.addAll(r.values().keySet());
            }
            boolean sequential = contenders.contains("sequential");
            boolean ratios = contenders.contains(ANCHOR) && !g.getValue().get(0).unit().startsWith("%");
            md.append("\n### ").append(g.getKey()).append(" (").append(g.getValue().get(0).unit()).append(")\n\n");
            md.append("| case |");
            for (String c : contenders) {
                md.append(' ').append(c).append(" |");
            }
            List<String> extra = new ArrayList<>();
            for (String c : contenders) {
                if (sequential && !c.equals("sequential")) {
                    extra.add("speedup " + c);
                } else if (!sequential && ratios && !c.equals(ANCHOR)) {
                    extra.add("vs " + c);
                }
            }
            for (String e : extra) {
                md.append(' ').append(e).append(" |");
            }
            md.append("\n|---|");
            md.append("---|".repeat(contenders.size() + extra.size()));
            md.append('\n');
            for (Row r : g.getValue()) {
                md.append("| ").append(r.label().isEmpty() ? "-" : r.label()).append(" |");
                for (String c : contenders) {
                    Double v = r.values().get(c);
                    md.append(' ').append(v == null ? "" : format(v)).append(" |");
                }
                for (String c : contenders) {
                    if (sequential && !c.equals("sequential")) {
                        Double s = r.values().get("sequential");
                        Double v = r.values().get(c);
                        md.append(' ').append(s == null || v == null ? "" : String.format(Locale.ROOT, "%.2fx", s / v)).append(" |");
                    } else if (!sequential && ratios && !c.equals(ANCHOR)) {
                        double x = ratio(r, c);
                        md.append(' ').append(Double.isNaN(x) ? "" : String.format(Locale.ROOT, "%.2fx", x)).append(" |");
                    }
                }
                md.append('\n');
            }
        }
        return md.toString();
    }

    static String format(double v) {
        if (v >= 100) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        if (v >= 1) {
            return String.format(Locale.ROOT, "%.2f", v);
        }
        return String.format(Locale.ROOT, "%.3f", v);
    }

    /** A bar chart: for each case, how many times faster stealpool is than each alternative. */
    void chart(String title, Path png) throws IOException {
        List<String> labels = new ArrayList<>();
        Map<String, List<Double>> series = new LinkedHashMap<>();
        List<Row> charted = new ArrayList<>();
        for (Row r : rows) {
            if (r.values().containsKey(ANCHOR) && r.values().size() > 1 && !r.unit().startsWith("%")) {
                charted.add(r);
                for (String c : r.values().keySet()) {
                    if (!c.equals(ANCHOR) && !c.equals("sequential")) {
                        series.putIfAbsent(c, new ArrayList<>());
                    }
                }
            }
        }
        for (Row r : charted) {
            labels.add(shortGroup(r.group()) + (r.label().isEmpty() ? "" : " " + r.label()));
            for (Map.Entry<String, List<Double>> s : series.entrySet()) {
                double x = ratio(r, s.getKey());
                s.getValue().add(Double.isNaN(x) ? 0.0 : x);
            }
        }
        CategoryChart chart = new CategoryChartBuilder()
                .width(Math.max(1200, 48 * labels.size())).height(800) // room for every label
                .title(title)
                .xAxisTitle("case")
                .yAxisTitle("stealpool speed relative to the other (>1: stealpool faster)")
                .build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
        chart.getStyler().setXAxisLabelRotation(90);
        chart.getStyler().setOverlapped(false);
        for (Map.Entry<String, List<Double>> s : series.entrySet()) {
            chart.addSeries("vs " + s.getKey(), labels, s.getValue());
        }
        Files.createDirectories(png.toAbsolutePath().getParent());
        // BitmapEncoder.saveBitmap(chart, String, format) is deprecated in XChart 4: render the
        // chart and write it with ImageIO, which is what it did.
        if (!ImageIO.write(BitmapEncoder.getBufferedImage(chart), "png", png.toFile())) {
            throw new IOException("no PNG writer in this JDK");
        }
    }

    private static String shortGroup(String group) {
        return group.replace("Benchmark.", ".");
    }
}
