package io.github.stealpool.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the pool's flight-recorder events work in this JVM ({@link #AVAILABLE}), decided once.
 * Every call into {@link FlightEvents} is guarded by it; while it is false the pool runs, and
 * records nothing.
 *
 * <p>Why a class of its own: {@link FlightEvents} loads the event classes as it initialises,
 * which fails where the {@code jdk.jfr} module is missing (a runtime image made by jlink
 * without it), where a security manager refuses to register events (JDK 17 without
 * {@code FlightRecorderPermission("registerEvent")}), or on running out of memory or stack at
 * that moment. A class whose initialisation failed throws {@code NoClassDefFoundError} at every
 * later use, a read of its constants included, so the answer cannot live there: it lives here,
 * in a class that names no {@code jdk.jfr} type and catches whatever loading the events throws.
 * {@code Scheduler}'s constructor asks first ({@link #decide}), so the events are loaded as a
 * pool is built, not deep in a task's stack, and a failure is logged once.
 *
 * <p>{@link #AVAILABLE} is a static final of an initialised class, a constant to the JIT: the
 * task path's guard folds away with it.
 */
final class FlightEventSupport {

    /** The scheduler's logger: the line is about the pools. */
    private static final Logger LOG = LoggerFactory.getLogger(Scheduler.class);

    /** True if {@link FlightEvents} initialised (its event classes are loaded): calls into it are safe. */
    static final boolean AVAILABLE = available(FlightEventSupport::loadEvents);

    private FlightEventSupport() {
    }

    /** Makes the decision now, if it is not made yet (this class's initialisation). */
    static void decide() {
        // Nothing to do: being called initialised the class, and with it AVAILABLE.
    }

    /** Initialises {@link FlightEvents}, which loads every event class. */
    private static void loadEvents() {
        FlightEvents.load();
    }

    /**
     * Runs {@code loadEvents}: true if it returns, false (logged) if it throws anything.
     * Package-private so that a test can hand it a failure.
     */
    static boolean available(Runnable loadEvents) {
        try {
            loadEvents.run();
            return true;
        } catch (Throwable e) {
            try {
                LOG.warn("JDK Flight Recorder events are off: they could not be loaded ({}); the pools run "
                        + "without them (see docs/flight-recorder.md: they need the jdk.jfr module)", e.toString(), e);
            } catch (Throwable ignored) {
                // the events are off all the same
            }
            return false;
        }
    }
}
