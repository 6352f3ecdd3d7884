package io.github.stealpool.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.stealpool.examples.MetricsDemo;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The metrics example end to end: a pool at work, its meters served over real HTTP on loopback,
 * scraped and parsed as Prometheus would.
 */
class MetricsEndpointTest {

    /**
     * The README's claim that a dashboard made for a {@code ForkJoinPool} works unchanged: a
     * {@code ForkJoinPool} bound with Micrometer's own {@code ExecutorServiceMetrics} and our pool
     * in one Prometheus registry publish the same metric families (with one help text each):
     * Micrometer's {@code monitor} wraps the ForkJoinPool in its task timers, ours comes from
     * {@code WorkStealingPoolMetrics.timed}.
     */
    @Test
    void ourFamiliesAreTheOnesMicrometerGivesAForkJoinPool() throws Exception {
        io.micrometer.prometheusmetrics.PrometheusMeterRegistry registry =
                new io.micrometer.prometheusmetrics.PrometheusMeterRegistry(
                        io.micrometer.prometheusmetrics.PrometheusConfig.DEFAULT);
        java.util.concurrent.ForkJoinPool fjp = new java.util.concurrent.ForkJoinPool(2);
        try (io.github.stealpool.WorkStealingPool ours =
                     io.github.stealpool.WorkStealingPool.builder().parallelism(2).build()) {
            io.micrometer.core.instrument.binder.jvm.ExecutorServiceMetrics.monitor(registry, fjp, "theirs");
            io.github.stealpool.metrics.WorkStealingPoolMetrics.monitor(registry, ours, "ours");
            java.util.concurrent.ExecutorService timed =
                    io.github.stealpool.metrics.WorkStealingPoolMetrics.timed(registry, ours, "ours");
            assertEquals(1, timed.submit(() -> 1).get());
            String text = registry.scrape();
            Map<String, Set<String>> familiesByPool = new HashMap<>();
            Matcher sample = Pattern.compile("(?m)^(executor_\\w+)\\{[^}]*name=\"(\\w+)\"").matcher(text);
            while (sample.find()) {
                familiesByPool.computeIfAbsent(sample.group(2), k -> new TreeSet<>()).add(sample.group(1));
            }
            Set<String> missing = new TreeSet<>(familiesByPool.get("theirs"));
            missing.removeAll(familiesByPool.get("ours"));
            // Not ours: on JDK 25 a ForkJoinPool is a ScheduledExecutorService, and Micrometer
            // adds its count of delayed tasks (ours is executor.scheduled.pending).
            missing.removeIf(f -> f.matches("executor_delayed_tasks\\w*"));
            assertEquals(Set.of(), missing, text);
            Set<String> shared = new TreeSet<>(familiesByPool.get("theirs"));
            shared.retainAll(familiesByPool.get("ours"));
            // steals, queued, active, running, parallelism, pool size, and both timers' count,
            // sum and max; on JDK 25 also executor.scheduled.once and .repetitively, which
            // Micrometer counts for a ScheduledExecutorService (issue 37)
            boolean scheduled = familiesByPool.get("theirs").contains("executor_scheduled_once_total");
            assertEquals(scheduled ? 14 : 12, shared.size(), shared + "\n" + text);
            for (String family : shared) {
                String base = family.replaceAll("_(total|count|sum)$", "");
                assertEquals(1, count(text, "(?m)^# HELP (" + family + "|" + base + ") "), family + "\n" + text);
            }
        } finally {
            fjp.shutdownNow();
        }
    }

    private static int count(String text, String regex) {
        return (int) Pattern.compile(regex).matcher(text).results().count();
    }

    private static final Duration HANG = Duration.ofSeconds(60);

    /** One sample of the text exposition format: {@code name{label="value",...} 1.0}. */
    private record Sample(String name, Map<String, String> labels, double value) {
    }

