package io.github.stealpool;

/**
 * What {@link Task#adapt(Runnable)} and {@link Task#adapt(Runnable, Object)} return: a task
 * whose {@code compute} runs a {@link Runnable} and returns a fixed result.
 */
final class AdaptedRunnable<T> extends Task<T> {

    private final Runnable runnable;
    private final T result;

    AdaptedRunnable(Runnable runnable, T result) {
        this.runnable = runnable;
        this.result = result;
    }

    @Override
    protected T compute() {
        runnable.run();
        return result;
    }

    @Override
    public String toString() {
        return super.toString() + "[runnable " + runnable + "]";
    }
}
