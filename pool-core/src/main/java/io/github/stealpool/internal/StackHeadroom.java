package io.github.stealpool.internal;

/**
 * Makes a StackOverflowError strike before a section that must not be cut short, rather than
 * inside it: {@link #ensure()} descends {@link #FRAMES} frames and returns, so that it throws
 * the overflow if the section that follows could run out of stack, while nothing is done yet.
 * Java cannot read its stack pointer; taking the room once is how it asks whether the room is
 * there. A section guarded so must not go deeper than the descent, JDK calls included (a lock
 * taken under contention, a park, a clock read): its calls must be linked already, since the
 * first call through a VarHandle or a lambda links it, far deeper than any figure here.
 */
final class StackHeadroom {

    /**
     * Frames the descent takes. Rule: four times the smallest figure with which
     * SleepStackOverflowTest passes, interpreted and compiled. Reason: that test sweeps an
     * overflow over every point of each guarded section, but a section's error path may run
     * interpreted while the descent runs compiled, in smaller frames. About 1.7 ns a frame.
     */
    static final int FRAMES = 96;

    private StackHeadroom() {
    }

    /** Throws StackOverflowError unless {@link #FRAMES} more frames fit on this thread's stack. */
    static void ensure() {
        descend(FRAMES, 1L, 2L, 3L, 4L);
    }

    /**
     * One frame of the descent. The four values stay live across the call, so a compiled frame
     * keeps them on the stack: a frame is about the size of a small method's, compiled or not.
     */
    private static long descend(int n, long a, long b, long c, long d) {
        if (n <= 0) {
            return a ^ b ^ c ^ d;
        }
        return descend(n - 1, b, c, d, a + n) + a + b + c + d;
    }
}
