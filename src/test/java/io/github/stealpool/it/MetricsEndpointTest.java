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

            // Every meter carries the pool's name.
            Set<String> names = new TreeSet<>();
            for (Sample s : first) {
                names.add(s.name());
                assertEquals("demo", s.labels().get("name"), s::toString);
            }
            assertEquals(Set.of(
                    "executor_active_threads", "executor_completed_tasks_total",
                    "executor_parallelism_threads", "executor_parks_total",
                    "executor_pool_size_threads", "executor_queued_tasks",
                    "executor_steal_attempts_total", "executor_steals_total",
                    "executor_submitted_tasks_total", "executor_wakeups_total",
                    "executor_worker_idle_seconds_total"), names);

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
            double active = value(later, "executor_active_threads");
            assertTrue(active >= 0 && active <= 2, "active " + active);
            assertTrue(value(later, "executor_queued_tasks") >= 0);
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
        String dashboard = Files.readString(findUp(Path.of("examples", "grafana", "stealpool-dashboard.json")));
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
        assertFalse(demo.registry().getMeters().isEmpty());
        demo.close();
        await().atMost(HANG).until(() -> demo.registry().getMeters().isEmpty());
    }

    @Test
    void unknownOptionsAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> MetricsDemo.main(new String[] {"--bogus"}));
    }

    private static Path findUp(Path relative) {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path p = dir.resolve(relative);
            if (Files.isRegularFile(p)) {
                return p;
            }
        }
        throw new AssertionError(relative + " not found above " + Path.of("").toAbsolutePath());
    }
}
