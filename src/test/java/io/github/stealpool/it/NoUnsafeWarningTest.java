package io.github.stealpool.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.stealpool.WorkStealingPool;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * On JDK 24+ the first use of {@code sun.misc.Unsafe}'s memory access prints a warning to
 * stderr. The pool must not cause one: it runs a burst big enough to use every queue path in a
 * fresh JVM (the same java that runs this test, so CI's JDK 25 run checks it for real) and reads
 * that JVM's stderr.
 */
class NoUnsafeWarningTest {

    /** Runs in the child JVM. */
    public static void main(String[] args) throws Exception {
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build()) {
            for (int i = 0; i < 200_000; i++) {
                pool.execute(() -> { });
            }
            pool.submit(() -> pool.execute(() -> { })).get();
            System.out.println("burst done");
        }
    }

    @Test
    void aBurstPrintsNothingToStandardError() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path err = Files.createTempFile("stealpool-stderr", ".txt");
        Path out = Files.createTempFile("stealpool-stdout", ".txt");
        try {
            Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                    "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", NoUnsafeWarningTest.class.getName())
                    .redirectError(err.toFile()).redirectOutput(out.toFile()).start();
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "child JVM hung");
            assertEquals(0, p.exitValue(), Files.readString(err, StandardCharsets.UTF_8));
            assertTrue(Files.readString(out, StandardCharsets.UTF_8).contains("burst done"));
            String stderr = Files.readString(err, StandardCharsets.UTF_8);
            assertFalse(stderr.contains("sun.misc.Unsafe"), stderr);
            assertFalse(stderr.contains("WARNING"), stderr);
        } finally {
            Files.deleteIfExists(err);
            Files.deleteIfExists(out);
        }
    }
}
