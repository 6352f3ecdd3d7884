package io.github.stealpool;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** What a test expects printed to {@code System.err} (slf4j-simple's warnings) is captured and asserted on. */
final class StandardError {

    private StandardError() {
    }

    /**
     * Runs {@code body} with {@code System.err} captured, and returns what was printed to it:
     * what a test checks there is asserted on, not shown in the build's output. The pools in
     * {@code body} must be closed inside it, so that nothing prints after it returns.
     */
    static String of(ThrowingRunnable body) throws Exception {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            body.run();
        } finally {
            System.setErr(err);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    @FunctionalInterface
    interface ThrowingRunnable {
        void run() throws Exception;
    }
}
