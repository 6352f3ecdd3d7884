package io.github.stealpool;

import java.time.Duration;

/**
 * An immutable snapshot of a {@link WorkStealingPool}'s statistics, from
 * {@link WorkStealingPool#stats()}.
 *
 * <p>The counters only grow over a pool's life; the levels are what the pool looked like at the
 * moment of reading. Everything is read while the pool runs, without stopping it, so figures
 * are exact only when the pool is quiescent (as {@code ForkJoinPool.getStealCount()} is): a
 * task may be counted as completed before the matching submission is, and the levels are
 * approximate while tasks move. One lasting error is possible: a submission from outside the pool
 * that races with {@link WorkStealingPool#shutdownNow()} and is rejected may stay counted in
 * {@code externalSubmissions} if a snapshot was taken between its enqueueing and its rejection
 * (a counter must not go back, so the count is not lowered afterwards).
 *
 * <p>The hot-path counters ({@code completedTasks}, {@code workerSubmissions}, {@code steals},
 * {@code stealAttempts}) are kept per worker and summed on read; starting the JVM with
 * {@code -Dstealpool.statistics=false} turns them off (they then read 0), which exists to
 * measure what they cost.
 *
 * @param completedTasks      tasks run to the end, normally or exceptionally (forks taken back
 *                            by the worker that made them included: run there by a join, or
 *                            handed back by {@link Task#tryUnfork()})
 * @param failedTasks         tasks that threw on a worker: tasks given to {@code execute},
 *                            {@code submit}, {@code invokeAll} or {@code invokeAny}, and
 *                            {@link Task}s whose {@code compute} threw, whether the failure then
 *                            went to a future, a joiner, the failure handler or the thread's
 *                            uncaught-exception handler; not a future cancelled first. A
 *                            failure inside {@code join}, a scope or a range loop is not counted
 *                            on its own: it counts if it fails one of those tasks (called from
 *                            outside the pool, they run inside one). A task given to
 *                            {@code execute} that catches its own failure, such as a
 *                            {@code CompletableFuture.supplyAsync} step or a
 *                            {@code FutureTask}, does not count
 * @param externalSubmissions tasks submitted from threads outside the pool (through the
 *                            injection queue, or handed straight to a parked worker woken for
 *                            them)
 * @param workerSubmissions   tasks submitted by the pool's own workers: {@code execute} or
 *                            {@code submit} inside a task, {@code fork}, {@code join}, scopes and
 *                            range loops
 * @param rejectedSubmissions submissions refused with {@code RejectedExecutionException}: after
 *                            shutdown, by a worker whose deque is full, or from outside at the
 *                            bound of {@link WorkStealingPool.Builder#maxQueuedSubmissions}
 *                            (under {@link SaturationPolicy#ABORT}, or a {@code BLOCK}ed
 *                            submitter interrupted)
 * @param steals              tasks a worker took from another worker's deque (not counting
 *                            tasks taken from the injection queue)
 * @param stealAttempts       looks into another worker's deque, successful or not
 * @param parks               times a worker parked because it found nothing to do
 * @param wakeups             parked workers woken (by a new task, a finished join, or shutdown)
 * @param parkedNanos         total time workers spent parked, including parks still under way
 * @param queuedTasks         tasks waiting in the injection queue and in the workers' deques
 *                            (approximate)
 * @param activeWorkers       workers with a task in hand, as {@code ThreadPoolExecutor.getActiveCount()}
 *                            counts them: running it, or waiting inside it in a join or a
 *                            blocking call. A worker looking for work or parked idle is not
 *                            active, so a pool that has run nothing reports 0 (unlike
 *                            {@code ForkJoinPool.getActiveThreadCount()}, which counts searching
 *                            workers too). Written only when a worker runs out of work or gets
 *                            some: never while it has a backlog
 * @param runningWorkers      active workers not parked in a join (a task blocked in I/O or a
 *                            lock counts as running), as {@code ForkJoinPool.getRunningThreadCount()}
 *                            counts workers not blocked in a join. Written only when a worker
 *                            runs out of work, gets some, parks in a join or wakes from one
 * @param parkedWorkers       workers parked
 * @param poolSize            worker threads alive, spare threads included (see
 *                            {@link WorkStealingPool#blocking(BlockingCall)}): it grows above
 *                            {@code parallelism} while workers block, and shrinks as spares no
 *                            longer needed finish their task, or their keep-alive runs out
 * @param parallelism         the configured number of workers
 * @param blockedWorkers      threads inside {@link WorkStealingPool#blocking(BlockingCall)}
 *                            calls right now
 * @param compensations       spare threads started to stand in for blocked workers
 * @param callerRunSubmissions outside submissions that met the bound of a bounded pool and
 *                            were run by their submitting thread
 *                            ({@link SaturationPolicy#CALLER_RUNS}); not counted in
 *                            {@code externalSubmissions} or {@code completedTasks}. 0 for an
 *                            unbounded pool
 * @param blockedSubmissions  outside submissions that met the bound and waited for room
 *                            ({@link SaturationPolicy#BLOCK}, or a {@link Task} under
 *                            {@code CALLER_RUNS}), whether they were then queued or rejected.
 *                            0 for an unbounded pool
 * @param queueRemaining      room left below the bound: how many more outside submissions
 *                            would be queued now before the policy applies, as Micrometer's
 *                            {@code executor.queue.remaining}; {@link Long#MAX_VALUE} for an
 *                            unbounded pool (approximate, as the other levels)
 * @param scheduledOnce       calls of the one-shot {@code schedule} methods (Micrometer's
 *                            {@code executor.scheduled.once})
 * @param scheduledRepetitively calls of {@code scheduleAtFixedRate} and
 *                            {@code scheduleWithFixedDelay} (Micrometer's
 *                            {@code executor.scheduled.repetitively})
 * @param delayedTasksPending delayed tasks waiting for their delay: one-shot tasks not yet due,
 *                            periodic tasks between two runs, and the time limits of
 *                            {@code submitWithTimeout} (approximate while tasks move; a
 *                            cancelled one counts until the timer's next turn, at most
 *                            about a millisecond)
 */
