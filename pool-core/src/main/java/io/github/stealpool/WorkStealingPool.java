package io.github.stealpool;

import io.github.stealpool.internal.Scheduler;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A work-stealing thread pool: a drop-in {@link ExecutorService} that is faster than
 * {@link Executors#newFixedThreadPool(int)} on small tasks because its workers do not share one
 * locked queue.
 *
 * <p>Each worker owns a deque. A task submitted by one of the pool's own workers (from inside a
 * task) goes on that worker's deque, which it serves newest first; a task submitted from any
 * other thread goes to a global injection queue. An idle worker looks in its own deque, then in
 * the injection queue, then steals the oldest task of another worker chosen at random. Workers
 * with nothing to do spin briefly, yield, then park; a parked pool uses no CPU, and each new task
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
 *       to the builder's {@link Thread.UncaughtExceptionHandler} if one is set, else it is logged
 *       as an SLF4J warning. Tasks run by {@code submit} report it through their
 *       {@link java.util.concurrent.Future}.</li>
 *   <li>A task's interrupt status is cleared before the next task runs on the same worker.</li>
 *   <li>Tasks that block (I/O, sleeps, locks) hold their worker, as in a fixed thread pool; size
 *       the pool for the blocking share of the work.</li>
 * </ul>
 */
public final class WorkStealingPool extends AbstractExecutorService implements AutoCloseable {

    /** Largest parallelism a pool accepts (as {@link java.util.concurrent.ForkJoinPool}). */
    public static final int MAX_PARALLELISM = 0x7fff;

    private static final AtomicInteger POOL_IDS = new AtomicInteger();

    private final Scheduler scheduler;

    private WorkStealingPool(Builder b) {
        String name = b.threadNamePrefix != null
                ? b.threadNamePrefix
                : "stealpool-" + POOL_IDS.incrementAndGet();
        this.scheduler = new Scheduler(b.parallelism, name, b.threadFactory,
                b.daemon != null && b.daemon, b.uncaughtExceptionHandler);
        scheduler.start();
    }

    /** A builder with the defaults: parallelism {@code availableProcessors()}, non-daemon threads. */
    public static Builder builder() {
        return new Builder();
    }

    /** A pool with the default settings, the same as {@code builder().build()}. */
    public static WorkStealingPool create() {
        return builder().build();
    }

    // ------------------------------------------------------------------ ExecutorService

    /**
     * Runs {@code command} on some worker at some time.
     *
     * @throws NullPointerException       if {@code command} is null
     * @throws RejectedExecutionException if the pool is shut down
     */
    @Override
    public void execute(Runnable command) {
        scheduler.execute(Objects.requireNonNull(command, "command"));
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
     * @throws NullPointerException if {@code tasks} or any of its elements is null, checked
     *                              before any task is submitted (the JDK's default checks an
     *                              element only when it reaches it, which varies by JDK)
     */
    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks) throws InterruptedException, ExecutionException {
        return super.invokeAny(checkTasks(tasks));
    }

    /**
     * As {@link ExecutorService#invokeAny(Collection, long, TimeUnit)}.
     *
     * @throws NullPointerException if {@code tasks}, any of its elements or {@code unit} is null,
     *                              checked before any task is submitted
     */
    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
            throws InterruptedException, ExecutionException, TimeoutException {
        Objects.requireNonNull(unit, "unit");
        return super.invokeAny(checkTasks(tasks), timeout, unit);
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

    @Override
    public void shutdown() {
        scheduler.shutdown();
    }

    @Override
    public List<Runnable> shutdownNow() {
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
     * @throws NullPointerException if {@code unit} is null
     */
    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        Objects.requireNonNull(unit, "unit");
        return scheduler.awaitTermination(timeout, unit);
    }

    /**
     * Shuts the pool down and waits for its tasks to finish, as {@code ExecutorService.close()}
     * does on JDK 19+ (so try-with-resources works on JDK 17 too). If interrupted while waiting,
     * it calls {@link #shutdownNow()}, keeps waiting, and restores the interrupt status. Called
     * from one of the pool's own workers it only shuts down: waiting there would wait for itself.
     */
    @Override
    public void close() {
        shutdown();
        if (scheduler.currentWorker() != null) {
            return;
        }
        boolean interrupted = false;
        while (!isTerminated()) {
            try {
                awaitTermination(1L, TimeUnit.DAYS);
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

    // ------------------------------------------------------------------ introspection

    /** The number of workers. */
    public int parallelism() {
        return scheduler.parallelism();
    }

    /** Workers parked right now (for tests until the statistics API arrives). */
    int sleepingWorkers() {
        return scheduler.sleepingWorkers();
    }

    @Override
    public String toString() {
        return "WorkStealingPool[" + scheduler.name() + ", " + scheduler.runStateName()
                + ", parallelism = " + scheduler.parallelism()
                + ", queued tasks ~ " + scheduler.queuedTasks()
                + ", sleeping workers = " + scheduler.sleepingWorkers() + "]";
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

        private Builder() {
        }

        /**
         * Number of worker threads; default {@code Runtime.getRuntime().availableProcessors()}.
         *
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
         * @throws NullPointerException if {@code factory} is null
         */
        public Builder threadFactory(ThreadFactory factory) {
            this.threadFactory = Objects.requireNonNull(factory, "threadFactory");
            return this;
        }

        /**
         * Receives whatever a task run by {@code execute} throws; default: an SLF4J warning.
         *
         * @throws NullPointerException if {@code handler} is null
         */
        public Builder uncaughtExceptionHandler(Thread.UncaughtExceptionHandler handler) {
            this.uncaughtExceptionHandler = Objects.requireNonNull(handler, "uncaughtExceptionHandler");
            return this;
        }

        /**
         * Creates the pool and starts its workers.
         *
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
