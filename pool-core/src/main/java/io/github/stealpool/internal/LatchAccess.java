package io.github.stealpool.internal;

/**
 * The operations of a {@link Latch}, for {@code io.github.stealpool.Task}: they are
 * package-private in Latch so that a user's subclass of Task inherits none of them (see Latch,
 * "Why nothing here is public or protected"), and Task, in another package, reaches them here.
 * This package is not exported by the module; each method is one call the JIT inlines. On the
 * class path any code can call it, as it can any public class of an internal package: it is no
 * API, and completing a {@code Task<Long>} with a String through it breaks that task's joiner.
 */
public final class LatchAccess {

    private LatchAccess() {
    }

    /** See {@link Latch#isSet()}. */
    public static boolean isSet(Latch latch) {
        return latch.isSet();
    }

    /** See {@link Latch#result()}. */
    public static Object result(Latch latch) {
        return latch.result();
    }

    /** See {@link Latch#failure()}. */
    public static Throwable failure(Latch latch) {
        return latch.failure();
    }

    /** See {@link Latch#failureForThisThread()}. */
    public static Throwable failureForThisThread(Latch latch) {
        return latch.failureForThisThread();
    }

    /** See {@link Latch#trySetResult(Object)}. */
    public static boolean trySetResult(Latch latch, Object value) {
        return latch.trySetResult(value);
    }

    /** See {@link Latch#trySetFailure(Throwable)}. */
    public static boolean trySetFailure(Latch latch, Throwable failure) {
        return latch.trySetFailure(failure);
    }

    /** See {@link Latch#tryCancel()}. */
    public static boolean tryCancel(Latch latch) {
        return latch.tryCancel();
    }

    /** See {@link Latch#awaitUninterruptibly()}. */
    public static void awaitUninterruptibly(Latch latch) {
        latch.awaitUninterruptibly();
    }

    /** See {@link Latch#reset()}. */
    public static void reset(Latch latch) {
        latch.reset();
    }

    /** See {@link Latch#await(long)}. */
    public static boolean await(Latch latch, long nanos) throws InterruptedException {
        return latch.await(nanos);
    }
}
