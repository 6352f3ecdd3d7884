package io.github.stealpool;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.RandomAccess;
import java.util.function.BinaryOperator;
import java.util.function.Consumer;
import java.util.function.DoubleBinaryOperator;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.LongBinaryOperator;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * The elements of a {@code List} or an array, from {@link WorkStealingPool#items(List)} or
 * {@link WorkStealingPool#items(Object[])}: each operation runs one balanced parallel loop over
 * their indexes, exactly as {@link IntRange} does over {@code [0, size)}, and returns when every
 * element is done. So the index arithmetic is the pool's, not the caller's.
 *
 * <p>Each operation reads the list's size when it starts; a {@link RandomAccess} list (an
 * {@code ArrayList}, {@code Arrays.asList}, {@code List.of}) is read in place and must not be
 * structurally modified while an operation runs, any other list is copied to an array first.
 * Failures, threads and nesting behave as for {@link IntRange}. Immutable.
 *
 * @param <T> the element type
 */
public final class Items<T> {

    private final WorkStealingPool pool;
    private final List<T> list;

    Items(WorkStealingPool pool, List<T> list) {
        this.pool = pool;
        this.list = list;
    }

    /**
     * The number of elements now.
     *
     * @return the list's or array's size at the time of the call; an operation started later
     *         reads it again
     */
    public int size() {
        return list.size();
    }

    /**
     * Runs {@code body} for every element, in parallel.
     *
     * @param body called once for every element, possibly from several threads at once
     * @throws NullPointerException if {@code body} is null
     */
    public void forEach(Consumer<? super T> body) {
        Objects.requireNonNull(body, "body");
        List<T> e = indexable();
        pool.forEachInt(0, e.size(), i -> body.accept(e.get(i)));
    }

    /**
     * Maps every element, in parallel, into a new array in element order, as
     * {@code stream().map(mapper).toArray(generator)}: {@code pool.items(names).map(String::length,
     * Integer[]::new)}.
     *
     * @param <R>       the element type of the result
     * @param mapper    the value for one element, called once for every element
     * @param generator makes the result array from its length, as {@code String[]::new}
     * @return the array {@code generator} made, element {@code i} being {@code mapper} of element
     *         {@code i}
     * @throws NullPointerException  if {@code mapper} or {@code generator} is null, or the
     *                               generator returns null
     * @throws IllegalStateException if the generator's array does not have the length it was
     *                               asked for
     */
    public <R> R[] map(Function<? super T, ? extends R> mapper, IntFunction<R[]> generator) {
        Objects.requireNonNull(mapper, "mapper");
        Objects.requireNonNull(generator, "generator");
        List<T> e = indexable();
        int n = e.size();
        R[] out = Objects.requireNonNull(generator.apply(n), "the array made by generator");
        if (out.length != n) {
            throw new IllegalStateException("generator made an array of length " + out.length
                    + " when asked for " + n);
        }
        // each slot is written by one participant; the loop's joins publish them to the caller
        pool.forEachInt(0, n, i -> out[i] = mapper.apply(e.get(i)));
        return out;
    }

    /**
     * Combines {@code mapper} of every element with {@code combiner}, in parallel, keeping
     * element order (see {@link IntRange#reduce}): {@code pool.items(words).reduce("",
     * w -> w, String::concat)} is the sequential concatenation.
     *
     * @param <R>      the type of the result
     * @param identity the start of every partial result: an identity of {@code combiner}, which
     *                 must not mutate it, as it is combined in many times
     * @param mapper   the value of one element, called once for every element
     * @param combiner joins two partial results, the one of earlier elements as its first argument
     * @return the combination of every element's value, in element order; {@code identity} if
     *         there are no elements
     * @throws NullPointerException if {@code mapper} or {@code combiner} is null
     */
    public <R> R reduce(R identity, Function<? super T, ? extends R> mapper, BinaryOperator<R> combiner) {
        Objects.requireNonNull(mapper, "mapper");
        List<T> e = indexable();
        return pool.reduceObject(0, e.size(), identity, i -> mapper.apply(e.get((int) i)), combiner);
    }

    /**
     * As {@link #reduce}, unboxed, to a {@code long}: {@code reduceLong(0, Order::quantity,
     * Long::sum)}.
     *
     * @param identity an identity of {@code combiner}, the start of every partial result
     * @param mapper   the value of one element, called once for every element
     * @param combiner joins two partial results, the one of earlier elements as its first argument
     * @return the combination of every element's value, in element order; {@code identity} if
     *         there are no elements
     * @throws NullPointerException if {@code mapper} or {@code combiner} is null
     */
    public long reduceLong(long identity, ToLongFunction<? super T> mapper, LongBinaryOperator combiner) {
        Objects.requireNonNull(mapper, "mapper");
        List<T> e = indexable();
        return pool.reduceToLong(0, e.size(), identity, i -> mapper.applyAsLong(e.get((int) i)), combiner);
    }

    /**
     * As {@link #reduce}, unboxed, to a {@code double}; see {@link IntRange#reduceDouble} on
     * floating-point sums.
     *
     * @param identity an identity of {@code combiner}, the start of every partial result
     * @param mapper   the value of one element, called once for every element
     * @param combiner joins two partial results, the one of earlier elements as its first argument
     * @return the combination of every element's value, in element order; {@code identity} if
     *         there are no elements
     * @throws NullPointerException if {@code mapper} or {@code combiner} is null
     */
    public double reduceDouble(double identity, ToDoubleFunction<? super T> mapper, DoubleBinaryOperator combiner) {
        Objects.requireNonNull(mapper, "mapper");
        List<T> e = indexable();
        return pool.reduceToDouble(0, e.size(), identity, i -> mapper.applyAsDouble(e.get((int) i)), combiner);
    }

    /** The list itself if indexing it is cheap, else a copy that is. */
    private List<T> indexable() {
        return list instanceof RandomAccess ? list : new ArrayList<>(list);
    }

    @Override
    public String toString() {
        return "Items[size=" + list.size() + "]";
    }
}
