package io.github.stealpool;

import io.github.stealpool.internal.Failures;
import io.github.stealpool.internal.LatchAlgorithm;
import io.github.stealpool.internal.TaskSecrets;
import io.github.stealpool.internal.Worker;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Collection;
import java.util.Objects;
import java.util.concurrent.Callable;
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
 * {@link #invoke()} rethrow what {@code compute} threw with its type kept if it is unchecked (a
 * RuntimeException or an Error) and wrapped in a {@link CompletionException} otherwise;
 * {@link #get()} wraps it in an {@link ExecutionException} as {@link java.util.concurrent.Future}
 * requires. A cancelled task throws {@link CancellationException}. Cancelling does not interrupt
 * a task that is already running; its result is then discarded.
 *
 * <p>An unchecked failure that another thread threw is rethrown as a new throwable of the same
 * class, built in the joining thread (so its stack trace shows where the caller joined), with
 * the same message and the original as its cause, as {@link java.util.concurrent.ForkJoinTask}
 * does; where the class offers no public constructor to build one with (or, on the module
 * path, sits in a package its module does not export), the original itself.
 * {@link #getException()} returns the original.
 *
 * <h2>Threads, and one run per task</h2>
 * {@code fork()}, {@code invoke()} and {@link #invokeAll(Task...)} are made for a pool worker,
 * that is inside another task, where they use the worker's own deque. Called from any other
 * thread they run the tasks in the {@linkplain WorkStealingPool#common() common pool}, as
 * {@code ForkJoinTask}'s run in {@code ForkJoinPool.commonPool()}: {@code fork()} submits the
 * task to it, {@code invoke()} submits it and waits, {@code invokeAll} submits them all and
 * waits for all. (Unlike {@code ForkJoinTask.invoke()}, the calling thread does not run
 * {@code compute} itself: outside a pool every fork it made would go through the pool's shared
 * queue and every join would park.) To run a task in a pool of your own from another thread,
 * use {@link WorkStealingPool#invoke(Task)} or {@link WorkStealingPool#submit(Task)}.
 * {@code join()}, {@code get()} and the completion methods work from any thread.
 *
 * <p>A task is forked, submitted or invoked at most once (create a new one for each run): a
 * second {@code fork()}, {@code invoke()} or submission (also through {@code execute} or the
 * {@code submit(Runnable)} of {@code ExecutorService}) throws {@link IllegalStateException}.
 * {@link #tryUnfork()} gives the run back to the caller that takes a fork back.
 *
 * <p>From a thread outside the pool, {@code join()} and {@code get()} need the task forked,
 * submitted, invoked, started or completed <em>before</em> the call: by this thread, or by one
 * whose action this thread has seen (through the usual happens-before, such as a queue or a
 * latch). Otherwise nothing is known to be about to run it, and they throw
 * {@link IllegalStateException} naming what to call instead ({@code pool.invoke(task)}) rather
 * than wait forever, where {@code ForkJoinTask} would. So a task that another task will fork
 * later, or that another thread will {@link #complete} later, is joined from outside only after
 * that has happened, or waited for with a timed {@link #get(long, TimeUnit)}. On a pool worker
 * {@code join()} waits, working meanwhile, as for any task.
 *
 * <h2>Coming from {@code ForkJoinTask}</h2>
 * Besides {@code fork}, {@code join}, {@code invoke} and {@code invokeAll}, the methods that
 * fork/join code uses are here, with {@code ForkJoinTask}'s semantics: {@link #quietlyJoin()},
 * {@link #quietlyInvoke()}, {@link #quietlyComplete()}, {@link #getRawResult()},
 * {@link #tryUnfork()}, and the static {@link #helpQuiesce()}, {@link #getPool()},
 * {@link #inWorkStealingPool()} ({@code inForkJoinPool()}) and {@code adapt}
 * ({@link #adapt(Callable)}, {@link #adapt(Runnable)}, {@link #adapt(Runnable, Object)}).
 * Where they differ, their documentation says so.
 *
 * @param <T> the result type
 */
public abstract class Task<T> implements RunnableFuture<T> {

    // A task is a latch (a set-once outcome that joiners wait for) without extending one: a
    // task is one object on the fork/join hot path (fib makes millions), so it keeps the latch's
    // two fields (outcome, waiters) itself, and the internal package's LatchAlgorithm runs the
    // algorithm on them through LATCH, an accessor built with this class's private VarHandles.
    // So no internal type is in Task's hierarchy (a subclass inherits nothing from the internal
    // package, and the API package's classes never appear in the internal one: no package
    // cycle), and a fork still allocates nothing beyond the task. LATCH is registered with the
    // internal package (TaskSecrets, the JDK's SharedSecrets pattern) for the sweeps that meet a
    // task as a queue entry; everywhere else Task passes it along with itself.

    private static final VarHandle CLAIMED;
    private static final VarHandle OUTCOME;
    private static final VarHandle WAITERS;
    /** The latch algorithm over {@link #outcome} and {@link #waiters}; a constant, so its calls inline. */
    private static final LatchFields LATCH;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            CLAIMED = l.findVarHandle(Task.class, "claimed", int.class);
            OUTCOME = l.findVarHandle(Task.class, "outcome", Object.class);
            WAITERS = l.findVarHandle(Task.class, "waiters", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
        LATCH = new LatchFields();
        TaskSecrets.register(LATCH); // before any Task exists: see TaskSecrets
    }

    /** Runs the static initializer if it has not run: the registration of {@link #LATCH}. */
    static void initialize() {
        // the call is the point: a static method's first call initialises its class
    }

    /** The latch's outcome: see {@code LatchAlgorithm}, "State"; only through {@link #LATCH}. */
    @SuppressWarnings("unused") // through OUTCOME
    private volatile Object outcome;
    /** The latch's waiter stack (a node of LatchAlgorithm's, or null); only through {@link #LATCH}. */
    @SuppressWarnings("unused") // through WAITERS
    private volatile Object waiters;

    /**
     * The accessors of a task's latch fields, for {@link LatchAlgorithm}: access mode in the
     * name, raw VarHandle calls only here. Private, so no subclass of Task sees it.
     */
    private static final class LatchFields extends LatchAlgorithm {
        @Override
        protected Object lvOutcome(Object task) {
            return OUTCOME.getVolatile((Task<?>) task);
        }

        @Override
        protected boolean casOutcome(Object task, Object expect, Object update) {
            return OUTCOME.compareAndSet((Task<?>) task, expect, update);
        }

        @Override
        protected void svOutcome(Object task, Object value) {
            OUTCOME.setVolatile((Task<?>) task, value);
        }

        @Override
        protected Object lvWaiters(Object task) {
            return WAITERS.getVolatile((Task<?>) task);
        }

        @Override
        protected boolean casWaiters(Object task, Object expect, Object update) {
            return WAITERS.compareAndSet((Task<?>) task, expect, update);
        }

        @Override
        protected void svWaiters(Object task, Object value) {
            WAITERS.setVolatile((Task<?>) task, value);
        }

        @Override
        protected boolean holds(Object o) {
            return o instanceof Task;
        }
    }

    // --- accessors: access mode in the name, raw VarHandle calls only here ---

    private int laClaimed() {
        return (int) CLAIMED.getAcquire(this);
    }

    private void soClaimed(int v) {
        CLAIMED.setRelease(this, v);
    }

    private void svClaimed(int v) {
        CLAIMED.setVolatile(this, v);
    }

    private boolean casClaimed(int expect, int update) {
        return CLAIMED.compareAndSet(this, expect, update);
    }

    /**
     * {@link #OWED} once the task was forked, submitted or invoked (something will run it),
     * {@link #RAN} once its run started; {@link #FREE} before, and again after a
     * {@link #tryUnfork} or a {@link #reinitialize}. Any value but FREE refuses another claim.
     * A misuse check, not part of running the task, so the hot paths keep it cheap: fork, invoke
     * and invokeAll (on a worker, usually on the task they just created) read and write it
     * plainly, which catches every second claim that the program orders after the first (the
     * same thread, or any hand-off of the task between threads: the deque's release store
     * publishes the write to a thief). Two threads claiming the same task at the same instant
     * is a data race in the caller that may go unseen (the task may then run twice, one result
     * kept). Submissions from outside ({@link #claim}) use a CAS, off the hot path. A CAS of
     * a plain field through a VarHandle is fine: an int is read and written whole.
     */
    private int claimed;
    /** {@link #claimed}: nothing will run the task (new, taken back, or reinitialized). */
    private static final int FREE = 0;
    /** {@link #claimed}: forked, submitted or invoked; its run has not started. */
    private static final int OWED = 1;
    /**
     * {@link #claimed}: its run started, or the queued entry of a task completed before it ran
     * came out and did nothing: no entry of it is left in any queue (what
     * {@link #reinitialize} needs).
     */
    private static final int RAN = 2;

    /** For subclasses: a new task, not yet forked, submitted or run. */
    protected Task() {
    }

    /**
     * The work. Runs at most once, on some pool worker.
     *
     * @return the task's result, which {@link #join()}, {@link #invoke()} and {@link #get()} return
     */
    protected abstract T compute();

    /**
     * Called by {@link #run()} when it finds the task complete already (cancelled or completed
     * before its run): the queued entry is spent. Off the hot path; package-private, so only
     * this package's tasks override it ({@link TimeLimitedTask} drops its timer entry there).
     */
    void completedBeforeRun() {
    }

    /** Runs {@link #compute()} unless the task is already complete, and records the outcome. */
    @Override
    public final void run() {
        if (LATCH.isSet(this)) {
            if (claimed == OWED) {
                // The queued entry of a task cancelled or completed early: now spent. Released,
                // for a reinitialize in another thread (off the hot path: such tasks are rare).
                soClaimed(RAN);
            }
            completedBeforeRun();
            return;
        }
        claimed = RAN; // plainly: the outcome's CAS publishes it to whoever sees the task done
        try {
            LATCH.trySetResult(this, compute());
        } catch (Throwable ex) {
            try {
                Worker.taskFailed();
            } finally { // even out of stack entering it: the outcome must be recorded
                LATCH.trySetFailure(this, ex);
            }
        }
    }

    /**
     * Pushes this task on the calling worker's deque, where it waits to be run by this worker
     * (at {@link #join()}) or stolen by another. Called from a thread that is no pool's worker,
     * it submits the task to the {@linkplain WorkStealingPool#common() common pool} instead, as
     * {@code ForkJoinTask.fork()} does; {@link #join()} then waits for it from any thread.
     *
     * @return this task
     * @throws IllegalStateException if the task was already forked, submitted or invoked
     */
    public final Task<T> fork() {
        Worker w = Worker.current();
        if (w == null) {
            if (!claim()) {
                throw alreadyClaimed("fork()");
            }
            WorkStealingPool.common().executeClaimed(this);
            return this;
        }
        if (!claimHere()) {
            throw alreadyClaimed("fork()");
        }
        w.forkTask(this); // its release store publishes the claim with the task
        return this;
    }

    /** Claims the task's one run for a submission (atomically); false if already claimed. */
    final boolean claim() {
        return casClaimed(FREE, OWED);
    }

    /** Claims the task's one run on the hot paths (see {@link #claimed}); false if claimed. */
    private boolean claimHere() {
        if (claimed != FREE) {
            return false;
        }
        claimed = OWED;
        return true;
    }

    /** Gives back a claim whose submission was rejected: nothing will run the task. */
    final void unclaim() {
        svClaimed(FREE);
    }

    /**
     * Off the pool: submits this task to the common pool, claiming it first, and waits for it,
     * ignoring interrupts as {@link #join()} does.
     */
    private void runInCommon(String what) {
        if (!claim()) {
            throw alreadyClaimed(what);
        }
        WorkStealingPool.common().executeClaimed(this);
        LATCH.awaitUninterruptibly(this);
    }

    final IllegalStateException alreadyClaimed(String what) {
        return new IllegalStateException(what + " on a task that was already forked, submitted or "
                + "invoked: a Task runs at most once; create a new one for each run (" + this + ")");
    }

    private IllegalStateException neverStarted(String what) {
        return new IllegalStateException(what + " from a thread outside the pool on a task that was "
                + "never forked or submitted would wait forever: use pool.invoke(task), or "
                + "pool.submit(task) and then " + what + " (" + this + ")");
    }

    /**
     * Waits for the task and returns its result; on a worker, works while it waits.
     *
     * @return what {@code compute} returned, or the value given to {@link #complete}
     * @throws CancellationException if the task was cancelled
     * @throws CompletionException   wrapping a checked exception thrown by {@code compute}
     * @throws IllegalStateException called outside the pool on a task never forked or submitted
     */
    public final T join() {
        if (!LATCH.isSet(this)) {
            Worker w = Worker.current();
            if (w != null && w.tryUnfork(this)) {
                return runHere(); // nobody stole it: the common case
            }
            if (w == null && claimed == FREE && !LATCH.isSet(this)) { // re-read: completed by hand meanwhile?
                throw neverStarted("join()");
            }
            awaitDone();
        }
        return report();
    }

    /** Runs the task in the joiner's thread and returns its outcome without re-reading it. */
    private T runHere() {
        T r;
        claimed = RAN; // as run() does
        try {
            r = compute();
        } catch (Throwable ex) {
            try {
                Worker.taskFailed();
            } finally { // even out of stack entering it: the outcome must be recorded
                LATCH.trySetFailure(this, ex);
            }
            return report(); // whichever outcome won: ours, or a concurrent cancel/complete
        }
        return LATCH.trySetResult(this, r) ? r : report();
    }

    /**
     * Waits for the task as {@link #join()} does (on a worker: runs it if nobody stole it,
     * otherwise works while it waits), but neither returns its result nor throws its failure:
     * read them afterwards with {@link #getRawResult()}, {@link #getException()},
     * {@link #isCompletedNormally()} or {@link #join()} (which then returns at once), as with
     * {@code ForkJoinTask.quietlyJoin()}.
     *
     * @throws IllegalStateException called outside the pool on a task never forked or submitted
     *                               (as {@code join()}: it would wait forever)
     */
    public final void quietlyJoin() {
        if (!LATCH.isSet(this)) {
            if (claimed == FREE && !LATCH.isSet(this) && Worker.current() == null) {
                throw neverStarted("quietlyJoin()");
            }
            awaitDone();
        }
    }

    /**
     * Runs the task in the calling worker and returns its result, as {@code fork(); join()}
     * would without the round trip through the deque. Called from a thread that is no pool's
     * worker, it runs the task in the {@linkplain WorkStealingPool#common() common pool} and
     * waits for it, as {@code WorkStealingPool.common().invoke(task)}.
     *
     * @return what {@code compute} returned
     * @throws CancellationException if the task was cancelled
     * @throws CompletionException   wrapping a checked exception thrown by {@code compute}
     * @throws IllegalStateException if the task was already forked, submitted or invoked
     */
    public final T invoke() {
        if (Worker.current() == null) {
            runInCommon("invoke()");
            return report();
        }
        if (!claimHere()) {
            throw alreadyClaimed("invoke()");
        }
        run();
        return report();
    }

    /**
     * Runs the task as {@link #invoke()} does, but neither returns its result nor throws its
     * failure, as {@code ForkJoinTask.quietlyInvoke()}: read them afterwards as after
     * {@link #quietlyJoin()}.
     *
     * @throws IllegalStateException if the task was already forked, submitted or invoked
     */
    public final void quietlyInvoke() {
        if (Worker.current() == null) {
            runInCommon("quietlyInvoke()");
            return;
        }
        if (!claimHere()) {
            throw alreadyClaimed("quietlyInvoke()");
        }
        run();
    }

    /**
     * Forks all but the first task, runs the first, and joins the others; returns when all are
     * done. If any failed, throws the first failure (in argument order) with the later ones
     * attached as suppressed. Called from a thread that is no pool's worker, it submits them
     * all to the {@linkplain WorkStealingPool#common() common pool} and waits for every one,
     * with the same failure reporting.
     *
     * @param tasks the tasks to run, none of them forked, submitted or invoked before
     * @throws NullPointerException  if {@code tasks} or an element is null (before anything runs)
     * @throws IllegalStateException if a task was already forked, submitted or invoked, or
     *                               appears twice (before anything runs)
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
     * @param <C>   the type of the collection
     * @param tasks the tasks to run, in the collection's iteration order
     * @return {@code tasks}, every task in it done
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
        Worker w = Worker.current();
        if (w == null) {
            invokeAllIn(WorkStealingPool.common(), tasks);
            return;
        }
        for (int i = 0; i < n; i++) { // all or nothing: claim every task before running any
            if (!tasks[i].claimHere()) {
                for (int j = 0; j < i; j++) {
                    tasks[j].claimed = FREE;
                }
                throw tasks[i].alreadyClaimed("invokeAll() of tasks[" + i + "]");
            }
        }
        // Fork from the last so that the second task ends on top of the deque: joining in
        // argument order then takes each back from the bottom, newest first.
        for (int i = n - 1; i >= 1; i--) {
            w.forkTask(tasks[i]);
        }
        tasks[0].run();
        awaitAll(tasks);
    }

    /**
     * {@code invokeAll} from a thread that is not a worker of {@code pool}: claims every task
     * (all or nothing), submits them all to {@code pool}, and waits for all of them.
     */
    static void invokeAllIn(WorkStealingPool pool, Task<?>[] tasks) {
        int n = tasks.length;
        for (int i = 0; i < n; i++) {
            if (!tasks[i].claim()) {
                for (int j = 0; j < i; j++) {
                    tasks[j].unclaim();
                }
                throw tasks[i].alreadyClaimed("invokeAll() of tasks[" + i + "]");
            }
        }
        for (int i = 0; i < n; i++) {
            try {
                pool.executeClaimed(tasks[i]);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // The pool shut down meanwhile: the ones not submitted are free again, the
                // submitted ones are cancelled. One that already started runs to its end in
                // the pool, its outcome dropped (cancel does not interrupt, as for any Task).
                for (int j = i; j < n; j++) {
                    tasks[j].unclaim();
                }
                for (int j = 0; j < i; j++) {
                    tasks[j].cancel(false);
                }
                for (int j = 0; j < i; j++) {
                    tasks[j].awaitDone();
                }
                throw e;
            }
        }
        awaitAll(tasks);
    }

    /**
     * Waits for every task, in order, then throws the first failure (in argument order) with
     * the later ones attached to it as suppressed, if any failed.
     */
    private static void awaitAll(Task<?>[] tasks) {
        Task<?> firstFailed = null;
        for (Task<?> t : tasks) {
            t.awaitDone();
            Throwable f = LATCH.failure(t);
            if (firstFailed == null) {
                firstFailed = f != null ? t : null;
            } else {
                Failures.combine(LATCH.failure(firstFailed), f);
            }
        }
        if (firstFailed != null) {
            throw Failures.rethrow(LATCH.failureForThisThread(firstFailed));
        }
    }

    // ------------------------------------------------------------------ ForkJoinTask's statics

    /**
     * Runs tasks until the pool looks quiescent, as {@code ForkJoinTask.helpQuiesce()}: for
     * designs that fork many tasks and join none, waiting for all of them at the end.
     *
     * <p>On a pool worker it runs tasks (its own forks first, then the pool's queue, then
     * stolen ones) until no task is queued anywhere in its pool and every other worker is idle;
     * then every task forked before the call, and every task those forked, has run. With
     * nothing to run it polls, backing off to parks of up to a millisecond. From any other
     * thread it waits (without running tasks) until the {@linkplain WorkStealingPool#common()
     * common pool} is quiescent, if the common pool exists, as {@code ForkJoinTask} does for
     * threads outside a pool; otherwise it returns at once.
     *
     * <p>"Quiescent" is only as exact as it can be while tasks come from elsewhere: a task
     * submitted from outside the pool, or completed by a thread outside it, may make the pool
     * busy again at any moment. A worker parked in a join counts as idle (what it waits for is
     * queued or run by a worker that is not). Interrupts are kept, not acted on; after
     * {@code shutdownNow} it returns at once.
     */
    public static void helpQuiesce() {
        Worker w = Worker.current();
        if (w != null) {
            w.helpQuiesce();
            return;
        }
        WorkStealingPool common = WorkStealingPool.commonIfCreated();
        if (common != null) {
            common.awaitQuiescence();
        }
    }

    /**
     * The number of tasks forked by the calling worker that wait in its deque (not yet run,
     * taken back or stolen), as {@code ForkJoinTask.getQueuedTaskCount()}: an estimate, since
     * other workers may steal them at any moment.
     *
     * @return the calling worker's queued forks, or 0 on a thread that is no pool's worker
     */
    public static int getQueuedTaskCount() {
        Worker w = Worker.current();
        return w == null ? 0 : w.queuedTasks();
    }

    /**
     * An estimate of how many more tasks the calling worker holds than the other workers are
     * likely to steal, as {@code ForkJoinTask.getSurplusQueuedTaskCount()}: its queued forks
     * less a small reserve that grows as fewer of the pool's workers are awake (none while more
     * than half are awake, up to 8 when almost all sleep). It drives the usual way to split a
     * recursion adaptively: keep splitting while the surplus is small, compute directly once it
     * is large enough, for example
     *
     * <pre>{@code
     * if (hi - lo > MIN && Task.getSurplusQueuedTaskCount() <= 3) { split and fork }
     * else { compute directly }
     * }</pre>
     *
     * @return the surplus, which may be negative; 0 on a thread that is no pool's worker
     */
    public static int getSurplusQueuedTaskCount() {
        Worker w = Worker.current();
        return w == null ? 0 : w.surplusQueuedTasks();
    }

    /**
     * The pool whose worker is the calling thread, as {@code ForkJoinTask.getPool()}.
     *
     * @return the {@link WorkStealingPool} the calling thread works for (the common pool
     *         included), or null if it is no pool's worker
     */
    public static WorkStealingPool getPool() {
        Worker w = Worker.current();
        return w == null ? null : (WorkStealingPool) w.scheduler().owner(); // the pool set it
    }

    /**
     * Whether the calling thread is a worker of a {@link WorkStealingPool} (the common pool
     * included), where {@link #fork()} uses the worker's own deque: the counterpart of
     * {@code ForkJoinTask.inForkJoinPool()}.
     *
     * @return true on a pool worker, inside a task or not; false on any other thread
     */
    public static boolean inWorkStealingPool() {
        return Worker.current() != null;
    }

    /**
     * A task whose {@code compute} calls {@code callable}, as {@code ForkJoinTask.adapt(Callable)}:
     * to fork, invoke or submit code that is not a {@code Task}. An exception the callable throws,
     * checked or not, becomes the task's failure as it is: {@link #get()} throws an
     * {@link ExecutionException} with it as the cause; {@link #join()} and {@link #invoke()}
     * rethrow it with its class if it is unchecked and wrapped in a {@link CompletionException}
     * if it is checked.
     *
     * @param <T>      the result type
     * @param callable the work; called at most once
     * @return a new task, not yet forked, submitted or run
     * @throws NullPointerException if {@code callable} is null
     */
    public static <T> Task<T> adapt(Callable<? extends T> callable) {
        return new AdaptedCallable<>(Objects.requireNonNull(callable, "callable"));
    }

    /**
     * A task whose {@code compute} runs {@code runnable} and returns null, as
     * {@code ForkJoinTask.adapt(Runnable)}; what it throws is its failure, as for
     * {@link #adapt(Callable)}.
     *
     * @param runnable the work; run at most once
     * @return a new task, not yet forked, submitted or run
     * @throws NullPointerException if {@code runnable} is null
     */
    public static Task<Void> adapt(Runnable runnable) {
        return new AdaptedRunnable<>(Objects.requireNonNull(runnable, "runnable"), null);
    }

    /**
     * A task whose {@code compute} runs {@code runnable} and returns {@code result}, as
     * {@code ForkJoinTask.adapt(Runnable, Object)}; what it throws is its failure, as for
     * {@link #adapt(Callable)}.
     *
     * @param <T>      the result type
     * @param runnable the work; run at most once
     * @param result   what the task returns once {@code runnable} has run (may be null)
     * @return a new task, not yet forked, submitted or run
     * @throws NullPointerException if {@code runnable} is null
     */
    public static <T> Task<T> adapt(Runnable runnable, T result) {
        return new AdaptedRunnable<>(Objects.requireNonNull(runnable, "runnable"), result);
    }

    // ------------------------------------------------------------------ Future

    /**
     * Waits for the task and returns its result; on a worker, works while it waits.
     *
     * @throws CancellationException if the task was cancelled
     * @throws ExecutionException    if {@code compute} threw
     * @throws InterruptedException  if the calling thread is interrupted before the task is done
     *                               or while it waits (checked first, as {@code FutureTask} and
     *                               {@code ForkJoinTask} do), or the waiting worker's pool is
     *                               stopped by {@code shutdownNow}
     * @throws IllegalStateException called outside the pool, not interrupted, on a task never
     *                               forked or submitted
     */
    @Override
    public final T get() throws InterruptedException, ExecutionException {
        if (!LATCH.isSet(this)) {
            if (Thread.interrupted()) { // before the misuse check: a cancelled caller leaves
                throw new InterruptedException();
            }
            if (claimed == FREE && !LATCH.isSet(this) && Worker.current() == null) {
                throw neverStarted("get()");
            }
        }
        LATCH.await(this, -1L);
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
        if (w != null && !LATCH.isSet(this) && w.tryUnfork(this)) {
            run();
        }
        if (!LATCH.await(this, Math.max(0L, unit.toNanos(timeout)))) {
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
        return LATCH.tryCancel(this);
    }

    @Override
    public final boolean isCancelled() {
        return LATCH.failure(this) instanceof CancellationException;
    }

    @Override
    public final boolean isDone() {
        return LATCH.isSet(this);
    }

    /** {@return true if the task completed without throwing and without being cancelled} */
    public final boolean isCompletedNormally() {
        return LATCH.isSet(this) && LATCH.failure(this) == null;
    }

    /** {@return true if the task threw, was cancelled or was completed exceptionally} */
    public final boolean isCompletedAbnormally() {
        return LATCH.failure(this) != null;
    }

    /** {@return what the task threw (a CancellationException if cancelled), or null} */
    public final Throwable getException() {
        return LATCH.failure(this);
    }

    /**
     * Completes the task with {@code value} unless it is complete already, and wakes whoever
     * waits for it; the task then never runs {@code compute}.
     *
     * @param value the result that joiners get
     * @return true if this call completed the task
     */
    public final boolean complete(T value) {
        return LATCH.trySetResult(this, value);
    }

    /**
     * Completes the task with {@code failure} unless it is complete already.
     *
     * @param failure what joiners get thrown, as if {@code compute} had thrown it
     * @return true if this call completed the task
     * @throws NullPointerException if {@code failure} is null
     */
    public final boolean completeExceptionally(Throwable failure) {
        return LATCH.trySetFailure(this, Objects.requireNonNull(failure, "failure"));
    }

    /**
     * Completes the task normally with a null result unless it is complete already, as
     * {@code ForkJoinTask.quietlyComplete()}: joiners get null, and {@code compute} never runs if
     * it has not started. For tasks that leave their result elsewhere (an array, a field) and
     * are done by other means.
     */
    public final void quietlyComplete() {
        LATCH.trySetResult(this, null);
    }

    /**
     * The result if the task completed normally, else null (not done, failed or cancelled);
     * never waits and never throws, as {@code ForkJoinTask.getRawResult()} of a
     * {@code RecursiveTask}. A null result and no result look alike here:
     * {@link #isCompletedNormally()} tells them apart.
     *
     * @return what {@code compute} returned or {@link #complete} gave, or null
     */
    @SuppressWarnings("unchecked")
    public final T getRawResult() {
        return (T) LATCH.result(this);
    }

    /**
     * Takes this task back if it is still at the bottom of the calling worker's deque: the
     * calling worker forked it (or submitted it from inside a task), no task it pushed later is
     * still there above it, and nobody stole or ran it. Then nothing will run it unless the
     * caller does, as with {@code ForkJoinTask.tryUnfork()}, and the usual next step runs it
     * right here:
     *
     * <pre>{@code
     * long r = t.tryUnfork() ? t.invoke() : t.join();   // or t.compute(), which records nothing
     * }</pre>
     *
     * <p>Taking a task back gives its one run back (see the class description): it counts as
     * never forked, so it may be invoked, forked or submitted again, once; a thread outside the
     * pool that joins it meanwhile is told it would wait forever. In the pool's
     * {@linkplain WorkStealingPool#stats() statistics} the fork counts as completed when it is
     * taken back, as a join that takes its fork back to run it counts it, so completed still
     * equals submitted at quiescence: running it with {@code invoke()} then counts nothing
     * more, forking it again counts one submission and one completion more. Off a pool worker
     * it returns false (the common pool's shared queue gives nothing back, unlike
     * {@code ForkJoinPool}'s).
     *
     * @return true if the task was taken back; false if it is not at the bottom of the calling
     *         worker's deque (stolen, running, done and gone, under later forks, never forked
     *         here) or the caller is no pool worker
     */
    public final boolean tryUnfork() {
        Worker w = Worker.current();
        if (w == null || !w.tryUnfork(this)) {
            return false;
        }
        // Out of the deque by the owner's own pop, so in this thread's hands alone: the claim
        // goes back with a plain write, as the hot paths make it (see claimed).
        claimed = FREE;
        return true;
    }

    /**
     * Makes a completed task new again, so that it can be forked, submitted or invoked once
     * more, as {@code ForkJoinTask.reinitialize()}: iterative code that reruns the same tasks
     * (a relaxation, a time step) keeps its objects instead of allocating new ones. Its outcome
     * (result, failure or cancellation) is forgotten. A task never started is left as it is.
     *
     * <p>Call it only once the task's run has returned and nobody waits for it or completes it,
     * typically in the task that joined it: a join or a {@code complete} racing this call may
     * see the old outcome or lose the new one (as with {@code ForkJoinTask}, whose result is
     * then undefined).
     *
     * @throws IllegalStateException if the task is forked, submitted or running and not done
     */
    public final void reinitialize() {
        boolean done = LATCH.isSet(this); // first: its volatile read orders a RAN before it
        int c = laClaimed();
        if (!done) {
            if (c != FREE) {
                throw new IllegalStateException("reinitialize() on a task that is forked, submitted "
                        + "or running and not done yet: join it first (" + this + ")");
            }
            return; // never started: new already
        }
        if (c == OWED && !tryUnfork()) {
            // Done before its run: its entry, still queued, would run the new task a second time.
            throw new IllegalStateException("reinitialize() on a task cancelled or completed "
                    + "while still queued, before the pool took it out (or swept by "
                    + "shutdownNow): create a new task, or reinitialize it once its pool has "
                    + "taken it out of its queue (" + this + ")");
        }
        LATCH.reset(this);
        claimed = FREE; // plainly, as tryUnfork gives a claim back: the next fork's release publishes it
    }

    // ------------------------------------------------------------------ internals

    private void awaitDone() {
        if (LATCH.isSet(this)) {
            return;
        }
        Worker w = Worker.current();
        if (w == null) {
            LATCH.awaitUninterruptibly(this);
        } else if (w.tryUnfork(this)) {
            run(); // nobody stole it: the common case, no synchronisation beyond the deque
        } else {
            w.awaitLatch(LATCH, this);
        }
    }

    @SuppressWarnings("unchecked")
    private T report() {
        Throwable f = LATCH.failureForThisThread(this);
        if (f != null) {
            throw Failures.rethrow(f);
        }
        return (T) LATCH.result(this);
    }

    @SuppressWarnings("unchecked")
    private T reportForFuture() throws ExecutionException {
        Throwable f = LATCH.failure(this);
        if (f instanceof CancellationException) {
            throw (CancellationException) LATCH.failureForThisThread(this);
        }
        if (f != null) {
            throw new ExecutionException(f);
        }
        return (T) LATCH.result(this);
    }

    @Override
    public String toString() {
        String state = !LATCH.isSet(this) ? "pending" : isCancelled() ? "cancelled"
                : isCompletedAbnormally() ? "failed: " + LATCH.failure(this) : "done";
        return getClass().getName() + "[" + state + "]";
    }
}
