package io.github.stealpool.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The counters one worker keeps on its hot path: tasks it completed, tasks it pushed on its own
 * deque, and its steals; off it, its spin and yield rounds, the tasks that threw on it, and
 * whether it is running tasks. Summed on read by {@link StatisticsAssembly#snapshot()} and
 * {@link StatisticsAssembly#idleRounds()}.
 *
 * <h2>Threading and orderings</h2>
 * <ul>
 *   <li>Written only by the owning worker's thread: an increment is a plain read of the field
 *       (nobody else writes it) and an opaque write. Opaque is a plain store on every mainstream
 *       CPU, but unlike a plain {@code long} store it cannot tear (JLS 17.7), so a reader never
 *       sees half an update. The compiler does not move memory accesses across it, which costs
 *       a fork/join pair a few percent (docs/lab/fork-fence.md); tearing would cost more.</li>
 *   <li>Read by any thread with {@code getOpaque}: each read returns a value the owner wrote, and
 *       successive reads of one counter never go backwards (opaque is coherent per variable).
 *       Nothing orders one counter against another, so a snapshot is only quiescently exact,
 *       like {@code ForkJoinPool.getStealCount()}.</li>
 *   <li>The fields sit between two blocks of padding (superclass fields come first, and the JVM
 *       never interleaves levels), so a worker bumping its counters never invalidates the cache
 *       line of another worker's counters or of anything a thief reads.</li>
 * </ul>
 *
 * <h2>Turning them off</h2>
 * {@link #ENABLED} is read once from the system property {@code stealpool.statistics}
 * ({@code false} turns these counters off). It is a static final, so the JIT folds the checks and
 * a pool without statistics runs exactly the code it would without this class. It exists to
 * measure what counting costs (pool-bench {@code StatisticsCostBenchmark}); the idle-side
 * statistics in {@link Sleep} are off the hot path and always kept.
 */
public final class WorkerStats extends WorkerStatsPad1 {

    /** False when the JVM was started with {@code -Dstealpool.statistics=false}. */
    public static final boolean ENABLED =
            !"false".equalsIgnoreCase(System.getProperty("stealpool.statistics"));

    private static final VarHandle COMPLETED;
    private static final VarHandle SUBMITTED;
    private static final VarHandle STEALS;
    private static final VarHandle STEAL_ATTEMPTS;
    private static final VarHandle SPIN_ROUNDS;
    private static final VarHandle YIELD_ROUNDS;
    private static final VarHandle FAILED;
    private static final VarHandle RUNNING;
    private static final VarHandle ACTIVE;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            COMPLETED = l.findVarHandle(WorkerStatsCounters.class, "completed", long.class);
            SUBMITTED = l.findVarHandle(WorkerStatsCounters.class, "submitted", long.class);
            STEALS = l.findVarHandle(WorkerStatsCounters.class, "steals", long.class);
            STEAL_ATTEMPTS = l.findVarHandle(WorkerStatsCounters.class, "stealAttempts", long.class);
            SPIN_ROUNDS = l.findVarHandle(WorkerStatsCounters.class, "spinRounds", long.class);
            YIELD_ROUNDS = l.findVarHandle(WorkerStatsCounters.class, "yieldRounds", long.class);
            FAILED = l.findVarHandle(WorkerStatsCounters.class, "failed", long.class);
            RUNNING = l.findVarHandle(WorkerStatsCounters.class, "running", boolean.class);
            ACTIVE = l.findVarHandle(WorkerStatsCounters.class, "active", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // --- accessors: access mode in the name (lo: getOpaque, sop: setOpaque), raw VarHandle
    // calls only here ---

    private long loCompleted() {
        return (long) COMPLETED.getOpaque(this);
    }

    private void sopCompleted(long v) {
        COMPLETED.setOpaque(this, v);
    }

    private long loSubmitted() {
        return (long) SUBMITTED.getOpaque(this);
    }

    private void sopSubmitted(long v) {
        SUBMITTED.setOpaque(this, v);
    }

    private long loSteals() {
        return (long) STEALS.getOpaque(this);
    }

    private void sopSteals(long v) {
        STEALS.setOpaque(this, v);
    }

    private long loStealAttempts() {
        return (long) STEAL_ATTEMPTS.getOpaque(this);
    }

    private void sopStealAttempts(long v) {
        STEAL_ATTEMPTS.setOpaque(this, v);
    }

    private long loSpinRounds() {
        return (long) SPIN_ROUNDS.getOpaque(this);
    }

    private void sopSpinRounds(long v) {
        SPIN_ROUNDS.setOpaque(this, v);
    }

    private long loYieldRounds() {
        return (long) YIELD_ROUNDS.getOpaque(this);
    }

    private void sopYieldRounds(long v) {
        YIELD_ROUNDS.setOpaque(this, v);
    }

    private long loFailed() {
        return (long) FAILED.getOpaque(this);
    }

    private void sopFailed(long v) {
        FAILED.setOpaque(this, v);
    }

    private boolean loRunning() {
        return (boolean) RUNNING.getOpaque(this);
    }

    private void sopRunning(boolean v) {
        RUNNING.setOpaque(this, v);
    }

    private boolean loActive() {
        return (boolean) ACTIVE.getOpaque(this);
    }

    private void sopActive(boolean v) {
        ACTIVE.setOpaque(this, v);
    }

    // Owner only.

    void incCompleted() {
        if (ENABLED) {
            sopCompleted(completed + 1);
        }
    }

    void incSubmitted() {
        if (ENABLED) {
            sopSubmitted(submitted + 1);
        }
    }

    void incSteals() {
        if (ENABLED) {
            sopSteals(steals + 1);
        }
    }

    void addStealAttempts(long n) {
        if (ENABLED) {
            sopStealAttempts(stealAttempts + n);
        }
    }

    // Owner only, on the idle path: always kept, as Sleep's statistics are.

    void incSpinRounds() {
        sopSpinRounds(spinRounds + 1);
    }

    void incYieldRounds() {
        sopYieldRounds(yieldRounds + 1);
    }

    // Owner only, off the hot path (a task threw; the worker starts or stops looking for work,
    // parks in a join, starts or exits): always kept.

    void incFailed() {
        sopFailed(failed + 1);
    }

    void setRunning(boolean running) {
        sopRunning(running);
    }

    /** The worker took a task after having none (true), or ran out of work (false). */
    void setBusy(boolean busy) {
        if (busy) { // running implies active: set it last, clear it first
            sopActive(true);
            sopRunning(true);
        } else {
            sopRunning(false);
            sopActive(false);
        }
    }

    // Any thread.

    long spinRounds() {
        return loSpinRounds();
    }

    long yieldRounds() {
        return loYieldRounds();
    }

    long completed() {
        return loCompleted();
    }

    long failed() {
        return loFailed();
    }

    boolean running() {
        return loRunning();
    }

    boolean active() {
        return loActive();
    }

    long submitted() {
        return loSubmitted();
    }

    long steals() {
        return loSteals();
    }

    long stealAttempts() {
        return loStealAttempts();
    }
}

abstract class WorkerStatsPad0 {
    long p00, p01, p02, p03, p04, p05, p06, p07;
    long p08, p09, p0a, p0b, p0c, p0d, p0e, p0f;
}

abstract class WorkerStatsCounters extends WorkerStatsPad0 {
    /**
     * Tasks this worker ran to the end (normally or not), plus forks it took back: to run them
     * (a join), or for its task to run ({@code Task.tryUnfork}).
     */
    long completed;
    /** Tasks this worker pushed on its own deque: execute/submit from a task, fork, join. */
    long submitted;
    /** Tasks taken from another worker's deque. */
    long steals;
    /** Looks into another worker's deque, successful or not. */
    long stealAttempts;
    /** Idle searches followed by a spin-wait pause (IdleStrategy's first phase). */
    long spinRounds;
    /** Idle searches followed by Thread.yield() (IdleStrategy's second phase). */
    long yieldRounds;
    /** Tasks that threw on this worker (execute, submit, Task), whatever caught the failure. */
    long failed;
    /**
     * Whether the worker is running tasks: it has a task in hand ({@link #active}) and is not
     * parked in a join. Written only when that changes: never while the worker has a backlog,
     * twice per task when it is fed one task at a time.
     */
    boolean running;
    /**
     * Whether the worker has a task in hand: set when it takes one after having none, cleared
     * when it runs out of work, so false in a worker that has run nothing yet. A task parked in
     * a join or blocked in a call still counts. Written as {@link #running} is.
     */
    boolean active;
}

abstract class WorkerStatsPad1 extends WorkerStatsCounters {
    long p10, p11, p12, p13, p14, p15, p16, p17;
    long p18, p19, p1a, p1b, p1c, p1d, p1e, p1f;
}
