package io.github.stealpool.bench;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs the whole benchmark suite and writes JMH's JSON ({@code results.json}), the Markdown tables
 * ({@code results.md}) and PNG charts: {@code results.png} (stealpool's speed relative to each
 * alternative, case by case) and {@code parallelism.png} (throughput against workers, from
 * {@link ParallelismBenchmark} and {@link ParallelismFibBenchmark}). Each chart is written only
 * when its benchmarks ran.
 *
 * <pre>
 * java -cp pool-bench/target/benchmarks.jar io.github.stealpool.bench.Suite [options]
 *   --profile=quick    1 fork, 2 x 0.5 s warm-up, 3 x 0.5 s measured (about 10 min on 2 cores)
 *   --profile=full     the benchmarks' own settings: 3 forks, 5 x 1 s each (for publishing)
 *   --out=DIR          where the files go (default bench-results)
 *   --jvm=PATH         the java to fork the benchmarks with (default: this one)
 *   --include=REGEX    only the benchmarks matching (default: the whole suite)
 *   --param=NAME=V,... these values of a JMH parameter, such as --param=parallelism=1,2,4
 *                      (repeatable; default: each benchmark's own)
 * </pre>
 */
public final class Suite {

    /**
     * The suites of the benchmark issue, then scaling with workers (issue 12) and FIFO mode
     * (issue 15), in report order.
     */
    static final String DEFAULT_INCLUDE = "\\.(SubmitBenchmark|ForkJoinBenchmark|WakeupLatencyBenchmark"
            + "|IdleCostBenchmark|RangeBenchmark|RangeProfileBenchmark|RangeCriteriaBenchmark|OversubscriptionBenchmark"
            + "|ScalingBenchmark|ParallelismBenchmark|ParallelismFibBenchmark|FifoBenchmark)\\.";

    private Suite() {
    }

    public static void main(String[] args) throws Exception {
        String profile = "quick";
        Path out = Path.of("bench-results");
        String jvm = null;
        String include = DEFAULT_INCLUDE;
        Map<String, String[]> params = new LinkedHashMap<>();
        for (String a : args) {
            if (a.startsWith("--profile=")) {
                profile = a.substring("--profile=".length());
            } else if (a.startsWith("--out=")) {
                out = Path.of(a.substring("--out=".length()));
            } else if (a.startsWith("--jvm=")) {
                jvm = a.substring("--jvm=".length());
            } else if (a.startsWith("--include=")) {
                include = a.substring("--include=".length());
            } else if (a.startsWith("--param=") && a.indexOf('=', "--param=".length()) > "--param=".length()) {
                String param = a.substring("--param=".length());
                int eq = param.indexOf('=');
                params.put(param.substring(0, eq), param.substring(eq + 1).split(","));
            } else {
                throw new IllegalArgumentException("unknown option " + a + " (see the Suite class comment)");
            }
        }
        if (!profile.equals("quick") && !profile.equals("full")) {
            throw new IllegalArgumentException("--profile must be quick or full: " + profile);
        }
        Files.createDirectories(out);
        Path json = out.resolve("results.json");
        ChainedOptionsBuilder options = new OptionsBuilder()
                .include(include)
                .result(json.toString())
                .resultFormat(ResultFormatType.JSON);
        if (profile.equals("quick")) {
            options.forks(1)
                    .warmupIterations(2).warmupTime(TimeValue.milliseconds(500))
                    .measurementIterations(3).measurementTime(TimeValue.milliseconds(500));
        }
        if (jvm != null) {
            options.jvm(jvm);
        }
        params.forEach(options::param);
        Collection<RunResult> results = new Runner(options.build()).run();

        List<Measurement> measurements = measurements(results);
        String jdk = results.isEmpty() ? "?" : results.iterator().next().getParams().getJdkVersion();
        String vm = results.isEmpty() ? "?" : results.iterator().next().getParams().getVmName();
        int cores = Runtime.getRuntime().availableProcessors();
        String context = String.format("Machine: %d cores (%s, %s). JDK %s (%s). Date %s. Profile: %s.",
                cores, System.getProperty("os.name"), System.getProperty("os.arch"), jdk, vm, LocalDate.now(), profile);
        String machine = "JDK " + jdk + ", " + cores + " cores, " + LocalDate.now();
        Report report = new Report(measurements);
        ParallelismReport parallelism = new ParallelismReport(measurements, cores);
        List<Path> written = new ArrayList<>(List.of(json, out.resolve("results.md")));
        String markdown = report.rows().isEmpty() ? "## Benchmark results\n"
                : report.markdown("## Benchmark results\n\n" + context);
        if (!parallelism.isEmpty()) {
            markdown += "\n" + parallelism.markdown(context);
        }
        // The tables first: a machine without the JDK's font libraries still gets them.
        Files.writeString(out.resolve("results.md"), markdown, StandardCharsets.UTF_8);
        System.out.println(markdown);
        try {
            if (!report.rows().isEmpty()) {
                report.chart("stealpool vs the JDK's executors: " + machine, out.resolve("results.png"));
                written.add(out.resolve("results.png"));
            }
            if (!parallelism.isEmpty()) {
                parallelism.chart("Throughput against workers, stealpool vs the JDK's executors: " + machine,
                        out.resolve("parallelism.png"));
                written.add(out.resolve("parallelism.png"));
            }
        } catch (LinkageError noFonts) {
            // Such as libharfbuzz missing next to a jlink'd JDK on a bare server.
            System.out.println("Charts skipped: this JDK cannot draw text here (" + noFonts + ")");
        }
        System.out.println("Wrote " + written.stream().map(Path::toString).collect(Collectors.joining(", ")));
    }

    static List<Measurement> measurements(Collection<RunResult> results) {
        List<Measurement> ms = new ArrayList<>();
        for (RunResult rr : results) {
            String name = rr.getParams().getBenchmark();
            String[] parts = name.split("\\.");
            String bench = parts[parts.length - 2] + "." + parts[parts.length - 1];
            Map<String, String> params = new TreeMap<>();
            for (String key : rr.getParams().getParamsKeys()) {
                params.put(key, rr.getParams().getParam(key));
            }
            BenchmarkResult agg = rr.getAggregatedResult();
            Result<?> primary = agg.getPrimaryResult();
            double p50 = Double.NaN;
            double p99 = Double.NaN;
            double cpu = Double.NaN;
            if (name.contains("WakeupLatency")) {
                p50 = primary.getStatistics().getPercentile(50);
                p99 = primary.getStatistics().getPercentile(99);
            }
            Result<?> idle = agg.getSecondaryResults().get("cpuPercentOfCore");
            if (idle != null) {
                cpu = idle.getStatistics().getMean();
            }
            ms.add(new Measurement(bench, params, primary.getScoreUnit(), primary.getScore(), p50, p99, cpu));
        }
        return ms;
    }
}
