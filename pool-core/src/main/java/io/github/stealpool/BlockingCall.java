package io.github.stealpool;

/**
 * A call that may block its thread (I/O, a lock, a sleep, a queue's {@code take}) and returns a
 * value, for {@link WorkStealingPool#blocking(BlockingCall)}. Like {@link java.util.concurrent.Callable},
 * but the exception it throws is a type parameter, so that {@code blocking(() -> queue.take())}
 * throws only {@link InterruptedException} and {@code blocking(() -> compute())} nothing checked.
 *
 * @param <V> the result type
 * @param <X> the checked exception the call may throw ({@link RuntimeException} when none)
 */
@FunctionalInterface
public interface BlockingCall<V, X extends Exception> {

    /**
     * Runs the call.
     *
     * @return the result
     * @throws X what the call throws
     */
    V call() throws X;
}
