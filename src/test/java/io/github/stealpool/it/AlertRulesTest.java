package io.github.stealpool.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.stealpool.examples.MetricsDemo;
import java.io.File;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The Prometheus alert rules shipped beside the Grafana dashboard
 * ({@code examples/prometheus/stealpool-alerts.yml}) and their promtool unit tests
 * ({@code stealpool-alerts-test.yml} beside them): every alert says how long, how bad and what,
 * has a case where it fires and one where it stays quiet, and asks only for meters the pool
 * serves; promtool, from Debian's {@code prometheus} package ({@code .ci/run} installs it; where
 * it is missing those two tests are skipped, saying so), accepts the rules and passes the tests.
 */
class AlertRulesTest {

    private static final Path RULES = Path.of("examples", "prometheus", "stealpool-alerts.yml");
    private static final Path RULE_TESTS = Path.of("examples", "prometheus", "stealpool-alerts-test.yml");
    /** Only detects a hung promtool: both of its runs here take well under a second. */
    private static final long HANG_SECONDS = 120;
    private static final Pattern METRIC = Pattern.compile("executor_[a-z_]+");

    @TempDir
    Path dir;

    @Test
    void everyAlertSaysHowLongHowBadAndWhat() throws Exception {
        List<Map<String, Object>> alerts = alerts();
        assertTrue(alerts.size() >= 4, "at least four alerts: " + alerts.size());
        for (Map<String, Object> alert : alerts) {
            String name = (String) alert.get("alert");
            assertTrue(name.startsWith("Stealpool"), name);
            assertTrue(alert.get("for") instanceof String d && !d.isBlank(), name + " has no for:");
            Map<String, Object> labels = map(alert.get("labels"), name + " labels");
            assertTrue(Set.of("page", "ticket").contains(labels.get("severity")), name + " severity: " + labels);
            Map<String, Object> annotations = map(alert.get("annotations"), name + " annotations");
            for (String key : List.of("summary", "description")) {
                assertTrue(annotations.get(key) instanceof String text && text.contains("{{ $labels.name }}"),
                        () -> name + "'s " + key + " must name the pool: " + annotations.get(key));
            }
        }
    }

    /**
     * promtool passes a test file that never evaluates an alert, so this checks that each one
     * is evaluated where it must fire and where it must not; promtool then checks the outcomes.
     */
    @Test
    void everyAlertHasAFiringAndAQuietCase() throws Exception {
        Map<String, Object> tests = yaml(RULE_TESTS);
        assertEquals(List.of(RULES.getFileName().toString()), tests.get("rule_files"));
        Set<String> alerts = new TreeSet<>();
        for (Map<String, Object> a : alerts()) {
            alerts.add((String) a.get("alert"));
        }
        Set<String> firing = new TreeSet<>();
        Set<String> quiet = new TreeSet<>();
        for (Map<String, Object> test : list(tests.get("tests"), "tests")) {
            for (Map<String, Object> eval : list(test.get("alert_rule_test"), "alert_rule_test")) {
                String alert = (String) eval.get("alertname");
                assertTrue(alerts.contains(alert), "the tests evaluate an alert the rules lack: " + alert);
                List<Map<String, Object>> expected = list(eval.get("exp_alerts"), alert + " exp_alerts");
                (expected.isEmpty() ? quiet : firing).add(alert);
                for (Map<String, Object> e : expected) {
                    // promtool compares annotations too: the templates must render as expected.
                    assertTrue(e.containsKey("exp_annotations"), alert + " firing without exp_annotations");
                }
            }
        }
        assertEquals(alerts, firing, "alerts with a case where they fire");
        assertEquals(alerts, quiet, "alerts with a case where they stay quiet");
    }

