package io.github.stealpool.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Threshold;

/**
 * A submission from outside that found the submission bound reached and waited for room: under
 * BLOCK, or a {@code Task} under CALLER_RUNS (it forks and joins, so it must run on a worker).
 * The event's duration is the wait; {@link #accepted} says how it ended.
 */
@Name("stealpool.SubmissionHeldBack")
@Label("Submission Held Back")
@Category("stealpool")
@Description("The submission bound (maxQueuedSubmissions) was reached: the submitter waited for "
        + "room, for the event's duration (BLOCK, or a Task under CALLER_RUNS).")
@Enabled(true)
@Threshold("0 ms")
public final class SubmissionHeldBackEvent extends Event {

    /** The pool's name. */
    @Label("Pool")
    public String pool;

    /** The saturation policy: {@code BLOCK} or {@code CALLER_RUNS}. */
    @Label("Policy")
    public String policy;

    /** The bound: {@code maxQueuedSubmissions}. */
    @Label("Bound")
    public int bound;

    /** True if room was made and the task queued; false if it was refused (interrupt, shutdown). */
    @Label("Accepted")
    public boolean accepted;

    /** The class of the task as it was given to the pool (see {@link TaskRunEvent#taskClass}). */
    @Label("Task Class")
    public Class<?> taskClass;
}
