package io.github.stealpool.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A pool terminated: its last worker left after shutdown (or its start failed). Committed once,
 * by the thread that terminated it, as the termination future completes.
 */
@Name("stealpool.PoolTerminated")
@Label("Pool Terminated")
@Category("stealpool")
@Description("A pool terminated: shut down, and its last worker gone.")
@Enabled(true)
@StackTrace(false)
public final class PoolTerminatedEvent extends Event {

    /** The pool's name. */
    @Label("Pool")
    public String pool;
}
