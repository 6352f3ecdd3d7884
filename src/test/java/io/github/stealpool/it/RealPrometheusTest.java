package io.github.stealpool.it;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.stealpool.examples.MetricsDemo;
import java.io.File;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The metrics against a real Prometheus: Debian's {@code prometheus} (which {@code .ci/run}
 * installs where it can; elsewhere this test is skipped, saying so) scrapes the metrics demo on
 * 127.0.0.1 every second while the demo works, and every query of the Grafana dashboard, and its
 * variables' label queries, must return data. It also loads the alert rules
 * ({@code examples/prometheus/stealpool-alerts.yml}) and evaluates them every second: each must
 * evaluate on the real series without error ({@code AlertRulesTest} checks when they fire).
 */
class RealPrometheusTest {

    private static final Duration HANG = Duration.ofSeconds(90);

    @TempDir
    Path dir;

    @Test
    void everyDashboardQueryReturnsData() throws Exception {
        Optional<Path> prometheus = onPath("prometheus");
        assumeTrue(prometheus.isPresent(), "Debian's prometheus is not installed (.ci/run installs it): skipped");
        List<String> queries = dashboardQueries();
        assertFalse(queries.isEmpty());
        Path rules = RepositoryFiles.findUp(Path.of("examples", "prometheus", "stealpool-alerts.yml"));
        int alerts = count(Files.readString(rules), "(?m)^\\s*- alert: ");
        assertTrue(alerts > 0, rules.toString());

        try (MetricsDemo demo = MetricsDemo.start("127.0.0.1", 0, 2)) {
            int port = freePort();
            Files.writeString(dir.resolve("prometheus.yml"), "global:\n  scrape_interval: 1s\n"
                    + "  evaluation_interval: 1s\n"
                    + "rule_files:\n  - '" + rules.toAbsolutePath() + "'\n"
                    + "scrape_configs:\n  - job_name: stealpool-demo\n    static_configs:\n"
                    + "      - targets: ['127.0.0.1:" + demo.uri().getPort() + "']\n");
            Process server = new ProcessBuilder(prometheus.get().toString(),
                    "--config.file=" + dir.resolve("prometheus.yml"),
                    "--storage.tsdb.path=" + dir.resolve("data"),
                    "--web.listen-address=127.0.0.1:" + port)
                    .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
            try {
                URI api = URI.create("http://127.0.0.1:" + port + "/api/v1/");
                HttpClient http = HttpClient.newHttpClient();
                List<String> pending = new ArrayList<>(queries);
                pending.add("label:job");
                pending.add("label:instance");
                pending.add("label:name");
                // Work and ask until every query has data (a rate needs two scrapes): the bound
                // only detects a hang.
                await().atMost(HANG).pollInterval(Duration.ofMillis(500)).until(() -> {
                    demo.forkJoinRound(22);
                    demo.externalBurst(2_000);
                    pending.removeIf(q -> hasData(http, api, q));
                    return pending.isEmpty();
                });
                // Every series is there now: each rule's next evaluation runs on real data.
                Instant dataSeen = Instant.now();
                await().atMost(HANG).pollInterval(Duration.ofMillis(500))
                        .until(() -> rulesEvaluatedSince(http, api, alerts, dataSeen));
                System.out.printf("real Prometheus (%s): all %d dashboard queries and 3 variable queries returned data,"
                        + " %d alert rules evaluated%n", prometheus.get(), queries.size(), alerts);
            } finally {
                server.destroy();
                if (!server.waitFor(30, TimeUnit.SECONDS)) {
                    server.destroyForcibly();
                }
            }
        }
    }

    /** True if {@code query} (a PromQL expression, or "label:NAME") returns a non-empty result. */
    private static boolean hasData(HttpClient http, URI api, String query) {
        try {
            String path = query.startsWith("label:")
                    ? "label/" + query.substring(6) + "/values?match[]=executor_parallelism_threads"
                    : "query?query=" + URLEncoder.encode(query, StandardCharsets.UTF_8);
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(api.resolve(path)).build(),
                    HttpResponse.BodyHandlers.ofString());
            String body = r.body();
            if (r.statusCode() == 503) {
                return false; // listening, but still loading its storage and rules: not ready yet
            }
            if (r.statusCode() != 200) {
                throw new AssertionError(query + " -> HTTP " + r.statusCode() + ": " + body);
            }
            return body.contains("\"status\":\"success\"") && !body.contains("\"result\":[]")
                    && !body.contains("\"data\":[]");
        } catch (java.io.IOException e) {
            return false; // the server is still starting
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * True once all {@code alerts} rules were last evaluated after {@code since}, without error;
     * an error (a PromQL expression that fails on real series, such as a many-to-many match)
     * fails the test.
     */
    private static boolean rulesEvaluatedSince(HttpClient http, URI api, int alerts, Instant since) {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(api.resolve("rules?type=alert")).build(),
                    HttpResponse.BodyHandlers.ofString());
            String body = r.body();
            if (r.statusCode() == 503) {
                return false; // not ready (as in hasData)
            }
            if (r.statusCode() != 200) {
                throw new AssertionError("rules -> HTTP " + r.statusCode() + ": " + body);
            }
            if (body.contains("\"health\":\"err\"")) {
                throw new AssertionError("an alert rule failed to evaluate: " + body);
            }
            List<Instant> evaluated = new ArrayList<>();
            Matcher m = Pattern.compile("\"lastEvaluation\":\"([^\"]+)\"").matcher(body);
            while (m.find()) {
                evaluated.add(OffsetDateTime.parse(m.group(1)).toInstant());
            }
            // The group's lastEvaluation is there too, and counts alike.
            return count(body, "\"health\":\"ok\"") == alerts && evaluated.size() > alerts
                    && evaluated.stream().allMatch(t -> t.isAfter(since));
        } catch (java.io.IOException e) {
            return false; // the server is still starting
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static int count(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    /** The dashboard's queries, with its variables set to "all" and a 10 s rate window. */
    private static List<String> dashboardQueries() throws Exception {
        String dashboard = Files.readString(RepositoryFiles.findUp(Path.of("examples", "grafana", "stealpool-dashboard.json")));
        List<String> queries = new ArrayList<>();
        Matcher m = Pattern.compile("\"expr\": \"((?:[^\"\\\\]|\\\\.)*)\"").matcher(dashboard);
        while (m.find()) {
            queries.add(m.group(1).replace("\\\"", "\"").replace("$__rate_interval", "10s")
                    .replace("\"$job\"", "\".*\"").replace("\"$instance\"", "\".*\"").replace("\"$pool\"", "\".*\""));
        }
        return queries;
    }

    private static Optional<Path> onPath(String program) {
        String path = System.getenv().getOrDefault("PATH", "");
        return Stream.of(path.split(File.pathSeparator)).map(d -> Path.of(d, program))
                .filter(Files::isExecutable).findFirst();
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
