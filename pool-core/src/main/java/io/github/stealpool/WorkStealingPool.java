package io.github.stealpool;

import io.github.stealpool.internal.DecoratedCall;
import io.github.stealpool.internal.DecoratedTask;
import io.github.stealpool.internal.DelayScheduler;
import io.github.stealpool.internal.Failures;
import io.github.stealpool.internal.Join;
import io.github.stealpool.internal.PoolFutureTask;
import io.github.stealpool.internal.Quiescence;
import io.github.stealpool.internal.RangeLoop;
import io.github.stealpool.internal.RangeLoops;
import io.github.stealpool.internal.Scheduler;
import io.github.stealpool.internal.SchedulerConfig;
import io.github.stealpool.internal.StealableRange;
import io.github.stealpool.internal.Worker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RunnableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import java.util.function.BinaryOperator;
import java.util.function.DoubleBinaryOperator;
import java.util.function.IntConsumer;
import java.util.function.LongBinaryOperator;
import java.util.function.LongConsumer;
import java.util.function.LongFunction;
import java.util.function.LongToDoubleFunction;
import java.util.function.LongUnaryOperator;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * A work-stealing thread pool: a drop-in {@link ExecutorService} that is faster than
 * {@link Executors#newFixedThreadPool(int)} on small tasks because its workers do not share one
 * locked queue.
 *
 * <p>Each worker owns a deque. A task submitted by one of the pool's own workers (from inside a
 * task) goes on that worker's deque, which it serves newest first; a task submitted from any
 * other thread goes to a global injection queue. An idle worker looks in its own deque, then in
 * the injection queue, then steals the oldest task of another worker chosen at random. Workers
 * with nothing to do spin briefly, then park; a parked pool uses no CPU, and each new task
 * wakes at most one parked worker.
 *
 * <pre>{@code
 * ExecutorService pool = WorkStealingPool.builder().parallelism(4).build();
 * Future<Integer> answer = pool.submit(() -> 6 * 7);
 * pool.shutdown();
 * }</pre>
 *
 * <h2>Behaviour, as {@link ExecutorService} specifies it</h2>
 * <ul>
 *   <li>Tasks run in no particular order; none is run twice.</li>
 *   <li>{@link #shutdown()}: queued tasks still run, new ones are rejected with
 *       {@link RejectedExecutionException}. {@link #shutdownNow()}: returns the tasks that never
 *       started and interrupts the running ones. After termination no pool thread is alive.</li>
 *   <li>A task run by {@link #execute} that throws does not harm its worker: the throwable goes
 *       to the builder's {@link Thread.UncaughtExceptionHandler} if one is set, else to the
 *       worker thread's own ({@link Thread#getUncaughtExceptionHandler()}), as if the task had
 *       ended the thread: the JVM's default prints the stack trace, and a handler set with
 *       {@link Thread#setDefaultUncaughtExceptionHandler} sees it, as with
 *       {@link Executors#newFixedThreadPool}. The worker carries on. Tasks run by
 *       {@code submit} report it through their {@link java.util.concurrent.Future}.</li>
 *   <li>A task's interrupt status is cleared before the next task runs on the same worker.</li>
 *   <li>Tasks that block (I/O, sleeps, locks) hold their worker, as in a fixed thread pool,
 *       unless they block inside {@link #blocking(BlockingCall)}: then a spare thread runs
 *       tasks in the blocked worker's place, up to {@link Builder#maxSpareThreads}.</li>
 *   <li>Delayed and periodic tasks ({@link ScheduledExecutorService}) behave as in
 *       {@link java.util.concurrent.ScheduledThreadPoolExecutor} with its defaults, and run
 *       on the workers: see {@link #schedule(Runnable, long, TimeUnit)}.</li>
 *   <li>A {@linkplain Builder#taskDecorator task decorator}, as Spring's
 *       {@code TaskDecorator}, wraps each submitted task in the submitting thread, to carry
 *       its context ({@code ThreadLocal}s, a logging MDC) to the worker.</li>
 * </ul>
 *
 * <p>{@link #common()} is a pool shared by the whole JVM, created on first use, where
 * {@link Task#fork()}, {@link Task#invoke()} and {@link Task#invokeAll(Task...)} run when they
 * are called from a thread that is no pool's worker; it cannot be shut down.
 */
public final class WorkStealingPool extends AbstractExecutorService
        implements ScheduledExecutorService, AutoCloseable {

    /** Largest parallelism a pool accepts (as {@link java.util.concurrent.ForkJoinPool}). */
    public static final int MAX_PARALLELISM = 0x7fff;

    /** Default first batch of a range loop. */
    public static final long DEFAULT_MIN_BATCH = 1;

    /** Default largest batch of a range loop (MAXSTEP). */
    public static final long DEFAULT_MAX_BATCH = 1024;

    /**
     * Default bound on the spare threads that stand in for workers blocked in
     * {@link #blocking(BlockingCall)}: 256, as {@code ForkJoinPool}'s common pool allows.
     */
    public static final int DEFAULT_MAX_SPARE_THREADS = 256;

    /**
     * Default time an idle spare thread waits, with no blocked worker to stand in for, before
     * it ends: 60 seconds, as {@code ForkJoinPool} and {@code Executors.newCachedThreadPool}.
     */
    public static final Duration DEFAULT_SPARE_KEEP_ALIVE = Duration.ofSeconds(60);

    private static final AtomicInteger POOL_IDS = new AtomicInteger();

    /** Prefix of the common pool's thread names: {@code stealpool-common-worker-0}, ... */
    private static final String COMMON_NAME = "stealpool-common";

    /** The common pool once it exists, for callers that must not create it (helpQuiesce). */
    private static volatile WorkStealingPool commonIfCreated;

    private final Scheduler scheduler;
    private final long minBatch;
    private final long maxBatch;
    /** True for {@link #common()}, which ignores shutdown requests. */
    private final boolean common;
    /**
     * {@link Builder#taskDecorator}, or null: then a submission pays this one null check, and
     * forks never read it.
     */
    private final UnaryOperator<Runnable> taskDecorator;

    private WorkStealingPool(Builder b) {
        this.minBatch = b.minBatch;
        this.maxBatch = b.maxBatch;
        this.common = b.common;
        this.taskDecorator = b.taskDecorator;
        String name = b.threadNamePrefix != null
                ? b.threadNamePrefix
                : "stealpool-" + POOL_IDS.incrementAndGet();
        this.scheduler = new Scheduler(new SchedulerConfig(b.parallelism, name, b.threadFactory,
                b.daemon != null && b.daemon, b.uncaughtExceptionHandler,
                b.idleStrategy.spinRounds(), b.idleStrategy.yieldRounds(), b.fifo,
                b.maxSpareThreads, b.spareKeepAlive.toNanos(), b.maxQueuedSubmissions,
                policyCode(b.saturationPolicy)));
        scheduler.setCancelDelayedTasksOnShutdown(b.cancelDelayedTasksOnShutdown);
        scheduler.setOwner(this); // before start(): Task.getPool() on a worker reads it
        // Task registers its latch accessor (internal.TaskSecrets) as it initialises: here,
        // before start(), so every worker thread follows it, and a failure of Task's
        // initialisation fails this pool alone, not every pool's class.
        Task.initialize();
        scheduler.start();
    }

    /**
     * A builder with the defaults: parallelism {@code availableProcessors()}, non-daemon threads.
     *
     * @return a new builder; each call returns a fresh one
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * A pool with the default settings, the same as {@code builder().build()}.
     *
     * @return a new pool whose workers are already started
     */
    public static WorkStealingPool create() {
        return builder().build();
    }

    // ------------------------------------------------------------------ blocking calls

    /**
     * Runs a call that may block (I/O, a lock, a sleep, {@code Future.get()} of work outside
     * the pool) and returns its result. Called on a worker of a {@code WorkStealingPool}, it
     * keeps {@code parallelism} threads free to run tasks while the call blocks: if fewer spare
     * threads are alive than workers inside blocking calls, it starts one, which runs tasks
     * (the pool's queue, the blocked worker's deque, any other) for as long as a worker is
     * blocked, then ends, after its current task or once idle for the
     * {@linkplain Builder#spareKeepAlive keep-alive}. So tasks that
     * each sleep 200 ms overlap instead of taking turns on {@code parallelism} workers, and
     * workers that block on tasks still queued do not stall the pool.
     *
     * <p>The spares are bounded by {@link Builder#maxSpareThreads} (default
     * {@value #DEFAULT_MAX_SPARE_THREADS}). Past the bound, or once the pool is stopping
     * ({@link #shutdownNow()}), or if a thread cannot be created, the call simply blocks its
     * worker, uncompensated: it never throws for running out, where {@code ForkJoinPool}'s
     * {@code managedBlock} throws {@code RejectedExecutionException}. After {@link #shutdown()}
     * the queued tasks only need to drain: a spare is started only when no other thread is
     * free to run them. Once the call returns, the
     * pool may run more than {@code parallelism} tasks at once until a spare no longer needed
     * finishes the task it runs (and that task's own forks): then it ends, or, with nothing to
     * do, waits out its keep-alive for the next blocking call. A nested {@code blocking} call on
     * the same thread counts once. Not needed around {@code join}, {@code invoke} or
     * {@code Future.get()} of this pool's own tasks: on a worker they run other tasks while they
     * wait, and a spare would only add a thread.
     * Off the pool (any other thread) it just runs the call.
     *
     * <p>The exception type is a parameter, not {@code Exception} as in
     * {@link java.util.concurrent.Callable}, so that the caller handles only what its call
     * throws: {@code blocking(() -> queue.take())} throws {@link InterruptedException}, and
     * {@code blocking(() -> Files.readString(path))} {@link java.io.IOException}. The call's
     * exceptions, and its interrupt status, pass through unchanged.
     *
     * <pre>{@code
     * pool.submit(() -> {
     *     String page = WorkStealingPool.blocking(() -> httpClient.send(request, ofString()).body());
     *     return parse(page);                  // CPU work, on a full complement of workers
     * });
     * }</pre>
     *
     * @param <V>  the call's result type
     * @param <X>  the checked exception the call throws
     * @param call the blocking call
     * @return what {@code call} returned
     * @throws X                    what {@code call} threw
     * @throws NullPointerException if {@code call} is null
     */
    public static <V, X extends Exception> V blocking(BlockingCall<V, X> call) throws X {
        Objects.requireNonNull(call, "call");
        Worker w = Worker.current();
        if (w == null) {
            return call.call();
        }
        w.beginBlocking();
        try {
            return call.call();
        } finally {
            w.endBlocking();
        }
    }

    /**
     * As {@link #blocking(BlockingCall)}, for a call that returns nothing, such as
     * {@code blocking(() -> Thread.sleep(200))}.
     *
     * @param <X>    the checked exception the call throws
     * @param action the blocking call
     * @throws X                    what {@code action} threw
     * @throws NullPointerException if {@code action} is null
     */
    public static <X extends Exception> void blocking(BlockingAction<X> action) throws X {
        Objects.requireNonNull(action, "action");
        Worker w = Worker.current();
        if (w == null) {
            action.run();
            return;
        }
        w.beginBlocking();
        try {
            action.run();
        } finally {
            w.endBlocking();
        }
    }

    /**
     * The common pool, shared by the whole JVM: where {@link Task#fork()}, {@link Task#invoke()},
     * {@link Task#invokeAll(Task...)} and their quiet forms run when called from a thread that
     * is no pool's worker, as {@code ForkJoinPool.commonPool()} is for {@code ForkJoinTask}
     * (and Rayon's global pool for {@code rayon::join}). Any code may also use it directly, for
     * work that needs no pool of its own.
     *
     * <p>It is created on the first call (by this method or by one of those off-pool calls), not
     * before: a program that never uses it starts no thread for it. It has the defaults of
     * {@link #builder()} except for its threads, which are daemon threads (it never keeps the
     * JVM alive) named {@code stealpool-common-worker-0}, {@code -1}, ...; its parallelism is
     * {@code Runtime.getRuntime().availableProcessors()} at that moment.
     *
     * <p>It lives as long as the JVM, as {@code ForkJoinPool.commonPool()} does, so that no user
     * of it can stop it for the others: {@link #shutdown()} and {@link #close()} have no effect
     * on it, {@link #shutdownNow()} neither and returns an empty list, {@link #isShutdown()} and
     * {@link #isTerminated()} answer false, {@link #awaitTermination} waits until the pool is
     * quiescent (or the timeout passes) and answers false, and {@link #terminationFuture()}
     * never completes.
     *
     * @return the common pool, the same instance on every call
     */
    public static WorkStealingPool common() {
        return CommonPool.POOL;
    }

    /** The holder idiom: the JVM creates the pool when common() first reads it, exactly once. */
    private static final class CommonPool {
        static final WorkStealingPool POOL = createCommon();

        private CommonPool() {
        }

        private static WorkStealingPool createCommon() {
            Builder b = builder().daemon(true).threadNamePrefix(COMMON_NAME);
            b.common = true;
            WorkStealingPool pool = b.build();
            commonIfCreated = pool;
            return pool;
        }
    }

    /** The scheduler's code for {@code policy}: the internal package does not know the enum. */
    private static int policyCode(SaturationPolicy policy) {
        switch (policy) {
            case CALLER_RUNS: return SchedulerConfig.CALLER_RUNS;
            case BLOCK: return SchedulerConfig.BLOCK;
            default: return SchedulerConfig.ABORT;
        }
    }

    /** The common pool if it was created, else null; never creates it. */
    static WorkStealingPool commonIfCreated() {
        return commonIfCreated;
    }

    // ------------------------------------------------------------------ ExecutorService

    /**
     * Runs {@code command} on some worker at some time. A {@link Task} given here counts as
     * submitted (see {@link #submit(Task)}).
     *
     * @throws NullPointerException       if {@code command} is null
     * @throws RejectedExecutionException if the pool is shut down, or, from outside the pool,
     *                                    at the bound of {@link Builder#maxQueuedSubmissions}
     *                                    (see {@link SaturationPolicy})
     * @throws IllegalStateException      if {@code command} is a {@link Task} that was already
     *                                    forked, submitted or invoked
     */
    @Override
    public void execute(Runnable command) {
        Objects.requireNonNull(command, "command");
        if (command instanceof Task) {
            executeTask((Task<?>) command);
        } else {
            UnaryOperator<Runnable> d = taskDecorator;
            // Every submit, invokeAll and invokeAny comes here with its future: decorated in the
            // submitting thread, before anything is queued or counted (Builder.taskDecorator).
            scheduler.execute(d == null ? command : DecoratedTask.entry(d, command));
        }
    }

    /** Submits a Task as itself, claiming it first (see Task: one run per task). */
    private void executeTask(Task<?> task) {
        if (!task.claim()) {
            throw task.alreadyClaimed("submitting");
        }
        executeClaimed(task);
    }

    /** Submits a Task whose run the caller has claimed; gives the claim back if rejected. */
    void executeClaimed(Task<?> task) {
        try {
            scheduler.execute(task);
        } catch (RejectedExecutionException e) {
            task.unclaim(); // rejected, so nothing will run it (any other failure came after)
            throw e;
        }
    }

    /**
     * As {@link ExecutorService#submit(Callable)}.
     *
     * @throws NullPointerException       if {@code task} is null
     * @throws RejectedExecutionException if the pool is shut down
     */
    @Override
    public <T> Future<T> submit(Callable<T> task) {
        return super.submit(Objects.requireNonNull(task, "task"));
    }

    /**
     * As {@link ExecutorService#submit(Runnable)}. A {@link Task} is submitted as itself and
     * returned (it is its own Future), as {@code ForkJoinPool} does: see {@link #submit(Task)}.
     *
     * @throws NullPointerException       if {@code task} is null
     * @throws RejectedExecutionException if the pool is shut down
     * @throws IllegalStateException      if {@code task} is a {@link Task} that was already
     *                                    forked, submitted or invoked
     */
    @Override
    public Future<?> submit(Runnable task) {
        Objects.requireNonNull(task, "task");
        if (task instanceof Task) {
            executeTask((Task<?>) task);
            return (Task<?>) task;
        }
        return super.submit(task);
    }

    /**
     * As {@link ExecutorService#submit(Runnable, Object)}. A {@link Task} is submitted as itself
     * (see {@link #submit(Task)}); the Future returned answers {@code result} once it is done,
     * and cancelling it cancels the task.
     *
     * @throws NullPointerException       if {@code task} is null ({@code result} may be)
     * @throws RejectedExecutionException if the pool is shut down
     * @throws IllegalStateException      if {@code task} is a {@link Task} that was already
     *                                    forked, submitted or invoked
     */
    @Override
    public <T> Future<T> submit(Runnable task, T result) {
        Objects.requireNonNull(task, "task");
        if (task instanceof Task) {
            executeTask((Task<?>) task);
            return new TaskResult<>((Task<?>) task, result);
        }
        return super.submit(task, result);
    }

    /**
     * As {@link ExecutorService#invokeAll(Collection)}.
     *
     * @throws NullPointerException if {@code tasks} or any of its elements is null, checked
     *                              before any task is submitted
     */
    @Override
    public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> tasks) throws InterruptedException {
        return super.invokeAll(checkTasks(tasks));
    }

    /**
     * As {@link ExecutorService#invokeAll(Collection, long, TimeUnit)}.
     *
     * @throws NullPointerException if {@code tasks}, any of its elements or {@code unit} is null,
     *                              checked before any task is submitted
     */
    @Override
    public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
            throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        return super.invokeAll(checkTasks(tasks), timeout, unit);
    }

    /**
     * As {@link ExecutorService#invokeAny(Collection)}.
     *
     * @throws NullPointerException     if {@code tasks} or any of its elements is null, checked
     *                                  before any task is submitted (the JDK's default checks an
     *                                  element only when it reaches it, which varies by JDK)
     * @throws IllegalArgumentException if {@code tasks} is empty
     */
    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks) throws InterruptedException, ExecutionException {
        return super.invokeAny(checkNonEmptyTasks(tasks));
    }

    /**
     * As {@link ExecutorService#invokeAny(Collection, long, TimeUnit)}.
     *
     * @throws NullPointerException     if {@code tasks}, any of its elements or {@code unit} is
     *                                  null, checked before any task is submitted
     * @throws IllegalArgumentException if {@code tasks} is empty
     */
    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
            throws InterruptedException, ExecutionException, TimeoutException {
        Objects.requireNonNull(unit, "unit");
        return super.invokeAny(checkNonEmptyTasks(tasks), timeout, unit);
    }

    private static <C extends Collection<?>> C checkNonEmptyTasks(C tasks) {
        if (checkTasks(tasks).isEmpty()) {
            throw new IllegalArgumentException("tasks is empty: invokeAny needs at least one task");
        }
        return tasks;
    }

    private static <C extends Collection<?>> C checkTasks(C tasks) {
        Objects.requireNonNull(tasks, "tasks");
        int i = 0;
        for (Object t : tasks) {
            if (t == null) {
                throw new NullPointerException("tasks[" + i + "] is null");
            }
            i++;
        }
        return tasks;
    }

    /**
     * Starts an orderly shutdown: tasks already accepted still run, new ones are rejected. No
     * effect on the {@link #common()} pool.
     */
    @Override
    public void shutdown() {
        if (common) {
            return;
        }
        scheduler.shutdown();
    }

    /**
     * Stops the pool: no new tasks, queued ones are not run, running ones are interrupted.
     * Returns the tasks submitted with {@code execute}/{@code submit} that never started, as
     * they were submitted (the futures of {@code submit}; not the forms a
     * {@linkplain Builder#taskDecorator task decorator} gave them).
     * Fork/join pieces (forked or submitted {@link Task}s, the halves of {@link #join}, tasks
     * spawned in a {@link Scope}) are cancelled instead, so whoever waits for them gets a
     * {@link java.util.concurrent.CancellationException}, and forks made after this call are
     * cancelled at once: running computations end quickly. No effect on the {@link #common()}
     * pool, for which it returns an empty list.
     */
    @Override
    public List<Runnable> shutdownNow() {
        if (common) {
            return new ArrayList<>();
        }
        return scheduler.shutdownNow();
    }

    @Override
    public boolean isShutdown() {
        return scheduler.isShutdown();
    }

    @Override
    public boolean isTerminated() {
        return scheduler.isTerminated();
    }

    /**
     * Whether the pool is on its way to termination, as {@code ThreadPoolExecutor.isTerminating()}
     * answers it: shut down (by {@link #shutdown()} or {@link #shutdownNow()}) but not terminated
     * yet. ({@code ForkJoinPool}'s turns true only once its workers are told to stop.) Always false for the {@link #common()} pool,
     * which no shutdown stops.
     *
     * @return true after a shutdown, until {@link #isTerminated()} becomes true
     */
    public boolean isTerminating() {
        return scheduler.isShutdown() && !scheduler.isTerminated();
    }

    /**
     * Whether the pool looks quiescent right now, as {@code ForkJoinPool.isQuiescent()}: no task
     * is queued anywhere in it and every worker is idle (parked, or waiting in
     * {@link Task#helpQuiesce()} or in a join for work that is not queued). A worker still
     * looking for work after its last task counts as busy until it parks, so a pool that just
     * ran out of work may take a moment to look quiescent. Only as exact as it can be while
     * tasks arrive from outside: a submission may make it busy again at once. When the pool
     * looks idle the answer is checked under an internal lock that parking workers also take:
     * poll it sparingly.
     *
     * @return true if the pool has no work and every worker is idle
     */
    public boolean isQuiescent() {
        return scheduler.isQuiescent();
    }

    /**
     * Waits until the pool {@linkplain #isQuiescent() looks quiescent} or the timeout passes, as
     * {@code ForkJoinPool.awaitQuiescence(timeout, unit)}. Called by a task of this pool it runs
     * tasks meanwhile, as {@link Task#helpQuiesce()} does, and looks at the time between two of
     * them (a task is never abandoned halfway, so the call may outlast the timeout by one task).
     * From any other thread it polls without running tasks, backing off to parks of up to a
     * millisecond, so it notices quiescence a little late. Quiescence is checked under an
     * internal lock that parking workers also take: poll it sparingly.
     * Interrupts are kept, not acted on, as {@code ForkJoinPool} does; after
     * {@link #shutdownNow()} the workers stop without running what is queued, so a pool with
     * queued tasks then never looks quiescent and the call waits out its timeout.
     *
     * @param timeout the longest time to wait
     * @param unit    the unit of {@code timeout}
     * @return true if the pool looked quiescent, false if the timeout passed first
     * @throws NullPointerException if {@code unit} is null
     */
    public boolean awaitQuiescence(long timeout, TimeUnit unit) {
        Objects.requireNonNull(unit, "unit");
        Worker w = scheduler.currentWorker();
        if (w != null) {
            return w.helpQuiesce(Math.max(0L, unit.toNanos(timeout)));
        }
        try {
            return Quiescence.await(scheduler, Math.max(0L, unit.toNanos(timeout)), false);
        } catch (InterruptedException impossible) {
            throw new AssertionError(impossible);
        }
    }

    /**
     * Waits until the pool has terminated and its worker threads have ended, or the timeout
     * passes. Once this returns true the pool has terminated and no thread of it is alive,
     * unless the timeout ran out while they were ending (they get what is left of it; the last
     * one also runs the {@link #terminationFuture()} actions). A task of this pool calling it
     * does not wait for its own thread. {@link #close()} waits for the threads too.
     *
     * <p>The {@link #common()} pool never terminates: as {@code ForkJoinPool.commonPool()}, it
     * waits instead until the pool is quiescent (no task queued, every worker idle) or the
     * timeout passes, and returns false. Called by one of the common pool's own tasks, it
     * runs tasks until then, as {@link Task#helpQuiesce()} does, whatever the timeout.
     *
     * @param timeout the longest time to wait
     * @param unit    the unit of {@code timeout}
     * @return true if the pool terminated, false if the timeout passed first (always false for
     *         the common pool)
     * @throws InterruptedException if interrupted while waiting
     * @throws NullPointerException if {@code unit} is null
     */
    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        if (common) {
            Worker w = scheduler.currentWorker();
            if (w != null) {
                w.helpQuiesce();
            } else {
                Quiescence.await(scheduler, Math.max(0L, unit.toNanos(timeout)), true);
            }
            return false;
        }
        return scheduler.awaitTermination(timeout, unit);
    }

    /**
     * Waits, without a time limit and ignoring interrupts (the status is kept), until this pool
     * looks quiescent: {@link Task#helpQuiesce()} off the pool, on the common pool.
     */
    void awaitQuiescence() {
        try {
            Quiescence.await(scheduler, -1L, false);
        } catch (InterruptedException impossible) {
            throw new AssertionError(impossible);
        }
    }

    /**
     * Shuts the pool down and waits for its tasks to finish, as {@code ExecutorService.close()}
     * does on JDK 19+ (so try-with-resources works on JDK 17 too). If interrupted while waiting,
     * it calls {@link #shutdownNow()}, keeps waiting, and restores the interrupt status. Called
     * from one of the pool's own workers it only shuts down: waiting there would wait for itself.
     * No effect on the {@link #common()} pool, as {@code ForkJoinPool.commonPool().close()}.
     */
    @Override
    public void close() {
        if (common) {
            return;
        }
        shutdown();
        if (scheduler.currentWorker() != null) {
            return;
        }
        boolean interrupted = false;
        for (boolean done = false; !done; ) { // at least once: it also waits for the threads
            try {
                done = awaitTermination(1L, TimeUnit.DAYS);
            } catch (InterruptedException e) {
                if (!interrupted) {
                    shutdownNow();
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    protected <T> RunnableFuture<T> newTaskFor(Callable<T> callable) {
        return new PoolFutureTask<>(callable);
    }

    @Override
    protected <T> RunnableFuture<T> newTaskFor(Runnable runnable, T value) {
        return new PoolFutureTask<>(runnable, value);
    }

    // ------------------------------------------------------------------ fork/join

    /**
     * Runs {@code a} and {@code b}, possibly in parallel, and returns {@code combine} of their
     * results. On a worker of this pool, {@code b} is pushed on the worker's deque and {@code a}
     * runs at once; if nobody stole {@code b} meanwhile, the worker then runs it too (no
     * synchronisation beyond the deque), else it works on other tasks until the thief is done.
     * From any other thread the whole join is handed to the pool and the caller blocks.
     *
     * <pre>{@code
     * long fib(int n) {
     *     return n < 2 ? n : pool.join(() -> fib(n - 1), () -> fib(n - 2), Long::sum);
     * }
     * }</pre>
     *
     * <p>If {@code a} throws, {@code b} is skipped if it has not started, else awaited; the
     * failure of {@code a} (or else of {@code b}) is rethrown with its class (rebuilt in the
     * calling thread if another thread threw it, the original as its cause; see {@link Task}),
     * a second failure attached to the original as suppressed.
     *
     * @param <A>     the result type of {@code a}
     * @param <B>     the result type of {@code b}
     * @param <R>     the type of the combined result
     * @param a       the first computation, run at once by the joining worker
     * @param b       the second computation, offered to other workers while {@code a} runs
     * @param combine turns the two results into one; called once both are there, on the worker
     *                that ran {@code a}, and not at all if either failed
     * @return what {@code combine} returned for the results of {@code a} and {@code b}
     * @throws NullPointerException       if an argument is null
     * @throws RejectedExecutionException if called from outside the pool after shutdown
     */
    public <A, B, R> R join(Supplier<? extends A> a, Supplier<? extends B> b,
                            BiFunction<? super A, ? super B, ? extends R> combine) {
        Objects.requireNonNull(a, "a");
        Objects.requireNonNull(b, "b");
        Objects.requireNonNull(combine, "combine");
        Worker w = scheduler.currentWorker();
        if (w == null) {
            return invoke(new Task<R>() {
                @Override
                protected R compute() {
                    return Join.join(Worker.current(), a, b, combine);
                }
            });
        }
        return Join.join(w, a, b, combine);
    }

    /**
     * Runs {@code a} and {@code b}, possibly in parallel, and returns when both are done; as
     * {@link #join(Supplier, Supplier, BiFunction)}, failures included.
     *
     * @param a the first action, run at once by the joining worker
     * @param b the second action, offered to other workers while {@code a} runs
     * @throws NullPointerException       if an argument is null
     * @throws RejectedExecutionException if called from outside the pool after shutdown
     */
    public void join(Runnable a, Runnable b) {
        Objects.requireNonNull(a, "a");
        Objects.requireNonNull(b, "b");
        Worker w = scheduler.currentWorker();
        if (w == null) {
            invoke(new Task<Void>() {
                @Override
                protected Void compute() {
                    Join.join(Worker.current(), a, b);
                    return null;
                }
            });
            return;
        }
        Join.join(w, a, b);
    }

    /**
     * Runs {@code task} and returns its result. On a worker of this pool it runs in the calling
     * thread ({@link Task#invoke()}); from any other thread it is handed to the pool and the
     * caller blocks until it is done.
     *
     * @param <T>  the task's result type
     * @param task a task that was never forked, submitted or invoked
     * @return what the task's {@code compute} returned, or the value it was
     *         {@linkplain Task#complete completed} with
     * @throws NullPointerException       if {@code task} is null
     * @throws java.util.concurrent.CancellationException if the task was cancelled (also by
     *                                    {@link #shutdownNow()})
     * @throws java.util.concurrent.CompletionException wrapping a checked exception thrown by
     *                                    {@code compute}; an unchecked one is rethrown as it is
     *                                    (see {@link Task})
     * @throws RejectedExecutionException if called from outside the pool after shutdown
     * @throws IllegalStateException      if {@code task} was already forked, submitted or invoked
     */
    public <T> T invoke(Task<T> task) {
        Objects.requireNonNull(task, "task");
        if (scheduler.currentWorker() != null) {
            return task.invoke();
        }
        execute(task);
        return task.join();
    }

    /**
     * Schedules {@code task} and returns it: a {@code Task} is its own {@link Future}.
     *
     * @param <T>  the task's result type
     * @param task a task that was never forked, submitted or invoked
     * @return {@code task} itself, to {@link Task#join() join} or {@link Task#get() get}
     * @throws NullPointerException       if {@code task} is null
     * @throws RejectedExecutionException if the pool is shut down
     * @throws IllegalStateException      if {@code task} was already forked, submitted or invoked
     */
    public <T> Task<T> submit(Task<T> task) {
        execute(Objects.requireNonNull(task, "task"));
        return task;
    }

    /**
     * Runs every {@link Task} in {@code tasks} in this pool, possibly in parallel, and returns
     * {@code tasks} when all are done, as {@code ForkJoinTask.invokeAll(Collection)} does:
     *
     * <pre>{@code
     * List<Fib> fibs = List.of(new Fib(30), new Fib(31), new Fib(32));
     * long sum = 0;
     * for (Fib f : pool.invokeAll(fibs)) sum += f.join(); // each one done: join() returns at once
     * }</pre>
     *
     * On a worker of this pool it is {@link Task#invokeAll(Collection)}: it forks all but the
     * first task, runs the first and joins the others. From any other thread (a worker of
     * another pool included) it submits them all to this pool and waits for every one, as
     * {@link Task#join()} waits (a worker of another pool works meanwhile; interrupts are kept
     * for later, not acted on). If any failed, it throws the first failure in iteration order,
     * rethrown as {@code join()} would (an unchecked one with its class, a checked one in a
     * {@link java.util.concurrent.CompletionException}), with the later ones attached to it as
     * suppressed, once every task is done.
     *
     * <p>Why {@code Iterable<?>} and not {@code List<? extends Task<?>>}: an argument that fits
     * both this method and {@link #invokeAll(Collection)} ({@code null}, {@code List.of()}, a
     * list of lambdas) would make a call ambiguous that compiles today, and a list of tasks is
     * no collection of callables: with {@code Iterable<?>}, the {@code Callable} form is the more
     * specific, so every such call keeps it, and a list of tasks comes here. The element type is
     * therefore checked when the call runs.
     *
     * @param <C>   the type of the collection
     * @param tasks {@link Task}s none of which was forked, submitted or invoked before, run in
     *              iteration order where order matters
     * @return {@code tasks}, every task in it done
     * @throws NullPointerException       if {@code tasks} or an element is null (before anything
     *                                    runs)
     * @throws IllegalArgumentException   if an element is not a {@link Task} (before anything runs)
     * @throws IllegalStateException      if a task was already forked, submitted or invoked, or
     *                                    appears twice (before anything runs)
     * @throws RejectedExecutionException if called from outside the pool after shutdown (the
     *                                    tasks submitted before it are cancelled and awaited)
     */
    public <C extends Iterable<?>> C invokeAll(C tasks) {
        Objects.requireNonNull(tasks, "tasks");
        List<Task<?>> list = new ArrayList<>();
        for (Object t : tasks) {
            if (!(t instanceof Task)) {
                throw t == null ? new NullPointerException("tasks[" + list.size() + "] is null")
                        : new IllegalArgumentException("tasks[" + list.size() + "] is a "
                        + t.getClass().getName() + ", not a Task: invokeAll(Iterable) runs Tasks; "
                        + "callables go to invokeAll(Collection<? extends Callable<T>>)");
            }
            list.add((Task<?>) t);
        }
        Task<?>[] array = list.toArray(new Task<?>[0]);
        if (scheduler.currentWorker() != null) {
            Task.invokeAll(array);
        } else {
            Task.invokeAllIn(this, array);
        }
        return tasks;
    }

    /**
     * Runs {@code body}, which may {@link Scope#spawn spawn} tasks (which may spawn more), and
     * returns when the body and every task spawned in the scope have finished. On a worker of
     * this pool the body runs in the calling thread, which then works on other tasks until the
     * scope is done; from any other thread the whole scope is handed to the pool and the caller
     * blocks.
     *
     * <p>If the body or a spawned task throws, the scope still waits for everything else it
     * started, then throws the body's failure, or else the first spawned failure (see
     * {@link Scope}).
     *
     * @param body the code that starts the work; it gets the scope to spawn tasks into, which
     *             is valid only until the scope is done
     * @throws NullPointerException       if {@code body} is null
     * @throws RejectedExecutionException if called from outside the pool after shutdown
     */
    public void scope(Consumer<? super Scope> body) {
        Objects.requireNonNull(body, "body");
        Worker w = scheduler.currentWorker();
        if (w == null) {
            invoke(new Task<Void>() {
                @Override
                protected Void compute() {
                    Throwable f = new Scope(scheduler).runToFailure(Worker.current(), body);
                    if (f != null) {
                        throw Failures.throwAsIs(f); // a checked one: invoke wraps it here, once
                    }
                    return null;
                }
            });
            return;
        }
        new Scope(scheduler).run(w, body);
    }

    // ------------------------------------------------------------------ range loops

    // The loops behind IntRange, LongRange and Items, whose Javadoc is the contract. Bounds come
    // from range(), which checked them; each loop checks its own arguments for null by name.

    void forEachInt(int from, int to, IntConsumer body) {
        Objects.requireNonNull(body, "body");
        runLoop(RangeLoops.forEachInt(minBatch, maxBatch, body), from, to);
    }

    void forEachLong(long from, long to, LongConsumer body) {
        Objects.requireNonNull(body, "body");
        runLoop(RangeLoops.forEachLong(minBatch, maxBatch, body), from, to);
    }

    void forEachChunk(long from, long to, RangeChunk body) {
        Objects.requireNonNull(body, "body");
        runLoop(RangeLoops.forChunks(minBatch, maxBatch, body), from, to);
    }

    <T> T reduceObject(long from, long to, T identity, LongFunction<? extends T> mapper,
                       BinaryOperator<T> combiner) {
        Objects.requireNonNull(mapper, "mapper");
        Objects.requireNonNull(combiner, "combiner");
        RangeLoops.Reduce<T> loop = new RangeLoops.Reduce<>(minBatch, maxBatch, identity, mapper, combiner);
        runLoop(loop, from, to);
        return loop.result();
    }

    long reduceToLong(long from, long to, long identity, LongUnaryOperator mapper,
                      LongBinaryOperator combiner) {
        Objects.requireNonNull(mapper, "mapper");
        Objects.requireNonNull(combiner, "combiner");
        RangeLoops.ReduceLong loop = new RangeLoops.ReduceLong(minBatch, maxBatch, identity, mapper, combiner);
        runLoop(loop, from, to);
        return loop.result();
    }

    double reduceToDouble(long from, long to, double identity, LongToDoubleFunction mapper,
                          DoubleBinaryOperator combiner) {
        Objects.requireNonNull(mapper, "mapper");
        Objects.requireNonNull(combiner, "combiner");
        RangeLoops.ReduceDouble loop = new RangeLoops.ReduceDouble(minBatch, maxBatch, identity, mapper, combiner);
        runLoop(loop, from, to);
        return loop.result();
    }

    /**
     * The indexes {@code [from, to)}, to loop over in parallel on this pool: the one shape for
     * every range loop, the same for {@code int} and {@code long} bounds.
     *
     * <pre>{@code
     * pool.range(0, n).forEach(i -> out[i] = f(in[i]));          // int indexes
     * pool.range(0L, bigN).forEach(i -> visit(i));               // long indexes: a long bound picks LongRange
     * long sum = pool.range(0, n).reduceLong(0, i -> weight(i), Long::sum);
     * }</pre>
     *
     * A view that holds only its bounds: every operation runs one loop, as {@link IntRange}
     * describes, and returns when it is done.
     *
     * @param from the first index (inclusive)
     * @param to   the end of the range (exclusive)
     * @return the range, bound to this pool; it runs nothing until one of its operations is called
     * @throws IllegalArgumentException if {@code from > to}
     */
    public IntRange range(int from, int to) {
        checkRange(from, to);
        return new IntRange(this, from, to);
    }

    /**
     * As {@link #range(int, int)} over {@code long} indexes; chosen whenever a bound is a
     * {@code long}, so {@code pool.range(0L, n)} needs no other name.
     *
     * @param from the first index (inclusive)
     * @param to   the end of the range (exclusive)
     * @return the range, bound to this pool; it runs nothing until one of its operations is called
     * @throws IllegalArgumentException if {@code from > to}
     */
    public LongRange range(long from, long to) {
        checkRange(from, to);
        return new LongRange(this, from, to);
    }

    /**
     * The elements of {@code list}, to process in parallel on this pool by index, in the same
     * balanced loops as {@link #range(int, int)}: {@link Items#forEach}, {@link Items#map} into
     * an array, order-keeping {@link Items#reduce}. A {@link java.util.RandomAccess} list is read
     * in place (it must not change size while an operation runs); any other list is copied to an
     * array first, so a {@code LinkedList} costs one pass, not one walk per element.
     *
     * @param <T>  the element type
     * @param list the elements; not copied here, so each operation sees the list as it is when
     *             the operation starts
     * @return a view of {@code list} bound to this pool
     * @throws NullPointerException if {@code list} is null
     */
    public <T> Items<T> items(List<T> list) {
        Objects.requireNonNull(list, "list");
        return new Items<>(this, list);
    }

    /**
     * The elements of {@code array}, as {@link #items(List)}; read in place. (For a primitive
     * array, loop over its indexes with {@link #range(int, int)}.)
     *
     * @param <T>   the element type
     * @param array the elements; not copied, so each operation reads the array as it is then
     * @return a view of {@code array} bound to this pool
     * @throws NullPointerException if {@code array} is null
     */
    public <T> Items<T> items(T[] array) {
        Objects.requireNonNull(array, "array");
        return new Items<>(this, Arrays.asList(array));
    }

    private static void checkRange(long from, long to) {
        if (from > to) {
            throw new IllegalArgumentException("from (" + from + ") must not be greater than to (" + to + ")");
        }
    }

    private void runLoop(RangeLoop loop, long from, long to) {
        if (from == to) {
            return;
        }
        Worker w = scheduler.currentWorker();
        if (w == null) {
            invoke(new Task<Void>() {
                @Override
                protected Void compute() {
                    loop.run(Worker.current(), scheduler.parallelism(), from, to);
                    return null;
                }
            });
            return;
        }
        loop.run(w, scheduler.parallelism(), from, to);
    }

    // ------------------------------------------------------------------ introspection

    /**
     * The number of workers, as configured by {@link Builder#parallelism(int)}.
     *
     * @return the number of worker threads the pool was built with; it does not change, also
     *         not after shutdown
     */
    public int parallelism() {
        return scheduler.parallelism();
    }

    /** Workers parked right now. */
    int sleepingWorkers() {
        return scheduler.sleepingWorkers();
    }

    /** Idle phases so far: {@code [spin rounds, yield rounds, parks]}, for the idle strategy's tests. */
    long[] idleRounds() {
        return scheduler.idleRounds();
    }

    /**
     * A snapshot of what the pool has done and what it looks like now: tasks completed and
     * submitted, steals, parks, wake-ups, parked time, queued tasks, active and parked workers.
     * Cheap enough to call every second; it never stops the pool. See {@link PoolStats} for
     * what each figure means and how exact it is.
     *
     * @return a new snapshot; also available after termination, with the final counts
     */
    public PoolStats stats() {
        return scheduler.statistics();
    }

    /**
     * Starts timing a sample of the tasks submitted to this pool for {@code listener}: how long
     * each waited from its submission to its start, and how long it ran, reported on the worker
     * that ran it. {@link TaskTimingListener} says which tasks, how many, and what a listener
     * must do. {@code WorkStealingPoolMetrics.timeTasks} records them in Micrometer's
     * {@code executor} and {@code executor.idle} timers.
     *
     * <p>While no listener is registered a submission costs one volatile read more. With one, a
     * submission counts down a counter of its submitting thread's (no clock read, no write to a
     * line other threads use), and about one task per 50 microseconds of submitting is timed;
     * docs/lab/timing-cost.md has the measured cost. Tasks already submitted when a listener
     * is added or removed are timed for the listeners there were at their submission.
     *
     * @param listener told of every timed task; a listener added twice hears each task twice
     * @throws NullPointerException if {@code listener} is null
     */
    public void addTaskTimingListener(TaskTimingListener listener) {
        scheduler.addTaskTimingListener(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * Stops telling {@code listener} (one registration of it, compared by identity) of tasks
     * submitted from now on; with no listener left, timing stops.
     *
     * @param listener a listener added with {@link #addTaskTimingListener}
     * @return true if it was registered
     * @throws NullPointerException if {@code listener} is null
     */
    public boolean removeTaskTimingListener(TaskTimingListener listener) {
        return scheduler.removeTaskTimingListener(Objects.requireNonNull(listener, "listener"));
    }

    /**
     * A stage that completes when the pool has terminated (every worker thread has ended, after
     * {@link #shutdown()} or {@link #shutdownNow()}), for releasing what was attached to the
     * pool, such as its metrics. Actions attached to it run on the thread that terminated the
     * pool (often its last worker) unless given an executor: keep them short. It never completes
     * exceptionally.
     *
     * @return a stage that completes with {@code null} at termination, already complete if the
     *         pool has terminated; it cannot be completed or cancelled through this reference
     */
    public CompletionStage<Void> terminationFuture() {
        return scheduler.terminationFuture().minimalCompletionStage();
    }

    @Override
    public String toString() {
        return "WorkStealingPool[" + scheduler.name() + ", " + scheduler.runStateName()
                + ", parallelism = " + scheduler.parallelism() + ", " + scheduler.statistics() + "]";
    }


    // ------------------------------------------------------------------ ScheduledExecutorService

    /**
     * Runs {@code command} on a worker once {@code delay} has passed, as
     * {@link java.util.concurrent.ScheduledThreadPoolExecutor} does: never before the delay
     * (tasks due at the same time are handed to the workers in the order they were scheduled),
     * as soon as the timer and a free worker allow after it. A zero or negative delay means
     * now; a delay beyond about 146 years is clamped to that, so it never overflows.
     *
     * <p>The delayed tasks are kept by one timer thread per pool, a daemon named
     * {@code <prefix>-timer}, started by the first {@code schedule} (a pool that schedules
     * nothing has none) and ended with the pool. Scheduling and cancelling take no lock.
     * {@code cancel} on the returned future takes the task out of the timer at once, so a
     * cancelled task is not kept until its deadline.
     *
     * <p>Shutdown, as {@code ScheduledThreadPoolExecutor} by default: after {@link #shutdown()}
     * a one-shot delayed task still runs when due (unless
     * {@link Builder#cancelDelayedTasksOnShutdown(boolean)}), and {@link #awaitTermination}
     * waits for it; {@link #shutdownNow()} runs none, and cancels every one still waiting.
     *
     * @param command the task
     * @param delay   the time from now to the run
     * @param unit    the unit of {@code delay}
     * @return a future that completes when the task has run; cancelling it before it runs
     *         keeps it from running
     * @throws NullPointerException       if {@code command} or {@code unit} is null
     * @throws RejectedExecutionException if the pool is shut down
     */
    @Override
    public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(unit, "unit");
        return scheduler.delays().schedule(command, delay, unit, true, taskDecorator);
    }

    /**
     * Calls {@code callable} on a worker once {@code delay} has passed; as
     * {@link #schedule(Runnable, long, TimeUnit)}.
     *
     * @param <V>      the result type
     * @param callable the task
     * @param delay    the time from now to the call
     * @param unit     the unit of {@code delay}
     * @return a future with the callable's result
     * @throws NullPointerException       if {@code callable} or {@code unit} is null
     * @throws RejectedExecutionException if the pool is shut down
     */
    @Override
    public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
        Objects.requireNonNull(callable, "callable");
        Objects.requireNonNull(unit, "unit");
        return scheduler.delays().schedule(callable, delay, unit, taskDecorator);
    }

    /**
     * Runs {@code command} on a worker after {@code initialDelay}, then every {@code period}
     * from that first deadline, as {@link java.util.concurrent.ScheduledThreadPoolExecutor}
     * does: runs never overlap (a run that overruns delays the next, which then starts late,
     * not twice); a run that throws ends the repetition, and the future reports the failure
     * ({@code get} throws an {@link ExecutionException} with it); cancelling the future ends
     * it too. After {@link #shutdown()} it runs no more (cancelled). Delays and periods are
     * clamped as in {@link #schedule(Runnable, long, TimeUnit)}.
     *
     * @param command      the task
     * @param initialDelay the time from now to the first run
     * @param period       the time between the starts of two runs
     * @param unit         the unit of both
     * @return a future that never completes normally
     * @throws NullPointerException       if {@code command} or {@code unit} is null
     * @throws IllegalArgumentException   if {@code period <= 0}
     * @throws RejectedExecutionException if the pool is shut down
     */
    @Override
    public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period,
                                                  TimeUnit unit) {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(unit, "unit");
        if (period <= 0L) {
            throw new IllegalArgumentException("period must be positive: " + period);
        }
        return scheduler.delays().schedulePeriodic(command, initialDelay, period, unit, true, taskDecorator);
    }

    /**
     * Runs {@code command} on a worker after {@code initialDelay}, then again {@code delay}
     * after the end of each run; otherwise as
     * {@link #scheduleAtFixedRate(Runnable, long, long, TimeUnit)}.
     *
     * @param command      the task
     * @param initialDelay the time from now to the first run
     * @param delay        the time from the end of one run to the start of the next
     * @param unit         the unit of both
     * @return a future that never completes normally
     * @throws NullPointerException       if {@code command} or {@code unit} is null
     * @throws IllegalArgumentException   if {@code delay <= 0}
     * @throws RejectedExecutionException if the pool is shut down
     */
    @Override
    public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay,
                                                     TimeUnit unit) {
        Objects.requireNonNull(command, "command");
        Objects.requireNonNull(unit, "unit");
        if (delay <= 0L) {
            throw new IllegalArgumentException("delay must be positive: " + delay);
        }
        return scheduler.delays().schedulePeriodic(command, initialDelay, delay, unit, false, taskDecorator);
    }

    /**
     * Submits {@code task} with a time limit: if it has not completed when {@code timeout} has
     * passed since this call, {@code timeoutAction} is called with it. The action may, for
     * example, {@link Task#complete complete} it with a fallback (whoever waits then gets the
     * fallback; the call runs on, and its result is dropped), or
     * {@link Task#completeExceptionally complete it exceptionally}. What the action throws goes
     * where a failure of a task given to {@link #execute} goes.
     *
     * <p>With a null action the task is cancelled and, if it is running, its thread
     * interrupted; this runs on the pool's timer thread itself (a few steps, no user code), so
     * the limit holds even while every worker is busy, this task's included. A non-null action
     * is user code and runs on a worker, like a task given to {@link #schedule}: it needs a free
     * worker, and while all of them are busy (with parallelism 1: running this very task) it
     * runs only once one is free, possibly after the task has completed, and then it is not
     * called.
     *
     * <p>The interrupt is aimed at the thread running the call, between its start and its end.
     * If the call joins another task, its worker may run unrelated tasks on top of it while it
     * waits (work stealing: see {@link Task}); an interrupt that lands then hits the one that
     * runs, not the call. That is why {@link Task#cancel} never interrupts; here the caller
     * asked for it. The call's end clears this interrupt, so the worker's next task does not
     * inherit it (unless the pool is stopping: {@code shutdownNow}'s interrupt is kept).
     *
     * <p>The time limit costs one timer entry, removed when the call ends; a task completed
     * before it ran ({@code complete}, {@code cancel}, the timeout) drops it when a worker takes
     * its queued entry, so a done task's entry never holds up the pool's termination.
     *
     * @param <T>           the result type
     * @param task          the work
     * @param timeout       the time limit, from now; zero or negative: already out
     * @param unit          the unit of {@code timeout}
     * @param timeoutAction called with the task on a worker if it is not done in time, or null
     *                      to cancel it with an interrupt, from the timer thread
     * @return the task, submitted: its own future
     * @throws NullPointerException       if {@code task} or {@code unit} is null
     * @throws RejectedExecutionException if the pool is shut down
     */
    public <T> Task<T> submitWithTimeout(Callable<T> task, long timeout, TimeUnit unit,
                                         Consumer<? super Task<T>> timeoutAction) {
        Objects.requireNonNull(task, "task");
        Objects.requireNonNull(unit, "unit");
        // Decorated before the timer's entry: a failing decorator leaves nothing behind.
        Callable<T> call = taskDecorator == null ? task : DecoratedCall.of(taskDecorator, task);
        TimeLimitedTask<T> t = new TimeLimitedTask<>(call, timeoutAction, scheduler);
        DelayScheduler d = scheduler.delays();
        if (timeoutAction == null) {
            t.timeout = d.scheduleOnTimer(t::timedOut, timeout, unit); // no user code: on the timer
        } else {
            t.timeout = d.schedule(() -> {
                try {
                    t.timedOut();
                } catch (Throwable e) {
                    scheduler.reportFailure(t, e);
                }
            }, timeout, unit, false, taskDecorator); // user code on a worker: decorated too
        }
        try {
            executeTask(t);
        } catch (RuntimeException | Error e) {
            t.timeout.cancel(false);
            throw e;
        }
        return t;
    }

    // ------------------------------------------------------------------ builder

    /**
     * Configures a {@link WorkStealingPool}. Each setter checks its argument at once and throws
     * without changing the builder if it is invalid.
     */
    public static final class Builder {
        private int parallelism = Runtime.getRuntime().availableProcessors();
        private String threadNamePrefix;
        private Boolean daemon;
        private ThreadFactory threadFactory;
        private Thread.UncaughtExceptionHandler uncaughtExceptionHandler;
        private long minBatch = DEFAULT_MIN_BATCH;
        private long maxBatch = DEFAULT_MAX_BATCH;
        private IdleStrategy idleStrategy = IdleStrategy.standard();
        private boolean fifo;
        private int maxSpareThreads = DEFAULT_MAX_SPARE_THREADS;
        private Duration spareKeepAlive = DEFAULT_SPARE_KEEP_ALIVE;
        private int maxQueuedSubmissions; // 0: unbounded
        private SaturationPolicy saturationPolicy = SaturationPolicy.ABORT;
        private boolean cancelDelayedTasksOnShutdown;
        private UnaryOperator<Runnable> taskDecorator;
        /** Set only for {@link WorkStealingPool#common()}: the pool ignores shutdown requests. */
        private boolean common;

        private Builder() {
        }

        /**
         * Batch sizes of the range loops: a worker claims {@code min} indexes at first, then
         * twice as many each time, up to {@code max} (and, with more than one worker, to a
         * quarter of what is left of its part, never below {@code min}). Defaults 1 and 1024: an expensive index is
         * found after a few claims, and a cheap one costs a 1024th of a CAS.
         *
         * @param min the first batch a worker claims, and the smallest one
         * @param max the largest batch a worker claims
         * @return this builder
         * @throws IllegalArgumentException unless {@code 1 <= min <= max <= 2^30}
         */
        public Builder loopBatch(long min, long max) {
            if (min < 1 || max < min || max > StealableRange.MAX_LENGTH) {
                throw new IllegalArgumentException("loopBatch needs 1 <= min <= max <= "
                        + StealableRange.MAX_LENGTH + ": min " + min + ", max " + max);
            }
            this.minBatch = min;
            this.maxBatch = max;
            return this;
        }

        /**
         * What a worker that ran out of work does before it parks: spin, yield, then park.
         * Default {@link IdleStrategy#standard()}.
         *
         * @param strategy the rounds of spinning and yielding before a worker parks
         * @return this builder
         * @throws NullPointerException if {@code strategy} is null
         */
        public Builder idleStrategy(IdleStrategy strategy) {
            this.idleStrategy = Objects.requireNonNull(strategy, "idleStrategy");
            return this;
        }

        /**
         * First-in-first-out order for each worker's own tasks, {@code ForkJoinPool}'s
         * {@code asyncMode}: a worker takes the oldest task of its deque next (tasks that tasks
         * {@code execute} or {@code submit}, and the batches it takes from submitters), as
         * thieves do, instead of the newest. For event-style work that is never joined, where
         * the order of arrival matters more than the cache: a stream of follow-up tasks is then
         * served in the order it was posted. Costs a CAS per task taken from the own deque. A
         * task that waits in a join still runs its own forks newest first. Default false
         * (last-in-first-out, the better order for fork/join).
         *
         * @param fifo true for first-in-first-out order of each worker's own tasks
         * @return this builder
         */
        public Builder fifo(boolean fifo) {
            this.fifo = fifo;
            return this;
        }

        /**
         * The most spare threads alive at once, standing in for workers blocked in
         * {@link WorkStealingPool#blocking(BlockingCall)}; default
         * {@value WorkStealingPool#DEFAULT_MAX_SPARE_THREADS}. 0 turns the stand-ins off: a
         * blocking call then holds its worker, as any blocking task does. Past the bound a
         * blocking call blocks uncompensated; it never fails for it.
         *
         * @param max the bound on spare threads
         * @return this builder
         * @throws IllegalArgumentException if not in {@code [0, MAX_PARALLELISM]}
         */
        public Builder maxSpareThreads(int max) {
            if (max < 0 || max > MAX_PARALLELISM) {
                throw new IllegalArgumentException("maxSpareThreads must be between 0 and "
                        + MAX_PARALLELISM + ": " + max);
            }
            this.maxSpareThreads = max;
            return this;
        }

        /**
         * How long an idle spare thread stays, with no blocked worker to stand in for, before
         * it ends; default {@link WorkStealingPool#DEFAULT_SPARE_KEEP_ALIVE} (60 s). A spare
         * that stays is reused by the next blocking call instead of a new thread.
         *
         * @param keepAlive the idle time after which a spare no longer needed ends
         * @return this builder
         * @throws NullPointerException     if {@code keepAlive} is null
         * @throws IllegalArgumentException if {@code keepAlive} is shorter than a millisecond (a
         *                                  spare still needed wakes once per keep-alive to check)
         */
        public Builder spareKeepAlive(Duration keepAlive) {
            Objects.requireNonNull(keepAlive, "spareKeepAlive");
            if (keepAlive.compareTo(Duration.ofMillis(1)) < 0) {
                throw new IllegalArgumentException("spareKeepAlive must be at least 1 ms: " + keepAlive);
            }
            // Beyond ~292 years toNanos() overflows; such a keep-alive means "forever" anyway.
            this.spareKeepAlive = keepAlive.compareTo(Duration.ofDays(365 * 100)) > 0
                    ? Duration.ofDays(365 * 100) : keepAlive;
            return this;
        }

        /**
         * Bounds the tasks submitted from outside the pool that wait in its submission queue, as
         * a bounded {@code ThreadPoolExecutor} queue does; at the bound, the
         * {@linkplain #saturationPolicy saturation policy} decides (by default the submission is
         * rejected). Default: unbounded, as {@link Executors#newFixedThreadPool(int)}.
         *
         * <p>Only submissions from threads that are not this pool's workers are bounded.
         * Tasks submitted, forked or spawned by the pool's own tasks ({@code execute} or
         * {@code submit} inside a task, {@link Task#fork()}, joins, scopes, range loops) are
         * never refused or held back by it: refusing them could deadlock a fork/join tree, whose
         * parent waits for children that would wait for room. The pool's own deques are
         * unbounded for the same reason.
         *
         * <p>How exact the bound is: it counts the tasks in the submission queue. A worker takes
         * queued tasks in batches of up to 64: it starts the first and moves the others to its
         * own deque, where they no longer count, though they have not started yet. A worker
         * takes a batch only when its own deque is empty, so the outside tasks accepted and not
         * yet started number at most {@code max} plus 63 per worker thread (spare threads
         * included); while every worker is busy on a task that holds it, at most {@code max}.
         * A task handed straight to an idle worker is not queued and does not count. A
         * cancelled future still queued counts until a worker takes it or {@code shutdownNow}
         * removes it, as in a {@code ThreadPoolExecutor}'s queue.
         *
         * @param max the most outside submissions queued at once, at least 1
         * @return this builder
         * @throws IllegalArgumentException if {@code max < 1}
         */
        public Builder maxQueuedSubmissions(int max) {
            if (max < 1) {
                throw new IllegalArgumentException("maxQueuedSubmissions must be at least 1: " + max);
            }
            this.maxQueuedSubmissions = max;
            return this;
        }

        /**
         * What a submission from outside the pool does when {@link #maxQueuedSubmissions} tasks
         * are already queued: {@link SaturationPolicy#ABORT} (the default, a
         * {@link RejectedExecutionException}), {@link SaturationPolicy#CALLER_RUNS} (the
         * submitting thread runs the task) or {@link SaturationPolicy#BLOCK} (it waits for
         * room, interruptibly). Applies to every outside path: {@code execute}, the
         * {@code submit}s, {@code invokeAll}, {@code invokeAny}, and the {@code Task} methods
         * called from outside. Never to submissions from the pool's own workers (see
         * {@link #maxQueuedSubmissions}). No effect on an unbounded pool.
         *
         * @param policy what happens at the bound
         * @return this builder
         * @throws NullPointerException if {@code policy} is null
         */
        public Builder saturationPolicy(SaturationPolicy policy) {
            this.saturationPolicy = Objects.requireNonNull(policy, "saturationPolicy");
            return this;
        }

        /**
         * Whether {@link WorkStealingPool#shutdown()} cancels the one-shot delayed tasks still
         * waiting for their delay, so that the pool terminates promptly, as
         * {@code ScheduledThreadPoolExecutor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false)}.
         * Default false: they run when due, and the pool terminates after the last one.
         * Periodic tasks stop at shutdown either way.
         *
         * @param cancel true to cancel waiting one-shot delayed tasks at shutdown
         * @return this builder
         */
        public Builder cancelDelayedTasksOnShutdown(boolean cancel) {
            this.cancelDelayedTasksOnShutdown = cancel;
            return this;
        }

        /**
         * Wraps every task submitted through the {@link ExecutorService} and
         * {@link ScheduledExecutorService} methods, as Spring's {@code TaskDecorator} does for
         * its executors: {@code decorator} is called in the submitting thread with the task and
         * returns the {@code Runnable} that a worker runs in its place. So it can capture what
         * the submitter holds in {@code ThreadLocal}s (a logging MDC, a tracing or security
         * context) and restore it around the task on the worker. With Micrometer's
         * context-propagation library:
         *
         * <pre>{@code
         * ContextSnapshotFactory snapshots = ContextSnapshotFactory.builder()
         *         .contextRegistry(new ContextRegistry().loadThreadLocalAccessors()
         *                 .registerThreadLocalAccessor(new Slf4jThreadLocalAccessor())) // the MDC
         *         .build();
         * WorkStealingPool pool = WorkStealingPool.builder()
         *         .taskDecorator(task -> snapshots.captureAll().wrap(task))
         *         .build();
         * }</pre>
         * The library finds the accessors on the class path through {@code ServiceLoader};
         * SLF4J's MDC is not one of them and must be registered, as here.
         *
         * <p><b>What is decorated</b>, from any thread, the pool's own workers included (a task
         * that submits more work passes its context on): {@code execute} and the
         * {@code submit}s of a {@code Runnable} or {@code Callable} (the decorator gets the
         * future, whose run runs the task, as under Spring's {@code ThreadPoolTaskExecutor});
         * each task of {@code invokeAll} and {@code invokeAny}; the {@code schedule} methods,
         * once, when the task is scheduled (a periodic task runs every period inside the same
         * decorated {@code Runnable}, as under Spring's {@code ThreadPoolTaskScheduler}); and
         * {@code submitWithTimeout}'s call and timeout action. A task run by its submitter under
         * {@link SaturationPolicy#CALLER_RUNS} runs decorated too.
         *
         * <p><b>What is not</b>: fork/join work, that is every {@link Task} (forked, invoked,
         * or given to {@code submit} or {@code execute}), the halves of
         * {@link WorkStealingPool#join}, the tasks of a {@link Scope} and range loops. A
         * computation runs in forks, most of them on workers that stole them: decorating its
         * root alone would give the context to some of its pieces and not to others, depending
         * on who steals what, and decorating every fork would cost each one a capture and an
         * allocation on the pool's fastest path. A fork runs with whatever its thread holds at
         * the time. A computation that needs the context captures it once and opens it in each
         * piece (docs/context-propagation.md shows how).
         *
         * <p><b>Futures and failures</b> are the pool's as without a decorator: a
         * {@code submit} returns the pool's future, whose {@code cancel(true)} interrupts the
         * worker running the decorated {@code Runnable} and whose {@code get} reports the
         * task's failure; a failure under {@code execute} goes to the
         * {@linkplain #uncaughtExceptionHandler handler} as it leaves the decorated
         * {@code Runnable}. {@link WorkStealingPool#shutdownNow()} returns the tasks as they
         * were submitted (the futures of {@code submit}), not their decorated forms, so that
         * they can be cancelled, as Spring's executor cancels decorated tasks at shutdown.
         *
         * <p><b>The decorated {@code Runnable}</b>:
         * <ul>
         *   <li>must restore what the thread held before it, not clear it: a worker that waits
         *       in a join or in {@code Future.get()} runs other tasks on top of the waiting
         *       one, on the same thread, so one decorated task may run inside another.
         *       Micrometer's {@code ContextSnapshot.wrap} restores. The restoring code must
         *       bear an interrupted thread: the interrupt of a {@code cancel(true)} is still
         *       set while it runs (the pool clears it before the worker's next task);</li>
         *   <li>must run the task it was given, exactly once per call: a {@code submit}'s
         *       future whose task never runs never completes, as under Spring's executors
         *       ({@code submitWithTimeout}'s task fails with an {@link IllegalStateException}
         *       instead);</li>
         *   <li>may be called again before a previous call has returned: a periodic task sets
         *       up its next run inside the task, before the decorator's code after it runs, so
         *       another worker may start the next run meanwhile (as under
         *       {@code ScheduledThreadPoolExecutor} and Spring's schedulers). Keep what one call
         *       needs in local variables, not in fields of the {@code Runnable}.</li>
         * </ul>
         *
         * <p>If the decorator throws, the submitter gets its exception as it is; if it returns
         * null, a {@link NullPointerException} saying so. Either way this happens before the
         * task is queued or counted: the task does not run, and the pool is left as it was (no
         * room of {@link #maxQueuedSubmissions} taken, no delayed task pending; only the timer
         * thread may have started, which the first {@code schedule} of a pool, or
         * {@code submitWithTimeout} with an action, starts before it calls the decorator: it
         * counts nothing and ends with the pool). The rule holds per task: when the
         * decorator fails on a later task of one {@code invokeAll} or {@code invokeAny}, the
         * earlier ones were submitted, and the JDK's {@code AbstractExecutorService} cancels
         * them ({@code cancel(true)}) before the exception reaches the caller, as after a
         * rejection part-way. Default: none, and then a submission costs one null check more.
         *
         * @param decorator called in the submitting thread with each task; returns what a
         *                  worker runs in its place, which must run the task (exactly once per
         *                  call)
         * @return this builder
         * @throws NullPointerException if {@code decorator} is null
         */
        public Builder taskDecorator(UnaryOperator<Runnable> decorator) {
            this.taskDecorator = Objects.requireNonNull(decorator, "taskDecorator");
            return this;
        }

        /**
         * Number of worker threads; default {@code Runtime.getRuntime().availableProcessors()}.
         *
         * @param parallelism how many workers the pool has, each with its own thread and deque
         * @return this builder
         * @throws IllegalArgumentException if not in {@code [1, MAX_PARALLELISM]}
         */
        public Builder parallelism(int parallelism) {
            if (parallelism < 1 || parallelism > MAX_PARALLELISM) {
                throw new IllegalArgumentException("parallelism must be between 1 and "
                        + MAX_PARALLELISM + ": " + parallelism);
            }
            this.parallelism = parallelism;
            return this;
        }

        /**
         * Prefix of the worker threads' names ({@code prefix-worker-0}, ...); default
         * {@code stealpool-N}. Applies to the pool's own threads, so not with
         * {@link #threadFactory}.
         *
         * @param prefix the start of every worker thread's name
         * @return this builder
         * @throws NullPointerException     if {@code prefix} is null
         * @throws IllegalArgumentException if {@code prefix} is empty
         */
        public Builder threadNamePrefix(String prefix) {
            Objects.requireNonNull(prefix, "threadNamePrefix");
            if (prefix.isEmpty()) {
                throw new IllegalArgumentException("threadNamePrefix must not be empty");
            }
            this.threadNamePrefix = prefix;
            return this;
        }

        /**
         * Whether the worker threads are daemon threads; default false, as
         * {@link Executors#defaultThreadFactory()}. Applies to the pool's own threads, so not
         * with {@link #threadFactory}.
         *
         * @param daemon true for daemon workers, which do not keep the JVM alive
         * @return this builder
         */
        public Builder daemon(boolean daemon) {
            this.daemon = daemon;
            return this;
        }

        /**
         * Creates the worker threads instead of the pool. The factory must return a new,
         * unstarted thread that runs the given {@code Runnable}; if it throws or returns null,
         * {@link #build()} fails and no thread is left running.
         *
         * @param factory makes the worker threads: one per worker while {@link #build()} runs,
         *                and a replacement for a worker thread that dies unexpectedly
         * @return this builder
         * @throws NullPointerException if {@code factory} is null
         */
        public Builder threadFactory(ThreadFactory factory) {
            this.threadFactory = Objects.requireNonNull(factory, "threadFactory");
            return this;
        }

        /**
         * Receives whatever a task run by {@code execute} throws, called on the worker thread,
         * which then carries on. Default: the worker thread's own
         * {@link Thread#getUncaughtExceptionHandler() uncaught-exception handler}, as if the task
         * had ended the thread (with no handler set anywhere, the JVM prints the stack trace to
         * standard error, as {@link Executors#newFixedThreadPool} does). If the handler throws,
         * both are logged as an SLF4J warning.
         *
         * @param handler gets the worker thread and the throwable; it must not block for long,
         *                as the worker waits for it
         * @return this builder
         * @throws NullPointerException if {@code handler} is null
         */
        public Builder uncaughtExceptionHandler(Thread.UncaughtExceptionHandler handler) {
            this.uncaughtExceptionHandler = Objects.requireNonNull(handler, "uncaughtExceptionHandler");
            return this;
        }

        /**
         * Creates the pool and starts its workers. The builder may be used again: each call
         * makes a new pool.
         *
         * @return a new, running pool
         * @throws IllegalStateException if a thread factory is combined with
         *                               {@code threadNamePrefix} or {@code daemon}, or the thread
         *                               factory fails
         */
        public WorkStealingPool build() {
            if (threadFactory != null && (threadNamePrefix != null || daemon != null)) {
                throw new IllegalStateException("threadNamePrefix and daemon configure the pool's "
                        + "own threads; with a threadFactory, set them in the factory");
            }
            return new WorkStealingPool(this);
        }
    }
}
