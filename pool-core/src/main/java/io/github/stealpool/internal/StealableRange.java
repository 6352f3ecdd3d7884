package io.github.stealpool.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A contiguous index range that one owner consumes from its low end while thieves split off its
 * high end: the work-stealing range of the range loops, {@code [low .. [mid .. high))} in the
 * seed's notation.
 *
 * <h2>State and invariants</h2>
 * The unconsumed part is {@code [base + lo, base + hi)}; {@code lo} and {@code hi} are offsets
 * of at most {@link #MAX_LENGTH} (2^30), packed into one {@code long} ({@code lo} in the upper
 * half). Every change is a CAS
 * on that word: the owner advances {@code lo} by one batch, a thief lowers {@code hi} to the
 * middle of what is left and takes {@code [mid, hi)}. So {@code lo} only grows, {@code hi} only
 * shrinks, and each index is handed out by exactly one successful CAS: nobody ever takes an index
 * twice, and none is lost. A thief may take the whole remainder when it is a single index, so
 * the last expensive element does not wait for a busy owner.
 *
 * <h2>Memory ordering</h2>
 * Volatile reads and CASes on {@link #state}, after the constructor's release store; the
 * indexes themselves carry no data, so nothing else needs publishing. The per-range partial
 * results of a reduction ({@link #acc}, {@link #accLong}, {@link #accDouble}) are written only
 * by the range's current owner and read after the loop's joins, which order them.
 *
 * <h2>Cost</h2>
 * One CAS per batch for the owner (batches grow to the loop's maximum), one per steal. The word
 * sits on its own cache lines, so thieves' reads do not slow down other ranges' owners.
 */
public final class StealableRange extends StealableRangePad1 {

    /** Largest offset a range may hold (parts are split so that none is longer). */
    public static final long MAX_LENGTH = 1L << 30;

    private static final VarHandle STATE;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(StealableRangeState.class, "state", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** First index of the range: offsets are relative to it. */
    final long base;

    // Partial results of a reduction over the indexes this range's owners consumed, in order.
    Object acc;
    long accLong;
    double accDouble;
    boolean touched;

    /** A range of {@code length} indexes starting at {@code base}; length in [0, MAX_LENGTH]. */
    public StealableRange(long base, long length) {
        if (length < 0 || length > MAX_LENGTH) {
            throw new IllegalArgumentException("length must be in [0, " + MAX_LENGTH + "]: " + length);
        }
        this.base = base;
        soState(pack(0, length));
    }

    private static long pack(long lo, long hi) {
        return lo << 32 | hi;
    }

    private static long lo(long s) {
        return s >>> 32;
    }

    private static long hi(long s) {
        return s & 0xFFFF_FFFFL;
    }

    /** The constructor's initial store. */
    private void soState(long s) {
        STATE.setRelease(this, s);
    }

    private long lvState() {
        return (long) STATE.getVolatile(this);
    }

    private boolean casState(long expect, long update) {
        return STATE.compareAndSet(this, expect, update);
    }

    /** Indexes not yet taken (a snapshot). */
    public long remaining() {
        long s = lvState();
        return Math.max(0, hi(s) - lo(s));
    }

    /**
     * Owner: takes the next up to {@code max} indexes from the low end.
     *
     * @return the first taken offset shifted left by 32, or'ed with the count; -1 if empty
     */
    public long take(long max) {
        for (;;) {
            long s = lvState();
            long lo = lo(s);
            long n = Math.min(max, hi(s) - lo);
            if (n <= 0) {
                return -1;
            }
            if (casState(s, pack(lo + n, hi(s)))) {
                return lo << 32 | n;
            }
        }
    }

    /**
     * Thief: takes the upper half of what is left (all of it if one index is left).
     *
     * @return a claim as for {@link #take}, or -1 if nothing was left
     */
    public long steal() {
        for (;;) {
            long s = lvState();
            long lo = lo(s);
            long hi = hi(s);
            long left = hi - lo;
            if (left <= 0) {
                return -1;
            }
            long mid = lo + left / 2;
            if (casState(s, pack(lo, mid))) {
                return mid << 32 | (hi - mid);
            }
        }
    }

    /** First index of a claim returned by {@link #take} or {@link #steal}. */
    public long start(long claim) {
        return base + (claim >>> 32);
    }

    /** Number of indexes in a claim. */
    public static long count(long claim) {
        return claim & 0xFFFF_FFFFL;
    }

    @Override
    public String toString() {
        long s = lvState();
        return "StealableRange[" + (base + lo(s)) + ", " + (base + hi(s)) + ")";
    }
}

// Padding by inheritance around the one hot word (see ChaseLevDeque).

abstract class StealableRangePad0 {
    long p00, p01, p02, p03, p04, p05, p06, p07;
    long p08, p09, p0a, p0b, p0c, p0d, p0e, p0f;
}

abstract class StealableRangeState extends StealableRangePad0 {
    /** lo (upper 32 bits) and hi (lower 32 bits) offsets of the unconsumed part. */
    volatile long state;
}

abstract class StealableRangePad1 extends StealableRangeState {
    long p10, p11, p12, p13, p14, p15, p16, p17;
    long p18, p19, p1a, p1b, p1c, p1d, p1e, p1f;
}
