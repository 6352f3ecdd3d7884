package io.github.stealpool;

import io.github.stealpool.internal.Failures;
import io.github.stealpool.internal.ForkedJob;
import io.github.stealpool.internal.Latch;
import io.github.stealpool.internal.Worker;
import java.util.Collection;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A piece of divide-and-conquer work for a {@link WorkStealingPool}: subclass it, implement
 * {@link #compute()}, and inside {@code compute} split the work with {@link #fork()} and
 * {@link #join()}, as with {@link java.util.concurrent.RecursiveTask}:
 *
 * <pre>{@code
 * class Fib extends Task<Long> {
 *     final int n;
 *     Fib(int n) { this.n = n; }
 *     protected Long compute() {
 *         if (n < 2) return (long) n;
 *         Fib f1 = new Fib(n - 1);
 *         f1.fork();                                  // on this worker's deque; others may steal it
 *         return new Fib(n - 2).compute() + f1.join(); // join helps: runs f1 here if nobody stole it
 *     }
 * }
 * long fib40 = pool.invoke(new Fib(40));
 * }</pre>
 *
 * <h2>Joining helps</h2>
 * {@link #join()} on a worker never just blocks while there is work: if the task is still on the
 * worker's own deque it runs it right there; if another worker stole it, it runs other tasks
 * (its own forks, then the pool's queue, then stolen ones) until the task is done, and sleeps in
 * the pool's idle protocol only when there is none. Nested waits stop stealing past a fixed depth
 * so that helping cannot overflow the stack.
 *
 * <h2>Outcome</h2>
 * A task completes once: by running, by {@link #cancel}, by {@link #complete} or
 * {@link #completeExceptionally}; later attempts change nothing. {@link #join()} and
 * {@link #invoke()} rethrow what {@code compute} threw as itself if it is unchecked (a
 * RuntimeException or an Error) and wrapped in a {@link CompletionException} otherwise;
 * {@link #get()} wraps it in an {@link ExecutionException} as {@link java.util.concurrent.Future}
 * requires. A cancelled task throws {@link CancellationException}. Cancelling does not interrupt
 * a task that is already running; its result is then discarded.
 *
 * <h2>Threads</h2>
 * {@code fork()} and {@code invoke()} run on a pool worker, that is inside another task; from
 * any other thread use {@link WorkStealingPool#invoke(Task)} or {@link WorkStealingPool#submit(Task)}.
 * {@code join()}, {@code get()} and the completion methods work from any thread. Fork a task at
 * most once.
 *
 * @param <T> the result type
 */
public abstract class Task<T> extends Latch implements RunnableFuture<T>, ForkedJob {

    protected Task() {
    }

    /** The work. Runs at most once, on some pool worker. */
    protected abstract T compute();

    /** Runs {@link #compute()} unless the task is already complete, and records the outcome. */
    @Override
    public final void run() {
        if (isSet()) {
            return;
        }
        try {
            trySetResult(compute());
        } catch (Throwable ex) {
            trySetFailure(ex);
        }
    }

    /**
     * Pushes this task on the calling worker's deque, where it waits to be run by this worker
     * (at {@link #join()}) or stolen by another.
     *
     * @return this task
     * @throws IllegalStateException if the calling thread is not a pool worker
     */
    public final Task<T> fork() {
        Worker w = Worker.current();
        if (w == null) {
            throw new IllegalStateException("fork() needs a pool worker: call it inside a task, or "
                    + "use pool.submit(task) or pool.invoke(task) from other threads");
        }
        w.fork(this);
        return this;
    }

    /**
     * Waits for the task and returns its result; on a worker, works while it waits.
     *
     * @throws CancellationException if the task was cancelled
     * @throws CompletionException   wrapping a checked exception thrown by {@code compute}
     */
    public final T join() {
        if (!isSet()) {
            Worker w = Worker.current();
            if (w != null && w.tryUnfork(this)) {
                return runHere(); // nobody stole it: the common case
            }
            awaitDone();
        }
        return report();
    }

    /** Runs the task in the joiner's thread and returns its outcome without re-reading it. */
    private T runHere() {
        T r;
        try {
            r = compute();
        } catch (Throwable ex) {
            trySetFailure(ex);
            return report(); // whichever outcome won: ours, or a concurrent cancel/complete
        }
        return trySetResult(r) ? r : report();
    }

    /**
     * Runs the task in the calling worker and returns its result, as {@code fork(); join()}
     * would without the round trip through the deque.
     *
     * @throws IllegalStateException if the calling thread is not a pool worker
     */
    public final T invoke() {
        if (Worker.current() == null) {
            throw new IllegalStateException("invoke() runs the task in the calling worker; "
                    + "from other threads use pool.invoke(task)");
        }
        run();
        return report();
    }

    /**
     * Forks all but the first task, runs the first, and joins the others; returns when all are
     * done. If any failed, throws the first failure (in argument order) with the later ones
     * attached as suppressed.
     *
     * @throws NullPointerException  if {@code tasks} or an element is null (before anything runs)
     * @throws IllegalStateException if the calling thread is not a pool worker
     */
    public static void invokeAll(Task<?>... tasks) {
        Objects.requireNonNull(tasks, "tasks");
        for (int i = 0; i < tasks.length; i++) {
            if (tasks[i] == null) {
                throw new NullPointerException("tasks[" + i + "] is null");
            }
        }
        runAll(tasks);
    }

    /**
     * As {@link #invokeAll(Task...)} for a collection; returns it.
     *
     * @throws NullPointerException if {@code tasks} or an element is null (before anything runs)
     */
    public static <C extends Collection<? extends Task<?>>> C invokeAll(C tasks) {
        Objects.requireNonNull(tasks, "tasks");
        Task<?>[] array = tasks.toArray(new Task<?>[0]);
        invokeAll(array);
        return tasks;
    }

    private static void runAll(Task<?>[] tasks) {
        int n = tasks.length;
        if (n == 0) {
            return;
        }
        if (n > 1 && Worker.current() == null) {
            throw new IllegalStateException("invokeAll() needs a pool worker: call it inside a task");
        }
        // Fork from the last so that the second task ends on top of the deque: joining in
        // argument order then takes each back from the bottom, newest first.
        for (int i = n - 1; i >= 1; i--) {
            tasks[i].fork();
        }
        tasks[0].run();
        Throwable failure = tasks[0].failure();
        for (int i = 1; i < n; i++) {
            tasks[i].awaitDone();
            failure = Failures.combine(failure, tasks[i].failure());
        }
        if (failure != null) {
            throw Failures.rethrow(failure);
        }
    }

    // ------------------------------------------------------------------ Future

    /**
     * Waits for the task and returns its result; on a worker, works while it waits.
     *
     * @throws CancellationException if the task was cancelled
     * @throws ExecutionException    if {@code compute} threw
     * @throws InterruptedException  if a thread outside the pool is interrupted while waiting
     */
    @Override
    public final T get() throws InterruptedException, ExecutionException {
        await(-1L);
        return reportForFuture();
    }

    /**
     * As {@link #get()}, giving up after {@code timeout}. On a worker it runs the task itself if
     * the task is still at the bottom of the worker's deque (then the call may outlast the
     * timeout); otherwise it waits without running other tasks, which could not be abandoned
     * when the time is up.
     *
     * @throws TimeoutException     if the task is not done in time
     * @throws NullPointerException if {@code unit} is null
     */
    @Override
    public final T get(long timeout, TimeUnit unit)
            throws InterruptedException, ExecutionException, TimeoutException {
        Objects.requireNonNull(unit, "unit");
        Worker w = Worker.current();
        if (w != null && !isSet() && w.tryUnfork(this)) {
            run();
        }
        if (!await(Math.max(0L, unit.toNanos(timeout)))) {
            throw new TimeoutException("task not done after " + timeout + " " + unit);
        }
        return reportForFuture();
    }

    /**
     * Cancels the task if it is not complete yet. A task already running is not interrupted
     * (it may be running on top of another task's stack); it runs on and its result is dropped.
     *
     * @param mayInterruptIfRunning ignored, for the reason above
     * @return true if this call cancelled the task
     */
    @Override
    public final boolean cancel(boolean mayInterruptIfRunning) {
        return tryCancel();
    }

    @Override
    public final boolean isCancelled() {
        return failure() instanceof CancellationException;
    }

    @Override
    public final boolean isDone() {
        return isSet();
    }

    /** True if the task completed without throwing and without being cancelled. */
    public final boolean isCompletedNormally() {
        return isSet() && failure() == null;
    }

    /** True if the task threw or was cancelled. */
    public final boolean isCompletedAbnormally() {
        return failure() != null;
    }

    /** What the task threw (a CancellationException if cancelled), or null. */
    public final Throwable getException() {
        return failure();
    }

    /**
     * Completes the task with {@code value} unless it is complete already, and wakes whoever
     * waits for it; the task then never runs {@code compute}.
     *
     * @return true if this call completed the task
     */
    public final boolean complete(T value) {
        return trySetResult(value);
    }

    /**
     * Completes the task with {@code failure} unless it is complete already.
     *
     * @return true if this call completed the task
     * @throws NullPointerException if {@code failure} is null
     */
    public final boolean completeExceptionally(Throwable failure) {
        return trySetFailure(Objects.requireNonNull(failure, "failure"));
    }

    /** Internal: the pool drops a forked task at {@code shutdownNow}; it is cancelled. */
    @Override
    public final void abandon() {
        tryCancel();
    }

    // ------------------------------------------------------------------ internals

    private void awaitDone() {
        if (isSet()) {
            return;
        }
        Worker w = Worker.current();
        if (w == null) {
            awaitUninterruptibly();
        } else if (w.tryUnfork(this)) {
            run(); // nobody stole it: the common case, no synchronisation beyond the deque
        } else {
            w.awaitLatch(this);
        }
    }

    @SuppressWarnings("unchecked")
    private T report() {
        Throwable f = failure();
        if (f != null) {
            throw Failures.rethrow(f);
        }
        return (T) result();
    }

    @SuppressWarnings("unchecked")
    private T reportForFuture() throws ExecutionException {
        Throwable f = failure();
        if (f instanceof CancellationException) {
            throw (CancellationException) f;
        }
        if (f != null) {
            throw new ExecutionException(f);
        }
        return (T) result();
    }

    @Override
    public String toString() {
        String state = !isSet() ? "pending" : isCancelled() ? "cancelled"
                : isCompletedAbnormally() ? "failed: " + failure() : "done";
        return getClass().getName() + "[" + state + "]";
    }
}