    private static final Pattern SAMPLE =
            Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)\\})?\\s+(\\S+)(?:\\s+-?\\d+)?$");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\",?");

    private static List<Sample> parse(String text) {
        List<Sample> samples = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            Matcher m = SAMPLE.matcher(line);
            assertTrue(m.matches(), () -> "not a sample line: " + line);
            Map<String, String> labels = new HashMap<>();
            if (m.group(2) != null) {
                Matcher l = LABEL.matcher(m.group(2));
                int end = 0;
                while (l.find() && l.start() == end) {
                    labels.put(l.group(1), l.group(2));
                    end = l.end();
                }
                int parsed = end;
                assertEquals(m.group(2).length(), parsed, () -> "bad labels: " + line);
            }
            samples.add(new Sample(m.group(1), labels, Double.parseDouble(m.group(3))));
        }
        return samples;
    }

    private static HttpResponse<String> get(URI uri) throws IOException, InterruptedException {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        return client.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).GET().build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    private static List<Sample> scrape(URI uri) throws IOException, InterruptedException {
        HttpResponse<String> r = get(uri);
        assertEquals(200, r.statusCode());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"),
                r.headers().toString());
        return parse(r.body());
    }

    private static double value(List<Sample> samples, String name, String... labels) {
        double sum = 0;
        boolean found = false;
        outer:
        for (Sample s : samples) {
            if (!s.name().equals(name)) {
                continue;
            }
            for (int i = 0; i < labels.length; i += 2) {
                if (!labels[i + 1].equals(s.labels().get(labels[i]))) {
                    continue outer;
                }
            }
            sum += s.value();
            found = true;
        }
        assertTrue(found, () -> name + " missing from " + samples);
        return sum;
    }

    @Test
    void aScrapeOverHttpShowsThePoolWorking() throws Exception {
        try (MetricsDemo demo = MetricsDemo.start("127.0.0.1", 0, 2)) {
            URI uri = demo.uri();
            assertEquals("127.0.0.1", uri.getHost());
            demo.forkJoinRound(24);
            List<Sample> first = scrape(uri);

            // Micrometer's JVM thread and processor meters are there, to read parked time against CPU.
            Set<String> all = new TreeSet<>();
            first.forEach(s -> all.add(s.name()));
            assertTrue(all.contains("jvm_threads_live_threads") && all.contains("system_cpu_count")
                    && all.contains("process_cpu_usage"), all.toString());

            // Every pool meter carries the pool's name.
            Set<String> names = new TreeSet<>();
            for (Sample s : first) {
                if (!s.name().startsWith("executor_")) {
                    continue;
                }
                names.add(s.name());
                assertEquals("demo", s.labels().get("name"), s::toString);
            }
            assertEquals(Set.of(
                    "executor_active", "executor_completed_tasks_total", "executor_failed_tasks_total",
                    "executor_blocked_threads", "executor_compensations_threads_total",
                    "executor_parallelism_threads", "executor_parked_threads", "executor_parks_total",
                    "executor_pool_size_threads", "executor_queued", "executor_rejected_tasks_total",
                    "executor_running", "executor_steal_attempts_total", "executor_steals_total",
                    "executor_submitted_tasks_total", "executor_wakeups_total",
                    "executor_worker_idle_seconds_total",
                    // the demo's pool is bounded (maxQueuedSubmissions): the bound's meters
                    "executor_queue_remaining_tasks", "executor_caller_runs_tasks_total",
                    "executor_submit_blocked_tasks_total",
                    // delayed tasks (issue 37)
                    "executor_scheduled_once_total", "executor_scheduled_repetitively_total",
                    "executor_scheduled_pending_tasks",
                    // the demo's task timers (timeTasks)
                    "executor_seconds_count", "executor_seconds_sum", "executor_seconds_max",
                    "executor_idle_seconds_count", "executor_idle_seconds_sum", "executor_idle_seconds_max"),
                    names);

            // More fork/join work until the counters show it (a steal needs the other worker to
            // get there first, which a loaded machine may delay: the bound is a hang detector).
            double completed0 = value(first, "executor_completed_tasks_total");
            double steals0 = value(first, "executor_steals_total");
            List<List<Sample>> second = new ArrayList<>();
            await().atMost(HANG).until(() -> {
                demo.forkJoinRound(24);
                demo.externalBurst(1_000);
                second.add(0, scrape(uri));
                return value(second.get(0), "executor_steals_total") > steals0;
            });
            List<Sample> later = second.get(0);
            assertTrue(value(later, "executor_completed_tasks_total") > completed0);
            assertTrue(value(later, "executor_submitted_tasks_total", "source", "external") >= 1_001);
            assertTrue(value(later, "executor_submitted_tasks_total", "source", "worker") > 0);
            assertTrue(value(later, "executor_steal_attempts_total") >= value(later, "executor_steals_total"));

            // Gauges are sane.
            assertEquals(2.0, value(later, "executor_parallelism_threads"));
            assertEquals(2.0, value(later, "executor_pool_size_threads"));
            double active = value(later, "executor_active");
            assertTrue(active >= 0 && active <= 2, "active " + active);
            double running = value(later, "executor_running");
            assertTrue(running >= 0 && running <= 2, "running " + running);
            assertEquals(0.0, value(later, "executor_failed_tasks_total"));
            assertEquals(0.0, value(later, "executor_rejected_tasks_total"));
            assertTrue(value(later, "executor_queued") >= 0);
            double room = value(later, "executor_queue_remaining_tasks");
            assertTrue(room >= 0 && room <= 10_000, "queue remaining " + room);
            assertEquals(0.0, value(later, "executor_caller_runs_tasks_total"));
            assertTrue(value(later, "executor_worker_idle_seconds_total") >= 0);

            // Only GET is served.
            HttpResponse<String> post = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(uri).POST(HttpRequest.BodyPublishers.noBody()).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(405, post.statusCode());
        }
    }

    @Test
    void theGrafanaDashboardQueriesOnlyMetersThatExist() throws Exception {
        String dashboard = Files.readString(RepositoryFiles.findUp(Path.of("examples", "grafana", "stealpool-dashboard.json")));
        Set<String> queried = new TreeSet<>();
        Matcher m = Pattern.compile("executor_[a-z_]+").matcher(dashboard);
        while (m.find()) {
            queried.add(m.group());
        }
        assertFalse(queried.isEmpty());
        try (MetricsDemo demo = MetricsDemo.start("127.0.0.1", 0, 1)) {
            Set<String> served = new TreeSet<>();
            for (Sample s : scrape(demo.uri())) {
                served.add(s.name());
            }
            assertTrue(served.containsAll(queried), () -> "dashboard asks for " + queried + ", served " + served);
        }
    }

    @Test
    void theMetersLeaveTheRegistryWithThePool() throws Exception {
        MetricsDemo demo = MetricsDemo.start("127.0.0.1", 0, 1);
        assertFalse(poolMeters(demo).isEmpty());
        demo.close();
        // The pool's meters go; the JVM's thread and processor meters are the demo's, not the pool's.
        await().atMost(HANG).until(() -> poolMeters(demo).isEmpty());
        assertFalse(demo.registry().getMeters().isEmpty());
    }

    private static List<io.micrometer.core.instrument.Meter> poolMeters(MetricsDemo demo) {
        List<io.micrometer.core.instrument.Meter> meters = new ArrayList<>();
        for (io.micrometer.core.instrument.Meter m : demo.registry().getMeters()) {
            if (m.getId().getName().startsWith("executor.")) {
                meters.add(m);
            }
        }
        return meters;
    }

    @Test
    void unknownOptionsAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> MetricsDemo.main(new String[] {"--bogus"}));
    }
}