public record PoolStats(
        long completedTasks,
        long failedTasks,
        long externalSubmissions,
        long workerSubmissions,
        long rejectedSubmissions,
        long steals,
        long stealAttempts,
        long parks,
        long wakeups,
        long parkedNanos,
        long queuedTasks,
        int activeWorkers,
        int runningWorkers,
        int parkedWorkers,
        int poolSize,
        int parallelism,
        int blockedWorkers,
        long compensations,
        long callerRunSubmissions,
        long blockedSubmissions,
        long queueRemaining,
        long scheduledOnce,
        long scheduledRepetitively,
        long delayedTasksPending) {

    /**
     * A snapshot of an unbounded pool with no delayed tasks, whose bound figures read 0, 0 and
     * {@link Long#MAX_VALUE} and delayed-task figures 0: the constructor of the releases before
     * {@link WorkStealingPool.Builder#maxQueuedSubmissions} and
     * {@link WorkStealingPool#schedule(Runnable, long, java.util.concurrent.TimeUnit)}, kept for
     * callers that build snapshots themselves.
     *
     * @param completedTasks      see the class comment, as for every parameter here
     * @param failedTasks         tasks that threw on a worker
     * @param externalSubmissions tasks submitted from outside the pool
     * @param workerSubmissions   tasks submitted by the pool's workers
     * @param rejectedSubmissions submissions refused
     * @param steals              tasks taken from another worker's deque
     * @param stealAttempts       looks into another worker's deque
     * @param parks               times a worker parked
     * @param wakeups             parked workers woken
     * @param parkedNanos         total time workers spent parked
     * @param queuedTasks         tasks waiting
     * @param activeWorkers       workers with a task in hand
     * @param runningWorkers      workers running tasks
     * @param parkedWorkers       workers parked
     * @param poolSize            worker threads alive
     * @param parallelism         the configured number of workers
     * @param blockedWorkers      threads inside blocking calls
     * @param compensations       spare threads started
     */
    public PoolStats(long completedTasks, long failedTasks, long externalSubmissions,
                     long workerSubmissions, long rejectedSubmissions, long steals,
                     long stealAttempts, long parks, long wakeups, long parkedNanos,
                     long queuedTasks, int activeWorkers, int runningWorkers, int parkedWorkers,
                     int poolSize, int parallelism, int blockedWorkers, long compensations) {
        this(completedTasks, failedTasks, externalSubmissions, workerSubmissions,
                rejectedSubmissions, steals, stealAttempts, parks, wakeups, parkedNanos,
                queuedTasks, activeWorkers, runningWorkers, parkedWorkers, poolSize, parallelism,
                blockedWorkers, compensations, 0L, 0L, Long.MAX_VALUE, 0L, 0L, 0L);
    }

    /**
     * A snapshot without the blocking-call figures, which read 0: the constructor of the
     * releases before {@link WorkStealingPool#blocking(BlockingCall)}, kept for callers that
     * build snapshots themselves (tests, adapters).
     *
     * @param completedTasks      see the class comment, as for every parameter here
     * @param failedTasks         tasks that threw on a worker
     * @param externalSubmissions tasks submitted from outside the pool
     * @param workerSubmissions   tasks submitted by the pool's workers
     * @param rejectedSubmissions submissions refused
     * @param steals              tasks taken from another worker's deque
     * @param stealAttempts       looks into another worker's deque
     * @param parks               times a worker parked
     * @param wakeups             parked workers woken
     * @param parkedNanos         total time workers spent parked
     * @param queuedTasks         tasks waiting
     * @param activeWorkers       workers with a task in hand
     * @param runningWorkers      workers running tasks
     * @param parkedWorkers       workers parked
     * @param poolSize            worker threads alive
     * @param parallelism         the configured number of workers
     */
    public PoolStats(long completedTasks, long failedTasks, long externalSubmissions,
                     long workerSubmissions, long rejectedSubmissions, long steals,
                     long stealAttempts, long parks, long wakeups, long parkedNanos,
                     long queuedTasks, int activeWorkers, int runningWorkers, int parkedWorkers,
                     int poolSize, int parallelism) {
        this(completedTasks, failedTasks, externalSubmissions, workerSubmissions,
                rejectedSubmissions, steals, stealAttempts, parks, wakeups, parkedNanos,
                queuedTasks, activeWorkers, runningWorkers, parkedWorkers, poolSize, parallelism,
                0, 0L, 0L, 0L, Long.MAX_VALUE, 0L, 0L, 0L);
    }

    /**
     * All submissions: external plus from workers.
     *
     * @return {@code externalSubmissions + workerSubmissions}
     */
    public long submittedTasks() {
        return externalSubmissions + workerSubmissions;
    }

    /**
     * {@link #parkedNanos()} as a Duration.
     *
     * @return the total time workers spent parked, to the nanosecond
     */
    public Duration parkedTime() {
        return Duration.ofNanos(parkedNanos);
    }

    /** A one-line summary, such as {@code completed=1200 failed=0 submitted=1200 (external 200, ...)}. */
    @Override
    public String toString() {
        return "completed=" + completedTasks
                + " failed=" + failedTasks
                + " submitted=" + submittedTasks()
                + " (external " + externalSubmissions + ", worker " + workerSubmissions + ")"
                + " rejected=" + rejectedSubmissions
                + " steals=" + steals + "/" + stealAttempts + " attempts"
                + " parks=" + parks
                + " wakeups=" + wakeups
                + " parked=" + String.format(java.util.Locale.ROOT, "%.3fs", parkedNanos / 1e9)
                + " queued~" + queuedTasks
                + " workers: active=" + activeWorkers + " running=" + runningWorkers
                + " parked=" + parkedWorkers
                + " size=" + poolSize + "/" + parallelism
                + (compensations == 0 ? "" : " blocked=" + blockedWorkers
                        + " compensations=" + compensations)
                + (queueRemaining == Long.MAX_VALUE && callerRunSubmissions == 0
                        && blockedSubmissions == 0 ? "" : " bound: remaining=" + queueRemaining
                        + " callerRan=" + callerRunSubmissions + " waited=" + blockedSubmissions)
                + (scheduledOnce == 0 && scheduledRepetitively == 0 && delayedTasksPending == 0 ? ""
                        : " scheduled: once=" + scheduledOnce + " repetitively=" + scheduledRepetitively
                        + " pending=" + delayedTasksPending);
    }
}
