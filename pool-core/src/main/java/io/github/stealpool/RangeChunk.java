package io.github.stealpool;

/**
 * The body of {@link IntRange#forEachChunk} and {@link LongRange#forEachChunk}: gets a
 * sub-range {@code [lo, hi)} of the loop's range and loops over it itself, which is the fastest
 * way to write a reduction into a local variable or a loop the JIT can vectorise.
 */
@FunctionalInterface
public interface RangeChunk {

    /**
     * Processes every index in {@code [lo, hi)}; {@code lo < hi}. May be called from several
     * threads at once, each time with a sub-range no other call gets.
     *
     * @param lo the first index of the sub-range (inclusive)
     * @param hi the end of the sub-range (exclusive), greater than {@code lo}
     */
    void accept(long lo, long hi);
}
