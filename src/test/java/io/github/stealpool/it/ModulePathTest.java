package io.github.stealpool.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.stealpool.WorkStealingPool;
import io.github.stealpool.metrics.WorkStealingPoolMetrics;
import java.io.File;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jars as a user's module sees them: a module that requires {@code io.github.stealpool} and
 * {@code io.github.stealpool.metrics} compiles against the module path, runs a fork/join task and
 * a range loop, and binds the meters; and a module that imports the internal package does not
 * compile ("not visible"), since only the API packages are exported.
 */
class ModulePathTest {

    private static final String USER_MODULE = "module user.app {\n"
            + "    requires io.github.stealpool.metrics;\n" // brings io.github.stealpool
            + "}\n";

    private static final String USER_MAIN = "package user.app;\n"
            + "import io.github.stealpool.Task;\n"
            + "import io.github.stealpool.WorkStealingPool;\n"
            + "import io.github.stealpool.metrics.WorkStealingPoolMetrics;\n"
            + "import io.micrometer.core.instrument.simple.SimpleMeterRegistry;\n"
            + "public class Main {\n"
            + "    static final class Fib extends Task<Long> {\n"
            + "        final int n;\n"
            + "        Fib(int n) { this.n = n; }\n"
            + "        @Override protected Long compute() {\n"
            + "            if (n < 2) return (long) n;\n"
            + "            Fib f = new Fib(n - 1);\n"
            + "            f.fork();\n"
            + "            return new Fib(n - 2).compute() + f.join();\n"
            + "        }\n"
            + "    }\n"
            + "    public static void main(String[] args) {\n"
            + "        SimpleMeterRegistry registry = new SimpleMeterRegistry();\n"
            + "        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build()) {\n"
            + "            WorkStealingPoolMetrics.monitor(registry, pool, \"modular\");\n"
            + "            long fib = pool.invoke(new Fib(20));\n"
            + "            long sum = pool.range(0, 1000).reduceLong(0, i -> i, Long::sum);\n"
            + "            System.out.println(\"fib=\" + fib + \" sum=\" + sum + \" meters=\" + !registry.getMeters().isEmpty()\n"
            + "                    + \" module=\" + WorkStealingPool.class.getModule().getName());\n"
            + "        }\n"
            + "    }\n"
            + "}\n";

    private static final String SNEAKY_MAIN = "package user.app;\n"
            + "import io.github.stealpool.internal.Worker;\n"
            + "public class Main {\n"
            + "    public static void main(String[] args) { System.out.println(Worker.current()); }\n"
            + "}\n";

    @TempDir
    Path dir;

    @Test
    void aUserModuleCompilesAndRunsAgainstTheExportedApi() throws Exception {
        String modulePath = modulePath();
        Path classes = dir.resolve("classes");
        String errors = compile(modulePath, classes, USER_MAIN);
        assertEquals("", errors, "a user module must compile against the API");

        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        Path out = dir.resolve("out.txt");
        Process p = new ProcessBuilder(java, "--module-path", modulePath + File.pathSeparator + classes,
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-m", "user.app/user.app.Main")
                .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "child JVM hung"); // a hang detector
        String text = Files.readString(out, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), text);
        assertTrue(text.contains("fib=6765 sum=499500 meters=true module=io.github.stealpool"), text);
    }

    @Test
    void theInternalPackageIsNotVisibleToOtherModules() throws Exception {
        String errors = compile(modulePath(), dir.resolve("sneaky"), SNEAKY_MAIN);
        assertTrue(errors.contains("package io.github.stealpool.internal is not visible"), errors);
    }

    /** Compiles module {@code user.app} with {@code main}; returns javac's errors ("" if none). */
    private String compile(String modulePath, Path classes, String main) throws Exception {
        Path src = dir.resolve("src-" + classes.getFileName());
        Files.createDirectories(src.resolve("user/app"));
        Files.writeString(src.resolve("module-info.java"), USER_MODULE);
        Files.writeString(src.resolve("user/app/Main.java"), main);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertNotNull(javac, "tests need a JDK, not a JRE");
        java.io.ByteArrayOutputStream diagnostics = new java.io.ByteArrayOutputStream();
        int rc = javac.run(null, diagnostics, diagnostics, "--module-path", modulePath, "-d", classes.toString(),
                src.resolve("module-info.java").toString(), src.resolve("user/app/Main.java").toString());
        String text = diagnostics.toString(StandardCharsets.UTF_8);
        return rc == 0 ? "" : text.isEmpty() ? "javac exit " + rc : text;
    }

    /** Our two modules and what they need, from wherever this test loaded them. */
    private static String modulePath() throws Exception {
        Set<String> path = new LinkedHashSet<>();
        for (String anchor : List.of(
                WorkStealingPool.class.getName(),
                WorkStealingPoolMetrics.class.getName(),
                "org.jctools.queues.varhandle.MpscUnboundedVarHandleArrayQueue",
                "org.jctools.queues.MessagePassingQueue",
                "org.slf4j.Logger",
                "io.micrometer.core.instrument.MeterRegistry")) {
            path.add(locationOf(Class.forName(anchor, false, ModulePathTest.class.getClassLoader())));
        }
        // Micrometer's own dependencies, which its automatic module reads from the module path.
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (entry.contains("micrometer-commons") || entry.contains("micrometer-observation")
                    || entry.contains("HdrHistogram") || entry.contains("LatencyUtils")) {
                path.add(entry);
            }
        }
        return String.join(File.pathSeparator, new ArrayList<>(path));
    }

    private static String locationOf(Class<?> c) throws URISyntaxException {
        return Paths.get(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
    }
}