    /**
     * A rule on a misspelt or renamed meter never fires, and a promtool test on one passes on
     * made-up series: every metric the rules ask for, or the tests feed, must be served by the
     * metrics demo (a bounded pool, so the bound's meters are there too), tagged with the pool's
     * name.
     */
    @Test
    void theRulesAskOnlyForMetersThatAreServed() throws Exception {
        Set<String> used = new TreeSet<>();
        for (Map<String, Object> alert : alerts()) {
            used.addAll(metrics((String) alert.get("expr")));
        }
        for (Map<String, Object> test : list(yaml(RULE_TESTS).get("tests"), "tests")) {
            for (Map<String, Object> series : list(test.get("input_series"), "input_series")) {
                used.addAll(metrics((String) series.get("series")));
            }
        }
        assertFalse(used.isEmpty());
        Set<String> served = new TreeSet<>();
        try (MetricsDemo demo = MetricsDemo.start("127.0.0.1", 0, 1)) {
            demo.externalBurst(100);
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(demo.uri()).build(),
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            assertEquals(200, r.statusCode());
            Matcher sample = Pattern.compile("(?m)^(executor_\\w+)\\{[^}]*\\bname=\"demo\"").matcher(r.body());
            while (sample.find()) {
                served.add(sample.group(1));
            }
        }
        Set<String> missing = new TreeSet<>(used);
        missing.removeAll(served);
        assertEquals(Set.of(), missing, () -> "the alert rules use meters not served; served: " + served);
    }

    @Test
    void promtoolAcceptsTheRules() throws Exception {
        String out = promtool("check", "rules", RepositoryFiles.findUp(RULES).toString());
        assertTrue(out.contains("SUCCESS: " + alerts().size() + " rules found"), out);
    }

    @Test
    void promtoolUnitTestsPass() throws Exception {
        String out = promtool("test", "rules", RepositoryFiles.findUp(RULE_TESTS).toString());
        assertTrue(out.contains("SUCCESS"), out);
        System.out.printf("promtool test rules: %d alerts, each firing and quiet where the tests say%n",
                alerts().size());
    }

    /** Runs promtool (skipping the test where it is missing) and returns its output; exit 0 asserted. */
    private String promtool(String... args) throws Exception {
        Optional<Path> promtool = onPath("promtool");
        assumeTrue(promtool.isPresent(),
                "promtool (Debian's prometheus package) is not installed (.ci/run installs it): skipped");
        List<String> command = new ArrayList<>();
        command.add(promtool.get().toString());
        command.addAll(List.of(args));
        Path output = dir.resolve("promtool.txt");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile()).start();
        if (!p.waitFor(HANG_SECONDS, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("promtool hung: " + command);
        }
        String out = Files.readString(output, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), () -> String.join(" ", command) + "\n" + out);
        return out;
    }

    private static List<Map<String, Object>> alerts() throws Exception {
        List<Map<String, Object>> alerts = new ArrayList<>();
        for (Map<String, Object> group : list(yaml(RULES).get("groups"), "groups")) {
            for (Map<String, Object> rule : list(group.get("rules"), "rules")) {
                assertTrue(rule.containsKey("alert"), "a rule that is no alert: " + rule);
                alerts.add(rule);
            }
        }
        return alerts;
    }

    private static Set<String> metrics(String promql) {
        Set<String> names = new TreeSet<>();
        Matcher m = METRIC.matcher(promql);
        while (m.find()) {
            names.add(m.group());
        }
        return names;
    }

    private static Map<String, Object> yaml(Path relative) throws Exception {
        String text = Files.readString(RepositoryFiles.findUp(relative), StandardCharsets.UTF_8);
        return map(new Yaml(new SafeConstructor(new LoaderOptions())).load(text), relative.toString());
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object node, String what) {
        assertTrue(node instanceof Map, what + " is not a mapping: " + node);
        return (Map<String, Object>) node;
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(Object node, String what) {
        assertTrue(node instanceof List, what + " is not a list: " + node);
        for (Object item : (List<Object>) node) {
            map(item, what + " item");
        }
        return (List<Map<String, Object>>) node;
    }

    private static Optional<Path> onPath(String program) {
        String path = System.getenv().getOrDefault("PATH", "");
        return Stream.of(path.split(File.pathSeparator)).map(d -> Path.of(d, program))
                .filter(Files::isExecutable).findFirst();
    }
}
