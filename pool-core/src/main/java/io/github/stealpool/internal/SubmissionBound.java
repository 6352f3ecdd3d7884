package io.github.stealpool.internal;

import io.github.stealpool.internal.jfr.CallerRanEvent;
import io.github.stealpool.internal.jfr.SubmissionHeldBackEvent;
import io.github.stealpool.internal.jfr.SubmissionRefusedEvent;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.LongAdder;

/**
 * The bound on outside submissions waiting in the {@link InjectionQueue}
 * ({@code Builder.maxQueuedSubmissions}), and what a submitter does at it. Exists only for a
 * bounded pool: an unbounded one has none, and its submit path pays one null check of a final
 * field ({@code Scheduler.pushExternal}).
 *
 * <h2>Permits: what they count</h2>
 * A permit stands for one task in the injection queue (a stripe, its stash, or an offer in
 * transit), or for a submitter between taking a permit and offering its task. So
 * {@code max - availablePermits()} is that count, and the rules that keep it so are: every
 * offer to the queue takes a permit first, and every task that leaves the queue gives one back.
 * <ul>
 *   <li><b>Taken</b>: by an outside submitter before its offer ({@link #tryAcquire()}, or
 *       waiting under BLOCK); by a re-offer that is no submission (a late submitter's sweep
 *       putting other submitters' tasks back, a dead worker's deque handed on:
 *       {@link InjectionQueue#requeue}), which takes it by force ({@link #forceAcquire}): such a
 *       task must not be refused or wait, and it may push the count past the bound for a
 *       moment (after shutdownNow, or once per dead worker); the timer's due delayed tasks
 *       take theirs by force too ({@code Scheduler.queueDelayed}), and they may overdraw it
 *       for as long as due tasks keep arriving faster than the workers take them.</li>
 *   <li><b>Given back</b>: when a worker takes a batch out of a stripe (one per task, in
 *       {@link InjectionQueue#poll}, after a transfer that succeeded: a batch that failed to
 *       reach the deque stays stashed in the stripe, counted); when a sweep drains the queue
 *       ({@link InjectionQueue#drainTo}: shutdownNow's, or a late submitter's, whose own task is
 *       then rejected with its permit already back); by a submitter whose offer threw, or that
 *       waited under BLOCK and found the pool shut down.</li>
 * </ul>
 * A task handed straight to a parked worker ({@code Sleep.tryHandOff}) never enters the queue
 * and takes no permit. A task leaves the queue exactly once (InjectionQueue's invariants: one
 * consumer per stripe, every task taken once), so its permit is given back exactly once: no
 * leak, no double release, short of an Error (out of stack deep in a join, out of memory) in
 * the release itself, which may lose that room: a worker's release sits where a failed call
 * must not lose the batch's first task, so the Error is swallowed there. A cancelled future
 * still queued keeps its permit until a worker takes it (and finds it cancelled) or a sweep
 * drains it, as a cancelled task stays in a {@code ThreadPoolExecutor}'s queue.
 *
 * <h2>How exact the bound is</h2>
 * The permits bound the tasks in the injection queue, not the tasks not yet started: a worker
 * takes up to {@link InjectionQueue#BATCH} tasks at once, runs the first and pushes the others
 * on its own deque, where they wait (for it or a thief) uncounted. A worker takes a batch only
 * when its own deque is empty, so at any moment the outside tasks accepted and not yet started
 * are at most {@code max + (BATCH - 1)} per worker thread (spares included), and at most
 * {@code max} while the workers are all busy with tasks that hold them.
 *
 * <h2>Waiting</h2>
 * A BLOCK submitter waits in {@link Semaphore#acquire()}: the semaphore's own queue, so no
 * wake-up is lost between a failed try and the wait, and an interrupt ends the wait. Every
 * release unparks a waiter if there is one; with none, it is a CAS on the permit count (once per
 * batch on the workers' side).
 */
final class SubmissionBound extends Semaphore {

    private static final long serialVersionUID = 1L;

