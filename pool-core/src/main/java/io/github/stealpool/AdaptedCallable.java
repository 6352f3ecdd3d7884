package io.github.stealpool;

import io.github.stealpool.internal.Failures;
import java.util.concurrent.Callable;

/**
 * What {@link Task#adapt(Callable)} returns, and the handle of a value-returning
 * {@link Scope#spawn(Callable)}: a task whose {@code compute} calls a {@link Callable}.
 */
final class AdaptedCallable<T> extends Task<T> {

    private final Callable<? extends T> callable;

    AdaptedCallable(Callable<? extends T> callable) {
        this.callable = callable;
    }

    /**
     * Calls the callable. A checked exception leaves as it is, although {@code compute} declares
     * none ({@link Failures#throwAsIs}): {@code run} records whatever {@code compute} throws as
     * the task's failure, so {@code get()} gives it as the cause of an ExecutionException and
     * {@code join()} wraps it in a CompletionException, as for
     * {@code ForkJoinTask.adapt(Callable)}, whose task catches it instead. Wrapping it here
     * would make every caller unwrap it twice.
     */
    @Override
    protected T compute() {
        try {
            return callable.call();
        } catch (Exception e) {
            throw Failures.throwAsIs(e);
        }
    }

    @Override
    public String toString() {
        return super.toString() + "[callable " + callable + "]";
    }
}
