package io.github.stealpool.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Threshold;

/**
 * A task that a worker took from a queue and ran for at least the threshold. The event's
 * duration is the run. A fork that its own joiner takes back and runs ({@code join},
 * {@code invoke}) is part of the joiner's run, as a call would be, and has no event of its own:
 * that path is the pool's hottest, and stays untouched. No stack trace: it would always be the
 * worker's loop.
 *
 * <p>Disabled unless a recording enables it ({@code stealpool.jfc} does), unlike the pool's
 * other events: while enabled, every task taken from a queue reads JFR's clock twice, whatever
 * the threshold, which doubled the time of tiny tasks (docs/flight-recorder.md); a recording
 * with JFR's standard profiles alone must not cost that.
 */
@Name("stealpool.TaskRun")
@Label("Long Task")
@Category("stealpool")
@Description("A task a pool worker ran for at least the threshold (10 ms in stealpool.jfc): a submitted "
        + "or delayed task, or a fork run by a thief or from the worker's loop. A fork taken "
        + "back by its own joiner is timed inside the joiner's task.")
@Enabled(false)
@Threshold("10 ms")
@StackTrace(false)
public final class TaskRunEvent extends Event {

    /** The pool's name. */
    @Label("Pool")
    public String pool;

    /**
     * The class of the task as it was given to the pool: the {@code Callable} or
     * {@code Runnable} passed to {@code submit} or {@code schedule}, not the pool's future
     * around it; the {@code Task} subclass; or the pool's own class for an internal piece
     * (a range loop's part, a scope's spawned function).
     */
    @Label("Task Class")
    public Class<?> taskClass;
}
