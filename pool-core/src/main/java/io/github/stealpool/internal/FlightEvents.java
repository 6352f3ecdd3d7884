package io.github.stealpool.internal;

import io.github.stealpool.internal.jfr.BlockingCallEvent;
import io.github.stealpool.internal.jfr.CallerRanEvent;
import io.github.stealpool.internal.jfr.PoolShutdownEvent;
import io.github.stealpool.internal.jfr.PoolTerminatedEvent;
import io.github.stealpool.internal.jfr.SubmissionHeldBackEvent;
import io.github.stealpool.internal.jfr.SubmissionRefusedEvent;
import io.github.stealpool.internal.jfr.TaskRunEvent;

/**
 * Fills and commits the pool's JDK Flight Recorder events (package {@code internal.jfr};
 * docs/flight-recorder.md), each only while a recording has it enabled.
 *
 * <h2>Costing nothing while off</h2>
 * The task path asks {@link #TASK_RUN}, an event that is never committed, whether its type is
 * enabled: {@code Event.isEnabled()} reads only the event class's static state, so one shared
 * instance answers for every thread, and nothing is allocated to ask. Until JFR instruments the
 * class (when JFR first starts in the process) the method is {@code jdk.jfr.Event}'s final
 * {@code return false}, which the JIT folds, with the branch, to nothing; once instrumented it
 * is a static field's load and the event type's flag, and the clock is read only when that
 * says yes ({@code begin()} reads it unconditionally). A flag of our own, refreshed by a
 * {@code FlightRecorderListener}, would cost a load and a branch even where JFR never starts,
 * and would go stale when a running recording's settings change ({@code Recording.enable},
 * {@code Recording.setSettings}), which tells no listener.
 * The other events are on paths that already take a lock, park, throw or run a task in the
 * caller, and ask a probe of their own the same way: an event is made only when it is enabled.
 *
 * <h2>Never in the way</h2>
 * Every method here swallows what it throws (out of memory, out of stack): the event is lost,
 * never the pool's state or a task's outcome. Several are called under the pool's lock. Nothing
 * calls into this class unless {@link FlightEventSupport#AVAILABLE} says it initialised: where
 * loading the event classes fails (no {@code jdk.jfr} module), the pool runs without events.
 */
final class FlightEvents {

    // Probes: asked isEnabled() only, never committed (see "Costing nothing while off").
    static final TaskRunEvent TASK_RUN = new TaskRunEvent();
    private static final SubmissionRefusedEvent REFUSED = new SubmissionRefusedEvent();
    private static final CallerRanEvent CALLER_RAN = new CallerRanEvent();
    private static final SubmissionHeldBackEvent HELD_BACK = new SubmissionHeldBackEvent();
    private static final BlockingCallEvent BLOCKING_CALL = new BlockingCallEvent();
    private static final PoolShutdownEvent SHUTDOWN = new PoolShutdownEvent();
    private static final PoolTerminatedEvent TERMINATED = new PoolTerminatedEvent();

    private FlightEvents() {
    }

    /** Does nothing: calling it initialises this class, which loads every event class ({@link FlightEventSupport}). */
    static void load() {
        // the static initialiser above did the work
    }

    /**
     * Runs {@code task} as {@code Scheduler.runTask} does, recording it if it runs for at least
     * the TaskRun threshold. Called only while {@link #TASK_RUN} is enabled.
     */
    static void runRecorded(Scheduler s, Runnable task) {
        TaskRunEvent e;
        try {
            e = new TaskRunEvent();
            e.begin();
        } catch (Throwable lost) {
            e = null; // the task runs all the same, unrecorded
        }
        s.runUnrecorded(task); // never throws for the task's failure
        if (e == null) {
            return;
        }
        try {
            e.end();
            if (e.shouldCommit()) {
                e.pool = s.name();
                e.taskClass = TaskWrapper.classOf(task);
                e.commit();
            }
        } catch (Throwable lost) {
            // the event is lost; the task ran and its outcome was recorded
        }
    }

    /** A submission of {@code task} (may be null) to {@code s} is refused, for {@code reason}. */
    static void refused(Scheduler s, Object task, String reason) {
        try {
            if (!REFUSED.isEnabled()) {
                return;
            }
            SubmissionRefusedEvent e = new SubmissionRefusedEvent();
            if (e.shouldCommit()) {
                e.pool = s.name();
                e.reason = reason;
                e.taskClass = TaskWrapper.classOf(task);
                e.commit();
            }
        } catch (Throwable lost) {
            // the refusal still throws
        }
    }

