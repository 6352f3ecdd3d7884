package io.github.stealpool.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;

/**
 * A submission the pool refused with a {@code RejectedExecutionException}: an instant event,
 * with the submitter's stack trace.
 */
@Name("stealpool.SubmissionRefused")
@Label("Submission Refused")
@Category("stealpool")
@Description("A submission refused with RejectedExecutionException: the pool was shut down, the "
        + "submission bound was reached under ABORT, the submitter was interrupted while held "
        + "back, or a worker's deque was full.")
@Enabled(true)
public final class SubmissionRefusedEvent extends Event {

    /** {@link #reason}: the pool was shut down (before or while the task was offered). */
    public static final String SHUT_DOWN = "shut down";
    /** {@link #reason}: the submission bound was reached, under the ABORT policy. */
    public static final String BOUND_REACHED = "bound reached";
    /** {@link #reason}: interrupted while held back at the bound. */
    public static final String INTERRUPTED = "interrupted while held back";
    /** {@link #reason}: the submitting worker's deque could grow no more. */
    public static final String DEQUE_FULL = "deque full";

    /** The pool's name. */
    @Label("Pool")
    public String pool;

    /** Why: {@link #SHUT_DOWN}, {@link #BOUND_REACHED}, {@link #INTERRUPTED}, {@link #DEQUE_FULL}. */
    @Label("Reason")
    public String reason;

    /** The class of the task as it was given to the pool (see {@link TaskRunEvent#taskClass}); null where unknown. */
    @Label("Task Class")
    public Class<?> taskClass;
}
