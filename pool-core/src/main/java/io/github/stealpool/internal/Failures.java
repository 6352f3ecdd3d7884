package io.github.stealpool.internal;

import java.util.concurrent.CompletionException;

/** How a failure recorded in one thread is rethrown in another. */
public final class Failures {

    private Failures() {
    }

    /**
     * Throws {@code t} as itself if it is unchecked (a RuntimeException or an Error), else
     * wrapped in a {@link CompletionException}. Declared to return so callers can write
     * {@code throw Failures.rethrow(t)}.
     */
    public static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException) {
            throw (RuntimeException) t;
        }
        if (t instanceof Error) {
            throw (Error) t;
        }
        throw new CompletionException(t);
    }

    /** Attaches {@code second} to {@code first} as suppressed, unless they are the same. */
    public static Throwable combine(Throwable first, Throwable second) {
        if (first == null) {
            return second;
        }
        if (second != null && second != first) {
            first.addSuppressed(second);
        }
        return first;
    }
}
