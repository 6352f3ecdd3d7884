package io.github.stealpool.internal;

import static io.github.stealpool.internal.Scheduler.RUNNING;
import static io.github.stealpool.internal.Scheduler.SHUTDOWN;
import static io.github.stealpool.internal.Scheduler.STOP;
import static io.github.stealpool.internal.Scheduler.TERMINATED;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pool's life cycle, one per {@link Scheduler} ({@code Scheduler.life}): shutdown, workers
 * retiring and exiting, termination and waiting for it, and the timer's hold on the pool. The
 * fields it changes ({@code runState}, {@code liveWorkers}, {@code delayHold}, {@code delays})
 * stay on the Scheduler: its submit path and the worker loop read them with no indirection.
 *
 * <h2>Run states</h2>
 * {@code runState} moves only forward: RUNNING, SHUTDOWN (no new tasks; queued ones run),
 * STOP (no new tasks; queued ones are handed back by {@link #shutdownNow()}, fork/join pieces
 * cancelled, see {@link ForkedJob}), TERMINATED (no
 * worker left). Changes happen under {@code mainLock}, which is taken only off the hot path:
 * shutdown, a worker retiring or exiting, and a submitter that raced with shutdown.
 *
 * <h2>Nothing lost</h2>
 * The workers' ways out keep {@link ShutdownSweep}'s rules: {@link #tryRetire} only with every
 * queue empty, and {@link #workerExited} hands a dead worker's deque on before STOP and
 * settles the deque of one exiting after STOP ({@link ShutdownSweep#settleExit}); it leaves
 * it alone otherwise.
 *
 * <h2>The timer's hold</h2>
 * From the timer's start ({@link #startDelays}) until it lets go ({@link #delaysFinished}) no
 * worker retires and the pool does not terminate, and a change of run state waits until the
 * timer has applied it ({@link #awaitDelayPolicy}): {@link DelayScheduler} holds the rules and
 * their proof.
 */
final class LifeCycle {

    /** The scheduler's logger: these lines were always the scheduler's. */
    private static final Logger LOG = LoggerFactory.getLogger(Scheduler.class);

    private final Scheduler pool;
    /**
     * Under mainLock: signalled as the pool terminates and by the timer as it applies a run
     * state or lets go; awaitTermination and awaitDelayPolicy wait on it.
     */
    private final Condition termination;
    /** Completed after termination, outside mainLock, so callbacks cannot block the pool. */
    private final CompletableFuture<Void> terminated = new CompletableFuture<>();
    /** Set by the one {@link #fireTermination} call that records the termination and completes {@link #terminated}. */
    private final AtomicBoolean terminationFired = new AtomicBoolean();
    /** Builder's {@code cancelDelayedTasksOnShutdown}; set only before {@link Scheduler#start()}. */
    private boolean cancelDelayedOnShutdown;

    /** Made with {@code pool}, after its {@code mainLock}. */
    LifeCycle(Scheduler pool) {
        this.pool = pool;
        this.termination = pool.mainLock.newCondition();
    }

    // ------------------------------------------------------------------ workers' way out

    /**
     * Called by an idle worker after shutdown: it retires if no task is queued anywhere, and,
     * while threads are blocked in {@code blocking} calls, if another thread stays free to run
     * what they fork. The check and the count are one step under mainLock: a late submitter
     * under SHUTDOWN counts on it (ShutdownSweep, "Submissions racing with shutdown").
     */
    boolean tryRetire(Worker w) {
        pool.mainLock.lock();
        try {
            if (pool.delayHold || !pool.injection.isEmpty() || !pool.spares.leavingKeepsAFreeThread()) {
                return false;
            }
            for (int i = 0, n = pool.slots(); i < n; i++) {
                if (!pool.deques[i].isEmpty()) {
                    return false;
                }
            }
            w.retired = true;
            if (w.spare) {
                pool.spares.retiredAfterShutdown();
            }
            workerGone();
            return true;
        } finally {
            pool.mainLock.unlock();
            fireTermination();
        }
    }

    /** Called by a worker's thread as it ends, normally or not. */
    void workerExited(Worker w, boolean normalExit) {
        pool.mainLock.lock();
        try {
            if (w.retired) {
                // Counted off by tryRetire or SpareThreads.retire; a spare's slot may now take a
                // new thread: this one touches the Worker no more.
                if (w.spare) {
                    pool.spares.slotFreed(w);
                }
                return;
            }
            if (!normalExit && pool.runState < STOP) {
                if (w.spare) {
                    // A spare is not replaced: the compensation it gave is asked for again by
                    // the next blocking call.
                    LOG.error("{}: spare thread {} died unexpectedly", pool.name(), w.index);
                } else {
                    LOG.error("{}: worker {} died unexpectedly; starting a replacement", pool.name(), w.index);
                    try {
                        Thread t = pool.newThread(w);
                        w.thread = t;
                        t.start(); // the new thread owns the deque from here on
                        return;
                    } catch (Throwable e) {
                        LOG.error("{}: could not replace worker {}", pool.name(), w.index, e);
                    }
                }
                // Still the deque's owner: hand its tasks to the other workers. Not new
                // submissions: uncount them before the offers (see ShutdownSweep.settleLate).
                List<Runnable> orphans = new ArrayList<>();
                for (Runnable t; (t = w.deque.pop()) != null; ) {
                    orphans.add(t);
                }
                pool.statistics.offersNotSubmitted += orphans.size();
                for (Runnable t : orphans) {
                    pool.injection.requeue(t); // no submission: never refused by the bound
                }
                pool.sleep.notifyNewJob();
            } else if (pool.runState >= STOP) {
                pool.sweep.settleExit(w.deque); // forks the sweep could not see (rule 2); never throws
            }
            if (w.spare) {
                pool.spares.exitedUnretired(w); // a spare that died leaves a blocked worker uncovered
            }
            workerGone();
        } finally {
            pool.mainLock.unlock();
            fireTermination();
        }
    }

    void workerGone() { // under mainLock
        if (--pool.liveWorkers == 0 && !pool.delayHold) { // else the timer terminates the pool as it lets go
            if (pool.runState < SHUTDOWN) {
                LOG.error("{}: every worker died while the pool was running", pool.name());
                return;
            }
            if (pool.runState < STOP && pool.queuedTasks() > 0) {
                LOG.error("{}: the last worker died with about {} tasks queued; they will not run",
                        pool.name(), pool.queuedTasks());
            }
            terminate();
        }
    }

    void terminate() { // under mainLock
        pool.runState = TERMINATED;
        termination.signalAll();
    }

    /**
     * After releasing mainLock, once terminated: records the PoolTerminated event, then completes
     * {@link #terminationFuture()}. The first caller does both, in that order, so the event is
     * committed before the future's actions run (one may stop the recording); a racing caller
     * returns at once, leaving them to it.
     */
    void fireTermination() {
        if (pool.runState == TERMINATED && !terminationFired.get() && terminationFired.compareAndSet(false, true)) {
            try {
                if (FlightEventSupport.AVAILABLE) {
                    FlightEvents.terminated(pool);
                }
            } finally {
                terminated.complete(null);
            }
        }
    }

    /**
     * Completes when the scheduler has terminated, on the thread that terminated it (the last
     * worker to exit, or the caller of shutdown). Dependent actions run there, after every lock
     * is released.
     */
    CompletableFuture<Void> terminationFuture() {
        return terminated;
    }

    // ------------------------------------------------------------------ shutdown and termination

    void shutdown() {
        boolean changed = false;
        pool.mainLock.lock();
        try {
            if (pool.runState < SHUTDOWN) {
                pool.runState = SHUTDOWN;
                changed = true;
            }
            // Before the wait for the timer, which releases the lock: the timer may terminate
            // the pool meanwhile, and the termination event must come after this one.
            if (changed && FlightEventSupport.AVAILABLE) {
                FlightEvents.shutdown(pool, false, 0);
            }
            awaitDelayPolicy(SHUTDOWN);
            if (pool.liveWorkers == 0 && !pool.delayHold && pool.runState < TERMINATED) {
                terminate();
            }
        } finally {
            pool.mainLock.unlock();
            fireTermination();
        }
        pool.sleep.wakeAll();
    }

    List<Runnable> shutdownNow() {
        List<Runnable> never = new ArrayList<>();
        boolean changed = false;
        pool.mainLock.lock();
        try {
            if (pool.runState < STOP) {
                pool.runState = STOP;
                changed = true;
            }
            pool.probe.stopPublished();
            pool.sweep.sweepForStop(never); // the plain tasks, as submitted; fork/join pieces abandoned
            if (changed && FlightEventSupport.AVAILABLE) { // before the wait for the timer, as in shutdown()
                FlightEvents.shutdown(pool, true, never.size());
            }
            awaitDelayPolicy(STOP); // every delayed task still with the timer is cancelled
            if (pool.liveWorkers == 0 && !pool.delayHold && pool.runState < TERMINATED) {
                terminate();
            }
        } finally {
            pool.mainLock.unlock();
            fireTermination();
        }
        pool.sleep.wakeAll();
        Thread self = Thread.currentThread();
        for (int i = 0, n = pool.slots(); i < n; i++) {
            Thread t = pool.workers[i].thread;
            if (t != null && t != self) {
                t.interrupt(); // interrupts the task it runs, if any; an idle worker ignores it
            }
        }
        return never;
    }

    /**
     * Waits until TERMINATED, then for the worker threads themselves to end. TERMINATED is set
     * by the last worker on its way out ({@link #workerExited}), while its thread still runs
     * (as in {@code ThreadPoolExecutor}); without the joins a thread-leak check right after
     * {@code close()} could still see it. The joins share the
     * timeout; if it runs out first the answer is still true, the pool having terminated: what
     * may remain is the last thread's way out, and the {@code terminationFuture} actions that
     * run on it. A worker calling this does not wait for itself, nor does the timer thread (a
     * termination action may run there: the timer terminates the pool as it lets go if no
     * worker is left). While the timer holds the pool the wait looks every
     * {@link #TIMER_CHECK_NANOS} whether its thread died without letting go, and then takes
     * over (DelayScheduler, rule 6).
     */
    boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        Worker.publishForksOfCurrent(); // a worker of another pool waits here running no task
        boolean tookOver = false;
        pool.mainLock.lock();
        try {
            while (pool.runState != TERMINATED) {
                if (nanos <= 0L) {
                    return false;
                }
                DelayScheduler held = pool.delayHold ? pool.delays : null;
                if (held == null) {
                    nanos = termination.awaitNanos(nanos);
                } else if (held.takeOverIfDead()) {
                    tookOver = true;
                } else {
                    long wait = Math.min(nanos, TIMER_CHECK_NANOS);
                    nanos -= wait - termination.awaitNanos(wait);
                }
            }
        } finally {
            pool.mainLock.unlock();
            if (tookOver) {
                pool.delays.afterTakeOver();
            }
        }
        Thread me = Thread.currentThread();
        DelayScheduler d = pool.delays;
        if (d != null && nanos > 0L && d.thread != me) { // the timer thread ends with the pool (DelayScheduler, rule 5)
            long start = System.nanoTime();
            TimeUnit.NANOSECONDS.timedJoin(d.thread, nanos);
            nanos -= System.nanoTime() - start;
        }
        for (int i = 0, n = pool.slots(); i < n; i++) {
            Thread t = pool.workers[i].thread;
            if (t != null && t != me && nanos > 0L) {
                long start = System.nanoTime();
                TimeUnit.NANOSECONDS.timedJoin(t, nanos);
                nanos -= System.nanoTime() - start;
            }
        }
        return true;
    }

    // ------------------------------------------------------------------ the timer's hold

    /** Starts the timer on first use ({@code Scheduler.delays()}): under mainLock, once, only while RUNNING. */
    DelayScheduler startDelays() {
        pool.mainLock.lock();
        try {
            DelayScheduler d = pool.delays;
            if (d != null) {
                return d;
            }
            if (pool.runState != RUNNING) {
                throw pool.rejected();
            }
            d = new DelayScheduler(pool, cancelDelayedOnShutdown);
            d.start(); // if it throws, no hold was taken and no timer is kept
            pool.delayHold = true;
            pool.delays = d;
            return d;
        } finally {
            pool.mainLock.unlock();
        }
    }

    /** Builder's {@code cancelDelayedTasksOnShutdown}; called once, before {@link Scheduler#start()}. */
    void setCancelDelayedTasksOnShutdown(boolean cancel) {
        this.cancelDelayedOnShutdown = cancel;
    }

    /** Under mainLock: the timer let go of the pool (DelayScheduler, rule 2). */
    void delaysFinished() {
        pool.delayHold = false;
        if (pool.liveWorkers == 0 && pool.runState >= SHUTDOWN && pool.runState < TERMINATED) {
            terminate();
        }
        termination.signalAll();
    }

    /** Under mainLock: wakes the threads waiting on the termination condition. */
    void signalTermination() {
        termination.signalAll();
    }

    /**
     * How often a thread waiting for the timer looks whether its thread is still alive
     * (DelayScheduler, rule 6); the wait normally ends with a signal long before.
     */
    private static final long TIMER_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    /**
     * Under mainLock, after a run-state change: wakes the timer (if there is one) and waits
     * until it has applied the new state's policy (DelayScheduler, rules 1 and 3). The timer
     * never waits for a caller of this, and runs no user code, so the wait is short; if its
     * thread died without letting go, this one takes over (rule 6; what is left to do then,
     * {@code afterTakeOver}, both callers do anyway after unlocking: fireTermination).
     * Uninterruptible: an interrupt is kept for the caller.
     */
    private void awaitDelayPolicy(int rs) {
        DelayScheduler d = pool.delays;
        if (d == null) {
            return;
        }
        d.wakeUp();
        boolean interrupted = false;
        try {
            while (!d.hasApplied(rs)) {
                if (d.takeOverIfDead()) {
                    return;
                }
                try {
                    termination.awaitNanos(TIMER_CHECK_NANOS);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
