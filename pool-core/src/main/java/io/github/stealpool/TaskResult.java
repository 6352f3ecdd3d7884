package io.github.stealpool;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The {@link Future} that {@code submit(task, result)} returns when {@code task} is a
 * {@link Task}: the task itself is what runs (so {@code shutdownNow} cancels it as the fork/join
 * piece it is, and a joiner of the task is released), and this view answers for it with
 * {@code result}. Cancelling the view cancels the task.
 */
final class TaskResult<T> implements Future<T> {

    private final Task<?> task;
    private final T result;

    TaskResult(Task<?> task, T result) {
        this.task = task;
        this.result = result;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        return task.cancel(mayInterruptIfRunning);
    }

    @Override
    public boolean isCancelled() {
        return task.isCancelled();
    }

    @Override
    public boolean isDone() {
        return task.isDone();
    }

    @Override
    public T get() throws InterruptedException, ExecutionException {
        task.get();
        return result;
    }

    @Override
    public T get(long timeout, TimeUnit unit)
            throws InterruptedException, ExecutionException, TimeoutException {
        task.get(timeout, unit);
        return result;
    }
}
