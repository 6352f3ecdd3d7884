package io.github.stealpool.internal;

import java.util.concurrent.atomic.LongAdder;
import io.github.stealpool.PoolStats;

/**
 * Builds the public {@link PoolStats} from the workers' counters ({@link WorkerStats}), Sleep's
 * idle totals and the scheduler's levels, and keeps the counts that belong to no worker: refused
 * submissions, and the offers to the injection queue that were no submissions, which the
 * external-submission count subtracts. Each figure is read without stopping the pool.
 *
 * <p>It reads the scheduler's fields directly, with the modes they have there (a volatile read of
 * {@code slots} before the slot arrays, of {@code liveWorkers}), in the order the scheduler read
 * them when this code was its own. The scheduler writes the two counts here: a refusal, a late
 * submitter settling under mainLock, and a dead worker's tasks handed on; none is on the path of
 * an accepted task.
 */
final class StatisticsAssembly {

    private final Scheduler scheduler;

    /** Submissions refused with RejectedExecutionException; only the refusing path writes it. */
    final LongAdder rejectedSubmissions = new LongAdder();
    /**
     * Offers to the injection queue that were not submissions: tasks put back while settling a
     * race with shutdownNow, a dead worker's tasks handed on, and late tasks rejected after
     * their offer. Subtracted from the queue's offer count. Written under mainLock.
     */
    volatile long offersNotSubmitted;
    /**
     * Largest external-submission count reported, which keeps the counter monotonic. Its own
     * object, so that statistics readers never write next to the fields every submitter reads.
     */
    private final long[] externalReported = new long[1]; // guarded by itself
    /**
     * Largest parked time reported, guarded by {@link #externalReported}: a waker reads the clock
     * before it takes Sleep's lock (Sleep, "Errors"), so a park it ends may be recorded a little
     * shorter than a reader saw it while it was under way; the clamp keeps the total monotonic.
     */
    private long parkedNanosReported;

    StatisticsAssembly(Scheduler scheduler) {
        this.scheduler = scheduler;
    }

    /**
     * The idle phases so far, summed over the workers: {@code [spin rounds, yield rounds,
     * parks]}. For tests of the idle strategy.
     */
    long[] idleRounds() {
        Scheduler s = scheduler;
        long spins = 0;
        long yields = 0;
        for (int i = 0, n = s.slots(); i < n; i++) {
            Worker w = s.workers[i];
            spins += w.stats.spinRounds();
            yields += w.stats.yieldRounds();
        }
        return new long[] {spins, yields, s.sleep.idleTotals()[0]};
    }

    /**
     * A snapshot of the statistics: the workers' counters summed, the idle totals, and the
     * current levels. Each figure is read without stopping the pool, so they are exact only
     * while it is quiescent; each counter on its own never decreases between snapshots.
     */
    PoolStats snapshot() {
        Scheduler s = scheduler;
        Worker[] workers = s.workers;
        long completed = 0;
        long failed = 0;
        long fromWorkers = 0;
        long steals = 0;
        long attempts = 0;
        int n = s.slots();
        for (int i = 0; i < n; i++) {
            WorkerStats st = workers[i].stats;
            completed += st.completed();
            failed += st.failed();
            fromWorkers += st.submitted();
            steals += st.steals();
            attempts += st.stealAttempts();
        }
        long[] idle = s.sleep.idleTotals();
        long external;
        synchronized (externalReported) {
            // offersNotSubmitted is raised just before the offers it accounts for, and is read
            // after the offer count (left operand first), so re-offers make a reading err low,
            // never high; the clamp hides that. One case errs high: a submission that raced with
            // shutdownNow, read between its offer and its rejection; the clamp keeps that one.
            // Tasks handed to a woken worker (idle[3]) never reach the queue: counted under
            // Sleep's lock before their worker is released, and read after the completions.
            external = Math.max(externalReported[0],
                    s.injection.offeredCount() - offersNotSubmitted + idle[3]); // + hand-offs
            externalReported[0] = external;
            idle[2] = parkedNanosReported = Math.max(parkedNanosReported, idle[2]);
        }
        int size = s.liveWorkers;
        int parked = s.sleep.sleepingWorkers();
        // Flags read one after another, while workers come and go: an estimate, clamped to the
        // workers alive. A worker parked in a join is parked and active at once.
        int running = 0;
        int active = 0;
        for (int i = 0; i < n; i++) {
            WorkerStats ws = workers[i].stats;
            if (ws.running()) {
                running++;
            }
            if (ws.active()) {
                active++;
            }
        }
        active = Math.min(active, size);
        running = Math.min(running, active); // each flag read apart: a worker may change between
        SubmissionBound b = s.bound; // null unless bounded
        DelayScheduler d = s.delays; // null until the first schedule
        return new PoolStats(completed, failed, external, fromWorkers, rejectedSubmissions.sum(),
                steals, attempts, idle[0], idle[1], idle[2], s.queuedTasks(),
                active, Math.min(running, size), parked, size, s.parallelism,
                Math.min(s.spares.blockedWorkers(), size), s.spares.compensations(),
                b == null ? 0L : b.callerRuns.sum(), b == null ? 0L : b.blocked.sum(),
                b == null ? Long.MAX_VALUE : b.remaining(),
                d == null ? 0L : d.scheduledOnce(), d == null ? 0L : d.scheduledRepetitively.sum(),
                d == null ? 0L : d.pending());
    }
}
