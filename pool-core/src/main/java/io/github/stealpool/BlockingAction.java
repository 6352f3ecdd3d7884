package io.github.stealpool;

/**
 * A call that may block its thread and returns nothing, such as {@code Thread.sleep(200)}, for
 * {@link WorkStealingPool#blocking(BlockingAction)}; the value-returning form is
 * {@link BlockingCall}.
 *
 * @param <X> the checked exception the call may throw ({@link RuntimeException} when none)
 */
@FunctionalInterface
public interface BlockingAction<X extends Exception> {

    /**
     * Runs the call.
     *
     * @throws X what the call throws
     */
    void run() throws X;
}
