package io.github.stealpool.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Threshold;

/**
 * A submission from outside that found the submission bound reached under CALLER_RUNS, so the
 * submitting thread ran the task itself: the event's duration is that run, its stack trace the
 * submitter's.
 */
@Name("stealpool.CallerRan")
@Label("Run by the Caller")
@Category("stealpool")
@Description("The submission bound (maxQueuedSubmissions) was reached under CALLER_RUNS: the "
        + "submitting thread ran the task itself, for the event's duration.")
@Enabled(true)
@Threshold("0 ms")
public final class CallerRanEvent extends Event {

    /** The pool's name. */
    @Label("Pool")
    public String pool;

    /** The bound: {@code maxQueuedSubmissions}. */
    @Label("Bound")
    public int bound;

    /** The class of the task as it was given to the pool (see {@link TaskRunEvent#taskClass}). */
    @Label("Task Class")
    public Class<?> taskClass;
}
