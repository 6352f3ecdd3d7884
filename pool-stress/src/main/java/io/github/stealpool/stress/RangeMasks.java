package io.github.stealpool.stress;

import io.github.stealpool.internal.StealableRange;

/** Turns a claim on a small {@link StealableRange} into a bit mask of the indexes it holds. */
final class RangeMasks {

    private RangeMasks() {
    }

    /** Bit i set for each index i in {@code claim}; 0 for no claim (-1). */
    static int of(StealableRange range, long claim) {
        if (claim < 0) {
            return 0;
        }
        int mask = 0;
        long first = range.start(claim);
        for (long i = first; i < first + StealableRange.count(claim); i++) {
            mask |= 1 << i;
        }
        return mask;
    }
}