    /** A CallerRan event begun now, or null while it is disabled. */
    static CallerRanEvent callerRunBegins() {
        try {
            if (CALLER_RAN.isEnabled()) {
                CallerRanEvent e = new CallerRanEvent();
                e.begin();
                return e;
            }
        } catch (Throwable lost) {
            // no event
        }
        return null;
    }

    /** The caller ran {@code task} for {@code e} (from {@link #callerRunBegins}, may be null). */
    static void callerRan(CallerRanEvent e, Scheduler s, SubmissionBound b, Runnable task) {
        if (e == null) {
            return;
        }
        try {
            e.end();
            if (e.shouldCommit()) {
                e.pool = s.name();
                e.bound = b.max;
                e.taskClass = TaskWrapper.classOf(task);
                e.commit();
            }
        } catch (Throwable lost) {
            // the task ran; its outcome goes to the caller
        }
    }

    /** A SubmissionHeldBack event begun now, or null while it is disabled. */
    static SubmissionHeldBackEvent holdBegins() {
        try {
            if (HELD_BACK.isEnabled()) {
                SubmissionHeldBackEvent e = new SubmissionHeldBackEvent();
                e.begin();
                return e;
            }
        } catch (Throwable lost) {
            // no event
        }
        return null;
    }

    /** The wait of {@code e} (may be null) for room for {@code task} ended; {@code accepted} if it got some. */
    static void holdEnded(SubmissionHeldBackEvent e, Scheduler s, SubmissionBound b, Runnable task,
                          boolean accepted) {
        if (e == null) {
            return;
        }
        try {
            e.end();
            if (e.shouldCommit()) {
                e.pool = s.name();
                e.policy = b.policy == SubmissionBound.BLOCK ? "BLOCK" : "CALLER_RUNS";
                e.bound = b.max;
                e.accepted = accepted;
                e.taskClass = TaskWrapper.classOf(task);
                e.commit();
            }
        } catch (Throwable lost) {
            // the submission goes on as decided
        }
    }

    /** A BlockingCall event begun now, or null while it is disabled. */
    static BlockingCallEvent blockingCallBegins() {
        try {
            if (BLOCKING_CALL.isEnabled()) {
                BlockingCallEvent e = new BlockingCallEvent();
                e.begin();
                return e;
            }
        } catch (Throwable lost) {
            // no event
        }
        return null;
    }

    /**
     * The blocking call of {@code e} (from {@link #blockingCallBegins}, may be null) on a worker
     * of {@code s} began with {@code spare} ({@link SpareThreads#beginBlocking}'s answer), and
     * {@code spareThreads} spares alive for {@code blockedWorkers} blocked workers.
     */
    static void blockingCallBegan(BlockingCallEvent e, Scheduler s, int spare, int spareThreads,
                                  int blockedWorkers) {
        if (e == null) {
            return;
        }
        try {
            e.pool = s.name();
            e.spare = spare == SpareThreads.SPARE_STARTED ? BlockingCallEvent.STARTED
                    : spare == SpareThreads.SPARE_REUSED ? BlockingCallEvent.REUSED
                    : BlockingCallEvent.NONE;
            e.spareThreads = spareThreads;
            e.blockedWorkers = blockedWorkers;
        } catch (Throwable lost) {
            // fields left empty
        }
    }

    /** The blocking call of {@code e} (may be null) returned. */
    static void blockingCallEnded(BlockingCallEvent e) {
        if (e == null) {
            return;
        }
        try {
            e.end();
            if (e.shouldCommit()) {
                e.commit();
            }
        } catch (Throwable lost) {
            // the call's outcome passes through unchanged
        }
    }

    /** {@code s} was shut down ({@code now}: shutdownNow, which handed back {@code returned} tasks). */
    static void shutdown(Scheduler s, boolean now, int returned) {
        try {
            if (!SHUTDOWN.isEnabled()) {
                return;
            }
            PoolShutdownEvent e = new PoolShutdownEvent();
            if (e.shouldCommit()) {
                e.pool = s.name();
                e.now = now;
                e.queuedTasks = s.queuedTasks();
                e.returnedTasks = returned;
                e.commit();
            }
        } catch (Throwable lost) {
            // the pool is shut down all the same
        }
    }

    /** {@code s} terminated. */
    static void terminated(Scheduler s) {
        try {
            if (!TERMINATED.isEnabled()) {
                return;
            }
            PoolTerminatedEvent e = new PoolTerminatedEvent();
            if (e.shouldCommit()) {
                e.pool = s.name();
                e.commit();
            }
        } catch (Throwable lost) {
            // terminated all the same
        }
    }
}
