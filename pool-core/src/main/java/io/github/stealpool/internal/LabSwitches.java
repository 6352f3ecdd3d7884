package io.github.stealpool.internal;

/**
 * Switches for experiments that need a machine this project borrows only now and then, so
 * that both sides of an A/B test ship in one build. Each is read once, when this class
 * initialises, from a system property, and is removed once its experiment is decided
 * (docs/lab/README.md, "Lab switches", lists them). Not part of the API: no user should set one.
 */
final class LabSwitches {

    /** The default wake-up rule: one wake-up in flight (Sleep, "Waking"). */
    static final int WAKE_ONE = 0;
    /** Also a fork onto an empty deque wakes one more sleeper (Sleep, "Spreading a computation"). */
    static final int WAKE_FORK = 1;
    /** As {@link #WAKE_FORK}, and a steal that leaves tasks behind in its victim wakes one more. */
    static final int WAKE_FORK_STEAL = 2;

    /**
     * {@code -Dstealpool.lab.wakePolicy=one|fork|fork-steal} (default {@code one}): which of the
     * rules above the pool follows. A static final, so the JIT folds the unused rules away.
     */
    static final int WAKE_POLICY = parseWakePolicy(System.getProperty("stealpool.lab.wakePolicy"));

    private LabSwitches() {
    }

    /**
     * Initialises this class, called by every scheduler's constructor: a bad value then fails
     * the pool's construction, and no first use deep in a stack initialises it.
     */
    static void checkLoaded() {
        // The read of WAKE_POLICY below is the initialisation; nothing else to do.
        if (WAKE_POLICY < WAKE_ONE) {
            throw new AssertionError(WAKE_POLICY);
        }
    }

    static int parseWakePolicy(String value) {
        if (value == null || value.equals("one")) {
            return WAKE_ONE;
        }
        switch (value) {
            case "fork":
                return WAKE_FORK;
            case "fork-steal":
                return WAKE_FORK_STEAL;
            default:
                throw new IllegalArgumentException(
                        "stealpool.lab.wakePolicy must be one, fork or fork-steal: " + value);
        }
    }
}
