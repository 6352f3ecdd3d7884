package io.github.stealpool;

import java.util.Objects;
import java.util.function.BinaryOperator;
import java.util.function.DoubleBinaryOperator;
import java.util.function.IntConsumer;
import java.util.function.IntFunction;
import java.util.function.IntToDoubleFunction;
import java.util.function.IntToLongFunction;
import java.util.function.LongBinaryOperator;

/**
 * The {@code int} indexes {@code [from, to)} of a {@link WorkStealingPool}, from
 * {@link WorkStealingPool#range(int, int)}: each operation runs one balanced parallel loop over
 * them (see {@link WorkStealingPool#parallelFor(int, int, IntConsumer)} for how) and returns when
 * every index is done. {@link LongRange} has the same operations over {@code long} indexes.
 *
 * <p>Every operation may be called from any thread (an outside caller blocks) and from inside
 * tasks and other loops; if the body throws, the loop stops and the first throwable reaches the
 * caller, as for {@code parallelFor}. An empty range runs nothing and a reduction returns its
 * identity. Immutable; an operation may be run any number of times.
 */
public final class IntRange {

    private final WorkStealingPool pool;
    private final int from;
    private final int to;

    IntRange(WorkStealingPool pool, int from, int to) {
        this.pool = pool;
        this.from = from;
        this.to = to;
    }

    /**
     * First index (inclusive).
     *
     * @return the lower bound given to {@code pool.range(from, to)}
     */
    public int from() {
        return from;
    }

    /**
     * End of the range (exclusive).
     *
     * @return the upper bound given to {@code pool.range(from, to)}; equal to {@link #from()}
     *         if the range is empty
     */
    public int to() {
        return to;
    }

    /**
     * Runs {@code body} for every index, in parallel.
     *
     * @param body called once for every index, possibly from several threads at once
     * @throws NullPointerException if {@code body} is null
     */
    public void forEach(IntConsumer body) {
        pool.parallelFor(from, to, body);
    }

    /**
     * Hands {@code body} sub-ranges {@code [lo, hi)} to loop over itself, as
     * {@link WorkStealingPool#parallelForChunks}: the fastest form for tight or vectorisable
     * loops. The bounds are {@code long} so that one {@link RangeChunk}
     * serves both range types; here they always fit in an {@code int}.
     *
     * @param body called with non-empty sub-ranges {@code [lo, hi)} of this range, each index in
     *             exactly one of them, possibly from several threads at once
     * @throws NullPointerException if {@code body} is null
     */
    public void forEachChunk(RangeChunk body) {
        pool.parallelForChunks(from, to, body);
    }

    /**
     * Combines {@code mapper(i)} for every index with {@code combiner}, in parallel, keeping
     * index order: for an associative {@code combiner} with {@code identity} as its identity the
     * result is the sequential {@code identity ⊕ mapper(from) ⊕ ... ⊕ mapper(to - 1)}, even if
     * it does not commute.
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
    public <R> R reduce(R identity, IntFunction<? extends R> mapper, BinaryOperator<R> combiner) {
        return pool.reduce(from, to, identity, mapper, combiner);
    }

    /**
     * As {@link #reduce}, unboxed, to a {@code long}: {@code reduceLong(0, i -> weight(i),
     * Long::sum)}.
     *
     * @param identity an identity of {@code combiner}, the start of every partial result
     * @param mapper   the value of one index, called once for every index
     * @param combiner joins two partial results, the one of lower indexes as its first argument
     * @return the combination of every index's value, in index order; {@code identity} if the
     *         range is empty
     * @throws NullPointerException if {@code mapper} or {@code combiner} is null
     */
    public long reduceLong(long identity, IntToLongFunction mapper, LongBinaryOperator combiner) {
        Objects.requireNonNull(mapper, "mapper");
        return pool.reduceLong(from, to, identity, i -> mapper.applyAsLong((int) i), combiner);
    }

    /**
     * As {@link #reduce}, unboxed, to a {@code double}; see
     * {@link WorkStealingPool#reduceDouble} on floating-point sums.
     *
     * @param identity an identity of {@code combiner}, the start of every partial result
     * @param mapper   the value of one index, called once for every index
     * @param combiner joins two partial results, the one of lower indexes as its first argument
     * @return the combination of every index's value, in index order; {@code identity} if the
     *         range is empty
     * @throws NullPointerException if {@code mapper} or {@code combiner} is null
     */
    public double reduceDouble(double identity, IntToDoubleFunction mapper, DoubleBinaryOperator combiner) {
        Objects.requireNonNull(mapper, "mapper");
        return pool.reduceDouble(from, to, identity, i -> mapper.applyAsDouble((int) i), combiner);
    }

    @Override
    public String toString() {
        return "IntRange[" + from + ", " + to + ")";
    }
}
