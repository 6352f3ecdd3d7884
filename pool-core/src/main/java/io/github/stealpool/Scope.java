package io.github.stealpool;

import io.github.stealpool.internal.Failures;
import io.github.stealpool.internal.ForkedJob;
import io.github.stealpool.internal.Scheduler;
import io.github.stealpool.internal.Signal;
import io.github.stealpool.internal.Worker;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;
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
     * @param task the work; it may spawn more tasks into this scope, and a failure it throws is
     *             reported by {@link WorkStealingPool#scope} once the scope is done
     * @throws NullPointerException  if {@code task} is null
     * @throws IllegalStateException if the scope has finished
     * @throws java.util.concurrent.RejectedExecutionException if called from outside the pool
     *         after it was shut down
     */
    public void spawn(Runnable task) {
        Objects.requireNonNull(task, "task");
        for (;;) {
            int p = pending;
            if (p == 0) {
                throw new IllegalStateException("spawn() on a finished scope: spawn from the scope's "
                        + "body or from its tasks");
            }
            if (PENDING.compareAndSet(this, p, p + 1)) {
                break;
            }
        }
        Spawned job = new Spawned(this, task);
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

    void finished(Throwable f) {
        if (f != null && !FAILURE.compareAndSet(this, null, new Failures.Thrown(f))) {
            Failures.combine(failure.failure, f);
        }
        if ((int) PENDING.getAndAdd(this, -1) == 1) {
            done.set();
        }
    }

    /** Runs {@code body} on worker {@code w}, then works until every spawned task is done. */
    void run(Worker w, java.util.function.Consumer<? super Scope> body) {
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
            throw Failures.rethrow(Failures.combine(bodyFailure, spawned == null ? null : spawned.failure));
        }
        if (spawned != null) {
            throw Failures.rethrow(spawned.forThisThread());
        }
    }
}
