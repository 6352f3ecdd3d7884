package io.github.stealpool.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;

/**
 * A pool was shut down: {@code shutdown()} (or {@code close()}) taking it out of RUNNING, or
 * {@code shutdownNow()} taking it into STOP. An instant event, with the caller's stack trace;
 * a call that changes nothing (a second {@code shutdown()}) has none.
 */
@Name("stealpool.PoolShutdown")
@Label("Pool Shutdown")
@Category("stealpool")
@Description("A pool was shut down: shutdown() (queued tasks still run) or shutdownNow() (queued "
        + "tasks handed back, running ones interrupted).")
@Enabled(true)
public final class PoolShutdownEvent extends Event {

    /** The pool's name. */
    @Label("Pool")
    public String pool;

    /** True for {@code shutdownNow()}. */
    @Label("Now")
    public boolean now;

    /** Tasks queued as the call returned, about: still to run after {@code shutdown()}; 0 after {@code shutdownNow()}. */
    @Label("Queued Tasks")
    public long queuedTasks;

    /** Tasks {@code shutdownNow()} handed back; 0 for {@code shutdown()}. */
    @Label("Returned Tasks")
    public int returnedTasks;
}
