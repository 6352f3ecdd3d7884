package io.github.stealpool.internal;

import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;

/**
 * The call of a {@code submitWithTimeout} task in a pool with a task decorator
 * ({@code Builder.taskDecorator}): the task calls this {@link Callable} in place of its own,
 * which runs the decorated form of the call and returns what the call returned. The decorator
 * gets this object as the {@code Runnable} to wrap: its {@link #run} makes the call. Made only
 * on the decorated path, so a time-limited task without a decorator is no larger for it.
 *
 * <p>A decorated {@code Runnable} that returns without running the task would leave the task
 * completed with null, as if the call had returned it: {@link #call} tells that apart and fails
 * the task with an {@link IllegalStateException} naming the decorator. ({@code submit}'s future
 * has no such guard: it never completes, as under Spring's executors.)
 *
 * <p>{@link #result} and {@link #called} are written and read by the thread running the task:
 * the decorated {@code Runnable} runs the call inside {@link #call}.
 */
public final class DecoratedCall<T> implements Callable<T>, Runnable, TaskWrapper {

    private final Callable<? extends T> callable;
    private final Runnable decorated;
    private T result;
    private boolean called;

    private DecoratedCall(Callable<? extends T> callable, UnaryOperator<Runnable> decorator) {
        this.callable = callable;
        this.decorated = DecoratedTask.decorated(decorator, this);
    }

    /**
     * {@code callable} decorated by {@code decorator}, called in the submitting thread; what the
     * decorator throws reaches the caller as it is.
     *
     * @throws NullPointerException if the decorator returned null
     */
    public static <T> Callable<T> of(UnaryOperator<Runnable> decorator, Callable<? extends T> callable) {
        return new DecoratedCall<>(callable, decorator);
    }

    /**
     * Runs the decorated call and returns its result; the call's failure passes through the
     * decorator as it would through a task's.
     *
     * @throws IllegalStateException if the decorated {@code Runnable} returned without running
     *                               the call
     */
    @Override
    public T call() {
        decorated.run();
        if (!called) {
            throw new IllegalStateException("taskDecorator did not run the task: the Runnable it returned ("
                    + decorated.getClass().getName() + ") returned without calling the task it was given ("
                    + callable + "); a decorator must run its task once per call");
        }
        T r = result;
        result = null; // the task keeps it; this object need not
        return r;
    }

    /** The call, as the decorated {@code Runnable} runs it: its failure is thrown as it is. */
    @Override
    public void run() {
        called = true;
        try {
            result = callable.call();
        } catch (Exception e) {
            throw Failures.throwAsIs(e);
        }
    }

    /** The class of the call as submitted, for the flight-recorder events. */
    @Override
    public Class<?> taskClass() {
        return TaskWrapper.classOf(callable);
    }

    @Override
    public String toString() {
        return callable.toString();
    }
}
