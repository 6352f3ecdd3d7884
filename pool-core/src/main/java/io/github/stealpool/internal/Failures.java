package io.github.stealpool.internal;

import java.lang.ref.WeakReference;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;

/**
 * How a failure recorded in one thread is rethrown in another, and how a failure nobody waits
 * for (a task run by {@code execute}) is reported.
 */
public final class Failures {

    private Failures() {
    }

    /**
     * A failure and the thread it was thrown in, for whoever rethrows it later, maybe in another
     * thread ({@link #forThisThread()}).
     */
    public static class Thrown {
        public final Throwable failure;
        /**
         * Weak, as {@code ForkJoinTask} keeps only an id: a failed task kept after its pool
         * closed must not pin the dead worker thread, and through it the whole pool.
         */
        private final WeakReference<Thread> thrower;

        /** Records {@code failure} as thrown in the calling thread. */
        public Thrown(Throwable failure) {
            this.failure = failure;
            this.thrower = new WeakReference<>(Thread.currentThread());
        }

        /** True if the calling thread is the one that recorded the failure. */
        public boolean thrownHere() {
            return thrower.get() == Thread.currentThread();
        }

        /** As {@link Failures#forThisThread(Throwable, boolean)}. */
        public Throwable forThisThread() {
            return Failures.forThisThread(failure, thrownHere());
        }
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

    /**
     * {@code original} as the calling thread should rethrow it. If it was thrown in another
     * thread ({@code thrownHere} false) and is unchecked, this returns a new throwable of
     * exactly the same class, built in the calling thread (so its stack trace shows where the
     * caller joined), with the same message and {@code original} as its cause, as {@code ForkJoinTask} does: a
     * caller that catches by type still catches it, and the log shows both threads' frames. The
     * copy is made through the class's public constructor taking {@code (String, Throwable)},
     * else {@code (Throwable)}, else {@code (String)} or {@code ()} followed by
     * {@code initCause}. When no such copy can be made (no such constructor, a non-public class,
     * a constructor that throws, no memory) the original is returned. A checked exception is
     * returned as it is: {@link #rethrow} wraps it in a {@code CompletionException}, which is
     * already built in the calling thread.
     *
     * <p>A copy is used only if it is of exactly that class and has {@code original} as its
     * cause (a constructor that drops the cause would lose the original's stack trace and
     * suppressed failures). Fields of the class's own are not copied, as with
     * {@code ForkJoinTask}: code that reads them should use {@code getCause()} or
     * {@code getException()}.
     *
     * @param thrownHere whether the calling thread threw {@code original} (then no copy)
     */
    public static Throwable forThisThread(Throwable original, boolean thrownHere) {
        if (original == null || thrownHere
                || !(original instanceof RuntimeException || original instanceof Error)) {
            return original;
        }
        try {
            Throwable copy = copyOf(original);
            return copy != null && copy.getClass() == original.getClass()
                    && copy.getCause() == original ? copy : original;
        } catch (Throwable cannotCopy) { // reflection refused, the constructor threw, no memory
            return original;
        }
    }

    private static Throwable copyOf(Throwable original) throws ReflectiveOperationException {
        Class<? extends Throwable> type = original.getClass();
        String message = original.getMessage();
        java.lang.reflect.Constructor<?> ofMessage = null;
        java.lang.reflect.Constructor<?> ofNothing = null;
        java.lang.reflect.Constructor<?> ofCause = null;
        for (java.lang.reflect.Constructor<?> c : type.getConstructors()) {
            Class<?>[] ps = c.getParameterTypes();
            if (ps.length == 2 && ps[0] == String.class && ps[1] == Throwable.class) {
                return (Throwable) c.newInstance(message, original);
            } else if (ps.length == 1 && ps[0] == Throwable.class) {
                ofCause = c;
            } else if (ps.length == 1 && ps[0] == String.class) {
                ofMessage = c;
            } else if (ps.length == 0) {
                ofNothing = c;
            }
        }
        if (ofCause != null && message == null) {
            return (Throwable) ofCause.newInstance(original); // its message would be the cause's
        }
        Throwable copy;
        if (ofMessage != null) {
            copy = (Throwable) ofMessage.newInstance(message);
        } else if (ofNothing != null && message == null) {
            copy = (Throwable) ofNothing.newInstance();
        } else if (ofCause != null) {
            return (Throwable) ofCause.newInstance(original);
        } else if (ofNothing != null) {
            copy = (Throwable) ofNothing.newInstance(); // loses the message; the cause keeps it
        } else {
            return null;
        }
        copy.initCause(original); // throws if the constructor set a cause: then no copy
        return copy;
    }

    /**
     * Throws {@code t} as it is, checked or not, from a method that declares no checked
     * exception: for a task's {@code compute}, whose throwable {@code Task.run} records as the
     * task's failure as it is, so that {@code get()} gives a checked one as the cause of its
     * ExecutionException and {@code join()} wraps it once, in the joining thread. Declared to
     * return so callers can write {@code throw Failures.throwAsIs(t)}.
     */
    public static RuntimeException throwAsIs(Throwable t) {
        throw Failures.<RuntimeException>asUnchecked(t);
    }

    @SuppressWarnings("unchecked")
    private static <E extends Throwable> E asUnchecked(Throwable t) throws E {
        throw (E) t; // erased to Throwable: nothing checks the cast, and javac takes E for unchecked
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

    /**
     * A task run by {@code execute} threw: hand it to the builder's handler, else to the worker
     * thread's own uncaught-exception handler, as the thread would if the task had ended it (so
     * the JVM's default prints it, and a default handler set with
     * {@link Thread#setDefaultUncaughtExceptionHandler} sees it, as with a
     * {@code ThreadPoolExecutor}). Either way the worker carries on. SLF4J hears only of a
     * handler that itself throws.
     *
     * @param log            the scheduler's logger, passed in: this class keeps no static state,
     *                       so a first use deep in a stack cannot fail its initialisation and
     *                       leave it unusable for good
     * @param poolName       for the log line
     * @param failureHandler the builder's handler, or null for the thread's own
     * @param task           the task as queued (a timed or decorated wrapper is unwrapped for
     *                       the log)
     * @param ex             what it threw
     */
    static void reportUncaught(Logger log, String poolName,
                               Thread.UncaughtExceptionHandler failureHandler, Runnable task,
                               Throwable ex) {
        Thread self = Thread.currentThread();
        // Never null: a running thread always has a handler or a thread group.
        Thread.UncaughtExceptionHandler handler = failureHandler != null
                ? failureHandler : self.getUncaughtExceptionHandler();
        try {
            handler.uncaughtException(self, ex);
            return;
        } catch (Throwable handlerFailure) {
            try {
                ex.addSuppressed(handlerFailure);
            } catch (Throwable ignored) {
                // out of memory: log the task's failure alone
            }
        }
        try {
            log.warn("{}: task {} threw and the uncaught-exception handler failed; the worker carries on",
                    poolName, TaskTimer.unwrap(task).getClass().getName(), ex);
        } catch (Throwable ignored) {
            // Logging failed (out of memory?): nothing more we can do without killing the worker.
        }
    }
}
