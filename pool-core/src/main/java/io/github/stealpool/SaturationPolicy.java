package io.github.stealpool;

import java.util.concurrent.RejectedExecutionException;

/**
 * What a submission from outside the pool meets when {@link
 * WorkStealingPool.Builder#maxQueuedSubmissions(int) maxQueuedSubmissions} tasks are already
 * queued: set with {@link WorkStealingPool.Builder#saturationPolicy(SaturationPolicy)}. The
 * counterpart of {@code ThreadPoolExecutor}'s {@code RejectedExecutionHandler} for a bounded
 * queue.
 *
 * <p>Only submissions from threads that are not this pool's workers meet it: a task submitted,
 * forked or spawned by one of the pool's own tasks is always accepted, since refusing or
 * blocking it could deadlock a fork/join computation (its parent would wait for a child that
 * waits for room that only the parent's completion makes). After shutdown every policy rejects.
 */
public enum SaturationPolicy {

    /**
     * The default: the submission is refused with a {@link RejectedExecutionException} whose
     * message names the bound, and counted in {@link PoolStats#rejectedSubmissions()}, as
     * {@code ThreadPoolExecutor.AbortPolicy}.
     */
    ABORT,

    /**
     * The submitting thread runs the task itself, before {@code execute} returns, as
     * {@code ThreadPoolExecutor.CallerRunsPolicy}; this slows the submitter down to the pool's
     * pace. A failure of a task given to {@code execute} is thrown to the caller (as with
     * {@code CallerRunsPolicy}); a {@code submit}ted task keeps it in its future. Counted in
     * {@link PoolStats#callerRunSubmissions()}, not as a submission or a completed task of the
     * pool. Two exceptions: after shutdown the task is rejected rather than run (where
     * {@code CallerRunsPolicy} drops it silently), and a {@link Task} (which may fork and join,
     * and must run on a worker) is not run by the caller: its submitter waits for room, as under
     * {@link #BLOCK}.
     */
    CALLER_RUNS,

    /**
     * The submitting thread waits until there is room, then the task is queued. The wait is
     * interruptible: an interrupted submitter gets a {@link RejectedExecutionException} (with
     * the {@link InterruptedException} as its cause) and keeps its interrupt status. A submitter
     * waiting when the pool shuts down is rejected once room frees up ({@code shutdownNow}
     * frees it at once). Counted in {@link PoolStats#blockedSubmissions()}.
     */
    BLOCK
}
