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
 * them and returns when every index is done. {@link LongRange} has the same operations over
 * {@code long} indexes, and {@link Items} over the elements of a list or an array.
 *
 * <p>How a loop runs: the range is split into one part per worker; each worker takes batches
 * from the low end of its part (1 index at first, doubling up to the maximum batch, but never
 * more than a quarter of what is left of the part), and a worker that runs dry steals the upper
 * half of the part with the most work left. A batch already claimed is revocable: its owner
 * looks between runs of at most 64 indexes, and if a worker has run dry and nothing is left to
 * steal, hands it the upper half of the rest of its batch. So a loop whose expensive indexes
 * cluster stays balanced, and on one worker it costs little more than a plain {@code for} loop.
 *
 * <p>Every operation may be called from any thread (an outside caller blocks) and from inside
 * tasks and other loops. If the body throws, workers stop taking new batches (each may finish
 * the batch it is in), and the first throwable reaches the caller once the loop has stopped,
 * with its class if unchecked (rebuilt in the calling thread if another thread threw it, the
 * original as its cause; see {@link Task}), later ones attached to the original as suppressed.
 * A loop stopped by {@link WorkStealingPool#shutdownNow()} throws
 * {@link java.util.concurrent.CancellationException}; one called from outside the pool after
 * shutdown, {@link java.util.concurrent.RejectedExecutionException}. An empty range runs
 * nothing and a reduction returns its identity. Immutable; an operation may be run any number
 * of times.
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
        pool.forEachInt(from, to, body);
    }

    /**
     * Hands {@code body} sub-ranges {@code [lo, hi)} to loop over itself: the fastest form for
     * tight or vectorisable loops. On one worker each is a whole batch; with more, a batch comes
     * in runs of at most 64 indexes, between which its owner may hand the rest to a worker that
     * ran dry. The bounds are {@code long} so that one {@link RangeChunk} serves both range
     * types; here they always fit in an {@code int}.
     *
     * <pre>{@code
     * pool.range(0, n).forEachChunk((lo, hi) -> {
     *     for (int i = (int) lo; i < hi; i++) c[i] = a[i] + b[i];
     * });
     * }</pre>
     *
     * @param body called with non-empty sub-ranges {@code [lo, hi)} of this range, each index in
     *             exactly one of them, possibly from several threads at once
     * @throws NullPointerException if {@code body} is null
     */
    public void forEachChunk(RangeChunk body) {
        pool.forEachChunk(from, to, body);
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
        Objects.requireNonNull(mapper, "mapper");
        return pool.reduceObject(from, to, identity, i -> mapper.apply((int) i), combiner);
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
        return pool.reduceToLong(from, to, identity, i -> mapper.applyAsLong((int) i), combiner);
    }

    /**
     * As {@link #reduce}, unboxed, to a {@code double}. Floating-point addition is not
     * associative, so a sum may differ in its last bits from run to run, as the grouping follows
     * the steals.
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
        return pool.reduceToDouble(from, to, identity, i -> mapper.applyAsDouble((int) i), combiner);
    }

    @Override
    public String toString() {
        return "IntRange[" + from + ", " + to + ")";
    }
}