    static final int ABORT = 0;
    static final int CALLER_RUNS = 1;
    static final int BLOCK = 2;

    /** The bound: {@code Builder.maxQueuedSubmissions}. */
    final int max;
    /** ABORT, CALLER_RUNS or BLOCK. */
    final int policy;
    /** Submissions that the caller ran (CALLER_RUNS). */
    final LongAdder callerRuns = new LongAdder();
    /** Submissions that found the bound reached and waited for room (BLOCK, or a Task under CALLER_RUNS). */
    final LongAdder blocked = new LongAdder();

    SubmissionBound(int max, int policy) {
        super(max); // not fair: a submitter that finds room takes it, as a queue's offer would
        if (max < 1 || policy < ABORT || policy > BLOCK) {
            throw new IllegalArgumentException("bound " + max + " must be positive, policy " + policy
                    + " one of 0, 1, 2");
        }
        this.max = max;
        this.policy = policy;
    }

    /** Takes {@code n} permits whether or not any is left: for re-offers, which are no submissions. */
    void forceAcquire(int n) {
        reducePermits(n);
    }

    /** Room left before the bound, never negative (a forced re-offer may overdraw it). */
    int remaining() {
        return Math.max(0, availablePermits());
    }

    /**
     * An outside submitter of scheduler {@code s} found the bound reached: applies the policy.
     * Returns true with a permit taken (the caller offers the task), false if the caller ran
     * the task, or throws RejectedExecutionException (counted). Off the unbounded path.
     */
    boolean atBound(Scheduler s, Runnable task) {
        SubmissionBound b = this;
        if (policy == CALLER_RUNS && !ForkedJob.isForkJoinPiece(task)) {
            if (s.runState != Scheduler.RUNNING) {
                throw s.rejected(task); // not run after shutdown (CallerRunsPolicy drops it silently)
            }
            b.callerRuns.increment();
            CallerRanEvent event = FlightEventSupport.AVAILABLE
                    ? FlightEvents.callerRunBegins() : null; // null unless recorded
            try {
                task.run(); // a failure goes to the caller, as with CallerRunsPolicy
            } finally {
                if (event != null) {
                    FlightEvents.callerRan(event, s, b, task);
                }
            }
            return false;
        }
        if (policy == ABORT) {
            s.statistics.rejectedSubmissions.increment();
            if (FlightEventSupport.AVAILABLE) {
                FlightEvents.refused(s, task, SubmissionRefusedEvent.BOUND_REACHED);
            }
            throw new RejectedExecutionException(s.name() + ": " + b.max + " outside submissions "
                    + "already queued (maxQueuedSubmissions); task rejected");
        }
        // BLOCK, or a Task under CALLER_RUNS: it forks and joins, so it must run on a worker.
        b.blocked.increment();
        Worker.publishForksOfCurrent(); // a worker of another pool waits here running no task
        SubmissionHeldBackEvent event = FlightEventSupport.AVAILABLE
                ? FlightEvents.holdBegins() : null; // null unless recorded
        try {
            b.acquire();
        } catch (InterruptedException e) {
            if (event != null) {
                FlightEvents.holdEnded(event, s, b, task, false);
            }
            Thread.currentThread().interrupt(); // kept for the caller
            s.statistics.rejectedSubmissions.increment();
            if (FlightEventSupport.AVAILABLE) {
                FlightEvents.refused(s, task, SubmissionRefusedEvent.INTERRUPTED);
            }
            RejectedExecutionException r = new RejectedExecutionException(s.name() + ": interrupted "
                    + "while waiting for room below " + b.max + " queued outside submissions "
                    + "(maxQueuedSubmissions); task rejected");
            r.initCause(e);
            throw r;
        }
        if (s.runState != Scheduler.RUNNING) { // shut down while this submitter waited
            b.release();
            if (event != null) {
                FlightEvents.holdEnded(event, s, b, task, false);
            }
            throw s.rejected(task);
        }
        if (event != null) {
            FlightEvents.holdEnded(event, s, b, task, true);
        }
        return true;
    }
}
