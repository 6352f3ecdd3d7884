package io.github.stealpool;

import io.github.stealpool.internal.Failures;
import io.github.stealpool.internal.ForkedJob;
import io.github.stealpool.internal.Scheduler;
import io.github.stealpool.internal.Signal;
import io.github.stealpool.internal.Worker;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;

/**
 * A group of tasks that {@link WorkStealingPool#scope} waits for: every task spawned in it,
 * including tasks spawned by those tasks, has finished when {@code scope} returns.
 *
 * <pre>{@code
 * pool.scope(scope -> {
 *     for (Path file : files) {
 *         scope.spawn(() -> index(file));      // runs in parallel
 *     }
 * });                                          // returns when every index(file) is done
 * }</pre>
 *
 * <p>A spawned function that returns a value gives a handle to it, a {@link Task} to
 * {@link Task#join() join} (inside the scope, which then works while it waits) or to read once
 * the scope is done:
 *
 * <pre>{@code
 * List<Task<Index>> parts = new ArrayList<>();
 * pool.scope(scope -> {
 *     for (Path file : files) {
 *         parts.add(scope.spawn(() -> index(file))); // index returns an Index: spawn(Callable)
 *     }
 * });
 * Index all = Index.merge(parts.stream().map(Task::join).toList()); // every part is done here
 * }</pre>
 *
 * <p>If the body or any spawned task throws, {@code scope} still waits for all the others, then
 * throws the body's failure, or else the first spawned failure, with the rest attached as
 * suppressed. A scope is open while its body runs and while any of its tasks runs; spawning into
 * a finished scope is an error.
 */
public final class Scope {

