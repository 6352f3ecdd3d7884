package io.github.stealpool;

import java.util.function.BinaryOperator;
import java.util.function.DoubleBinaryOperator;
import java.util.function.LongBinaryOperator;
import java.util.function.LongConsumer;
import java.util.function.LongFunction;
import java.util.function.LongToDoubleFunction;
import java.util.function.LongUnaryOperator;

/**
 * The {@code long} indexes {@code [from, to)} of a {@link WorkStealingPool}, from
 * {@link WorkStealingPool#range(long, long)}: {@link IntRange}'s operations over {@code long}
 * indexes, with the same behaviour. Bounds anywhere in {@code long} work, also ranges longer than
 * {@code Long.MAX_VALUE} indexes.
 */
public final class LongRange {

    private final WorkStealingPool pool;
    private final long from;
    private final long to;

    LongRange(WorkStealingPool pool, long from, long to) {
        this.pool = pool;
        this.from = from;
        this.to = to;
    }

    /**
     * First index (inclusive).
     *
     * @return the lower bound given to {@code pool.range(from, to)}
     */
    public long from() {
        return from;
    }

    /**
     * End of the range (exclusive).
     *
     * @return the upper bound given to {@code pool.range(from, to)}; equal to {@link #from()}
     *         if the range is empty
     */
    public long to() {
        return to;
    }

    /**
     * Runs {@code body} for every index, in parallel.
     *
     * @param body called once for every index, possibly from several threads at once
     * @throws NullPointerException if {@code body} is null
     */
    public void forEach(LongConsumer body) {
        pool.forEachLong(from, to, body);
    }

    /**
     * Hands {@code body} sub-ranges {@code [lo, hi)} to loop over itself, as
     * {@link IntRange#forEachChunk}.
     *
     * @param body called with non-empty sub-ranges {@code [lo, hi)} of this range, each index in
     *             exactly one of them, possibly from several threads at once
     * @throws NullPointerException if {@code body} is null
     */
    public void forEachChunk(RangeChunk body) {
        pool.forEachChunk(from, to, body);
    }

    /**
     * As {@link IntRange#reduce}: index order kept.
     *
     * @param <R>      the type of the result
     * @param identity the start of every partial result: an identity of {@code combiner}, which
     *                 must not mutate it, as it is combined in many times
     * @param mapper   the value of one index, called once for every index
     * @param combiner joins two partial results, the one of lower indexes as its first argument
     * @return the combination of every index's value, in index order; {@code identity} if the
     *         range is empty
     * @throws NullPointerException if {@code mapper} or {@code combiner} is null
     */
    public <R> R reduce(R identity, LongFunction<? extends R> mapper, BinaryOperator<R> combiner) {
        return pool.reduceObject(from, to, identity, mapper, combiner);
    }

    /**
     * As {@link #reduce}, unboxed, to a {@code long}.
     *
     * @param identity an identity of {@code combiner}, the start of every partial result
     * @param mapper   the value of one index, called once for every index
     * @param combiner joins two partial results, the one of lower indexes as its first argument
     * @return the combination of every index's value, in index order; {@code identity} if the
     *         range is empty
     * @throws NullPointerException if {@code mapper} or {@code combiner} is null
     */
    public long reduceLong(long identity, LongUnaryOperator mapper, LongBinaryOperator combiner) {
        return pool.reduceToLong(from, to, identity, mapper, combiner);
    }

    /**
     * As {@link #reduce}, unboxed, to a {@code double}; see {@link IntRange#reduceDouble} on
     * floating-point sums.
     *
     * @param identity an identity of {@code combiner}, the start of every partial result
     * @param mapper   the value of one index, called once for every index
     * @param combiner joins two partial results, the one of lower indexes as its first argument
     * @return the combination of every index's value, in index order; {@code identity} if the
     *         range is empty
     * @throws NullPointerException if {@code mapper} or {@code combiner} is null
     */
    public double reduceDouble(double identity, LongToDoubleFunction mapper, DoubleBinaryOperator combiner) {
        return pool.reduceToDouble(from, to, identity, mapper, combiner);
    }

    @Override
    public String toString() {
        return "LongRange[" + from + ", " + to + ")";
    }
}
