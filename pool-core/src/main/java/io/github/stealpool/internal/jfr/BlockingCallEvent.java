package io.github.stealpool.internal.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Threshold;

/**
 * A blocking call ({@code WorkStealingPool.blocking}) on a pool's worker, the outermost of its
 * thread: the event's duration is the call, and {@link #spare} says whether it started a spare
 * thread, found one already alive, or got none. Committed as the call returns, so its stack
 * trace is the call's.
 */
@Name("stealpool.BlockingCall")
@Label("Blocking Call")
@Category("stealpool")
@Description("A blocking call on a pool worker, and whether a spare thread stood in for the worker: "
        + "started for it, reused (a spare already alive covered it), or none (at maxSpareThreads, "
        + "stopping, no thread could be made, or after shutdown another thread was free).")
@Enabled(true)
@Threshold("0 ms")
public final class BlockingCallEvent extends Event {

    /** {@link #spare}: a spare thread was started for this call. */
    public static final String STARTED = "started";
    /** {@link #spare}: a spare thread already alive stood in; none was started. */
    public static final String REUSED = "reused";
    /** {@link #spare}: no spare stood in; the call blocked its worker. */
    public static final String NONE = "none";

    /** The pool's name. */
    @Label("Pool")
    public String pool;

    /** {@link #STARTED}, {@link #REUSED} or {@link #NONE}. */
    @Label("Spare Thread")
    @Description("started, reused or none")
    public String spare;

    /** Spare threads alive as the call began, this call's own included. */
    @Label("Spare Threads")
    public int spareThreads;

    /** Workers inside blocking calls as the call began, this one included. */
    @Label("Blocked Workers")
    public int blockedWorkers;
}