    private static final VarHandle PENDING;
    private static final VarHandle FAILURE;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            PENDING = l.findVarHandle(Scope.class, "pending", int.class);
            FAILURE = l.findVarHandle(Scope.class, "failure", Failures.Thrown.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // --- accessors: access mode in the name, raw VarHandle calls only here ---

    private boolean casPending(int expect, int update) {
        return PENDING.compareAndSet(this, expect, update);
    }

    private int getAndAddPending(int delta) {
        return (int) PENDING.getAndAdd(this, delta);
    }

    private boolean casFailure(Failures.Thrown expect, Failures.Thrown update) {
        return FAILURE.compareAndSet(this, expect, update);
    }

    private final Scheduler scheduler;
    private final Signal done = new Signal();
    /** The body (until it returns) plus every spawned task not yet finished; 0 = closed. */
    private volatile int pending = 1;
    /** The first spawned task's failure. */
    private volatile Failures.Thrown failure;

    Scope(Scheduler scheduler) {
        this.scheduler = scheduler;
    }

    /**
     * Runs {@code task} in the scope's pool, possibly in parallel with the caller.
     *
     * <p>A lambda that fits both {@code spawn} methods, such as {@code () -> index(file)} for an
     * {@code index} that returns a value, or a block that only throws, goes to
     * {@link #spawn(Callable)}, as with {@code ExecutorService.submit}; one whose method returns
     * nothing comes here. Either way the scope waits for it and reports its failure. A
     * {@code null} argument needs a cast to pick one: {@code spawn((Runnable) null)}.
     *
     * @param task the work; it may spawn more tasks into this scope, and a failure it throws is
     *             reported by {@link WorkStealingPool#scope} once the scope is done
     * @throws NullPointerException  if {@code task} is null
     * @throws IllegalStateException if the scope has finished
     * @throws java.util.concurrent.RejectedExecutionException if called from outside the pool
     *         after it was shut down
     */
    public void spawn(Runnable task) {
        Objects.requireNonNull(task, "task");
        start(new Spawned(this, task));
    }

    /**
     * Runs {@code task} in the scope's pool, possibly in parallel with the caller, and returns a
     * handle to its result. The scope waits for it and reports its failure as for
     * {@link #spawn(Runnable)}; the handle has the failure too.
     *
     * <p>The handle is a {@link Task} that the scope runs: {@link Task#join()} waits for the
     * result (on a worker it works meanwhile, so a scope's body or task may join another's
     * handle), {@link Task#get()}, {@link Task#getRawResult()} and the other queries work as for
     * any task, and once the scope has returned the handle is done. It is already claimed by
     * the scope: forking, invoking or submitting it throws {@link IllegalStateException}.
     * Cancelling it (or completing it by hand) before it starts means {@code task} never runs,
     * which the scope does not count as a failure. Once it has started the function runs to its
     * end and the scope reports what it throws; the handle reports the function's outcome too,
     * unless it was cancelled or completed by hand first (the first completion wins, as for
     * any task).
     *
     * @param <T>  the result type
     * @param task the work; it may spawn more tasks into this scope, and may throw checked
     *             exceptions, which reach the scope's caller wrapped in a
     *             {@link java.util.concurrent.CompletionException}, as from {@link Task#join()}
     * @return the handle to the result
     * @throws NullPointerException  if {@code task} is null
     * @throws IllegalStateException if the scope has finished
     * @throws java.util.concurrent.RejectedExecutionException if called from outside the pool
     *         after it was shut down
     */
    public <T> Task<T> spawn(Callable<? extends T> task) {
        Objects.requireNonNull(task, "task");
        AdaptedCallable<T> handle = new AdaptedCallable<>(task);
        handle.claim(); // the scope's job runs it: nobody else may fork or submit it
        start(new SpawnedCall<>(this, handle));
        return handle;
    }

    /** Counts {@code job} in the scope, then forks it (on this scope's pool's worker) or submits it. */
    private void start(ForkedJob job) {
        for (;;) {
            int p = pending;
            if (p == 0) {
                throw new IllegalStateException("spawn() on a finished scope: spawn from the scope's "
                        + "body or from its tasks");
            }
            if (casPending(p, p + 1)) {
                break;
            }
        }
        Worker w = Worker.current();
        if (w != null && w.scheduler() == scheduler) {
            try {
                w.fork(job);
            } catch (RuntimeException | Error e) { // a full deque, out of memory
                finished(null);
                throw e;
            }
            return;
        }
        try {
            scheduler.execute(job);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            finished(null); // not accepted: it will never report (any other failure came after)
            throw e;
        }
    }

    /** A spawned task: reports to its scope however it ends. */
    private static final class Spawned implements ForkedJob {
        private final Scope scope;
        private final Runnable task;

        Spawned(Scope scope, Runnable task) {
            this.scope = scope;
            this.task = task;
        }

        @Override
        public void run() {
            Throwable f = null;
            try {
                task.run();
            } catch (Throwable t) {
                f = t;
            }
            scope.finished(f);
        }

        @Override
        public void abandon() {
            scope.finished(new CancellationException("the pool was shut down before the spawned task ran"));
        }
    }

    /**
     * A spawned function's job: runs the handle's {@code compute} unless the handle is already
     * complete, records the outcome in the handle, and reports to its scope however it ends.
     * Not through {@link Task#run()}, which would count a failure in the pool's statistics;
     * a failure inside a scope counts only if it fails the scope's task (see PoolStats).
     */
    private static final class SpawnedCall<T> implements ForkedJob {
        private final Scope scope;
        private final AdaptedCallable<T> handle;

        SpawnedCall(Scope scope, AdaptedCallable<T> handle) {
            this.scope = scope;
            this.handle = handle;
        }

        @Override
        public void run() {
            Throwable f = null;
            try {
                if (!handle.isDone()) { // cancelled or completed by hand before it started: not run
                    handle.complete(handle.compute());
                }
            } catch (Throwable t) {
                f = t;
                handle.completeExceptionally(t);
            }
            scope.finished(f);
        }

        @Override
        public void abandon() {
            CancellationException c = new CancellationException("the pool was shut down before the spawned task ran");
            handle.completeExceptionally(c);
            scope.finished(c);
        }
    }

    void finished(Throwable f) {
        if (f != null && !casFailure(null, new Failures.Thrown(f))) {
            Failures.combine(failure.failure, f);
        }
        if (getAndAddPending(-1) == 1) {
            done.set();
        }
    }

    /**
     * Runs {@code body} on worker {@code w}, then works until every spawned task is done, and
     * throws what the scope reports: an unchecked failure as it is, a checked one (a spawned
     * function's) wrapped in a CompletionException built here.
     */
    void run(Worker w, java.util.function.Consumer<? super Scope> body) {
        Throwable f = runToFailure(w, body);
        if (f != null) {
            throw Failures.rethrow(f);
        }
    }

    /**
     * As {@link #run}, but returns the failure instead of throwing it, and unwrapped: the body's
     * (thrown in this thread) with the spawned ones attached, or else the first spawned one as
     * this thread should rethrow it; null if nothing failed. For a task that runs a scope for a
     * caller in another thread: it throws the failure as it is, so that the caller's join wraps
     * a checked one once, in the caller's thread, not a wrapper made here.
     */
    Throwable runToFailure(Worker w, java.util.function.Consumer<? super Scope> body) {
        Throwable bodyFailure = null;
        try {
            body.accept(this);
        } catch (Throwable t) {
            bodyFailure = t;
        }
        finished(null);
        w.awaitLatch(done);
        Failures.Thrown spawned = failure;
        if (bodyFailure != null) { // thrown in this thread
            return Failures.combine(bodyFailure, spawned == null ? null : spawned.failure);
        }
        return spawned == null ? null : spawned.forThisThread();
    }
}
