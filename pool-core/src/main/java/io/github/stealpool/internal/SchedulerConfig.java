package io.github.stealpool.internal;

import java.util.concurrent.ThreadFactory;

/**
 * What a {@link Scheduler} is built from: one record instead of a row of constructors, each
 * adding a parameter to the one before.
 *
 * @param parallelism         number of workers
 * @param name                used in thread names (default factory) and log lines
 * @param threadFactory       creates the worker threads; null for the pool's own
 * @param daemon              whether the pool's own threads are daemons
 * @param failureHandler      receives what tasks run by {@code execute} throw; null for the
 *                            worker thread's own uncaught-exception handler
 * @param spinRounds          an idle worker's searches with a spin-wait pause before it parks
 * @param yieldRounds         then its searches with a {@link Thread#yield()} before it parks
 * @param fifo                each worker takes its own deque's tasks oldest first, from the
 *                            top, as thieves do ({@code ForkJoinPool}'s asyncMode); joins still
 *                            run a task's own forks newest first ({@link Worker})
 * @param maxSpares           the most spare threads alive at once, standing in for workers
 *                            inside {@code blocking} calls ({@link SpareThreads}); 0 for none
 * @param spareKeepAliveNanos how long an idle spare with nobody to stand in for waits before it
 *                            retires; positive
 * @param maxQueuedSubmissions the most outside submissions queued at once
 *                            ({@link SubmissionBound}); 0 for no bound
 * @param saturationPolicy    what an outside submitter does at that bound: {@link #ABORT},
 *                            {@link #CALLER_RUNS} or {@link #BLOCK}
 */
public record SchedulerConfig(int parallelism, String name, ThreadFactory threadFactory,
                              boolean daemon, Thread.UncaughtExceptionHandler failureHandler,
                              int spinRounds, int yieldRounds, boolean fifo, int maxSpares,
                              long spareKeepAliveNanos, int maxQueuedSubmissions,
                              int saturationPolicy) {

    /** At the bound, refuse the submission. */
    public static final int ABORT = SubmissionBound.ABORT;
    /** At the bound, the submitter runs the task (a Task waits for room instead). */
    public static final int CALLER_RUNS = SubmissionBound.CALLER_RUNS;
    /** At the bound, the submitter waits for room, interruptibly. */
    public static final int BLOCK = SubmissionBound.BLOCK;

    /** Checks the spare and bound settings; the pool's builder checks the rest. */
    public SchedulerConfig {
        if (maxSpares < 0 || spareKeepAliveNanos <= 0L) {
            throw new IllegalArgumentException("maxSpares " + maxSpares + " must be >= 0 and the "
                    + "keep-alive " + spareKeepAliveNanos + " ns positive");
        }
        if (maxQueuedSubmissions < 0 || saturationPolicy < ABORT || saturationPolicy > BLOCK) {
            throw new IllegalArgumentException("maxQueuedSubmissions " + maxQueuedSubmissions
                    + " must be >= 0 and saturationPolicy " + saturationPolicy + " one of 0, 1, 2");
        }
    }

    /**
     * An unbounded configuration: the constructor before {@code maxQueuedSubmissions} came.
     *
     * @param parallelism         number of workers
     * @param name                used in thread names and log lines
     * @param threadFactory       creates the worker threads; null for the pool's own
     * @param daemon              whether the pool's own threads are daemons
     * @param failureHandler      receives what tasks run by {@code execute} throw; may be null
     * @param spinRounds          an idle worker's spin rounds
     * @param yieldRounds         then its yield rounds
     * @param fifo                each worker takes its own deque's tasks oldest first
     * @param maxSpares           the most spare threads alive at once
     * @param spareKeepAliveNanos an idle spare's keep-alive; positive
     */
    public SchedulerConfig(int parallelism, String name, ThreadFactory threadFactory,
                           boolean daemon, Thread.UncaughtExceptionHandler failureHandler,
                           int spinRounds, int yieldRounds, boolean fifo, int maxSpares,
                           long spareKeepAliveNanos) {
        this(parallelism, name, threadFactory, daemon, failureHandler, spinRounds, yieldRounds,
                fifo, maxSpares, spareKeepAliveNanos, 0, ABORT);
    }

    /**
     * A configuration with LIFO workers and no spare threads, as tests of the scheduler alone
     * use it.
     *
     * @param parallelism number of workers
     * @param name        used in thread names
     * @param spinRounds  an idle worker's spin rounds
     * @param yieldRounds then its yield rounds
     * @return daemon threads from the pool's own factory, failures to the thread's handler
     */
    static SchedulerConfig basic(int parallelism, String name, int spinRounds, int yieldRounds) {
        return new SchedulerConfig(parallelism, name, null, true, null, spinRounds, yieldRounds,
                false, 0, 1L);
    }
}
