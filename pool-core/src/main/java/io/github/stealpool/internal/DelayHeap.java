package io.github.stealpool.internal;

import java.util.Arrays;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A part of the delay timer's queue ({@link DelayWheel}): a 4-ary min-heap of entries ordered by
 * deadline, then by sequence number ({@link DelayedTask#before}), that keeps each entry's
 * {@code heapIndex} at its slot (plus the heap's base, which tells {@link DelayWheel}'s two
 * heaps apart), and {@code OUT} once it leaves, so that a cancel's removal
 * finds it in O(log n). Four children per node: half the depth of a binary heap, for the
 * sift-downs that every due entry costs (as JDK 25's {@code DelayScheduler}).
 *
 * <p>An entry's {@code time} does not change while it is here (the submitter writes it before
 * the entry is offered, a periodic runner before it gives the entry back), so the order holds.
 *
 * <p>Not thread-safe: the timer thread's own, or, once that thread has died without letting
 * go, that of whoever takes over from it under {@code mainLock}
 * ({@code DelayScheduler.takeOverIfDead}).
 */
final class DelayHeap {

    private static final int INITIAL_CAPACITY = 16;
    /** A heap this large that empties gives its array back (the memory of a burst). */
    static final int SHRINK_ABOVE = 1024;
    /**
     * The array of a heap that gave its own back: shared, never written (a heap grows before it
     * writes a slot), so that giving an array back allocates nothing and cannot fail.
     */
    private static final DelayedTask<?>[] NONE = new DelayedTask<?>[0];

    /** What an entry's {@code heapIndex} holds for slot 0: a queue with several heaps tells them apart. */
    private final int base;
    /** The most entries this heap holds, so that {@code base + slot} stays below the next heap's base. */
    private final int limit;
    private DelayedTask<?>[] entries = new DelayedTask<?>[INITIAL_CAPACITY];
    private int size;

    /** A heap whose entries' {@code heapIndex} is their slot. */
    DelayHeap() {
        this(0, Integer.MAX_VALUE);
    }

    /** A heap whose entries' {@code heapIndex} is {@code base} plus their slot, for up to {@code limit} entries. */
    DelayHeap(int base, int limit) {
        this.base = base;
        this.limit = limit;
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** The earliest entry, or null if the heap is empty. */
    DelayedTask<?> first() {
        return size == 0 ? null : entries[0];
    }

    /**
     * Adds {@code t}, growing the array if it is full (an OutOfMemoryError, or an
     * IllegalStateException past the limit, adds nothing).
     */
    void add(DelayedTask<?> t) {
        int i = size;
        reserve(1);
        size = i + 1;
        siftUp(i, t);
    }

    /**
     * An empty heap takes {@code array}'s first {@code n} entries, in any order, as its own array,
     * orders them (Floyd's construction, O(n)) and returns the array it had, empty: the caller's
     * to keep, a zero-length array if it had none worth keeping. Allocates nothing.
     */
    DelayedTask<?>[] adopt(DelayedTask<?>[] array, int n) {
        if (size != 0 || n > limit) {
            throw new IllegalStateException("adopt into a heap of " + size + ", " + n + " entries");
        }
        DelayedTask<?>[] old = entries;
        entries = array;
        size = n;
        for (int i = 0; i < n; i++) {
            array[i].heapIndex = base + i;
        }
        for (int i = (n - 2) >>> 2; n > 1 && i >= 0; i--) {
            siftDown(i, array[i]);
        }
        return old.length > SHRINK_ABOVE ? NONE : old;
    }

    /**
     * Makes room for {@code extra} more entries, so that the adds that follow allocate nothing
     * and cannot fail part-way (an OutOfMemoryError here changes nothing).
     */
    void reserve(int extra) {
        int need = size + extra;
        if (need > limit || need < 0) {
            throw new IllegalStateException("the timer holds too many delayed tasks (" + size + ")");
        }
        if (need > entries.length) {
            int grown = Math.max(INITIAL_CAPACITY, entries.length + (entries.length >> 1));
            entries = Arrays.copyOf(entries, Math.max(need, Math.min(grown, limit)));
        }
    }

    /** Takes out and returns the earliest entry, or null if the heap is empty. */
    DelayedTask<?> pollFirst() {
        if (size == 0) {
            return null;
        }
        DelayedTask<?> t = entries[0];
        removeAt(0);
        return t;
    }

    /** Takes {@code t} out if it is in this heap (its {@code heapIndex} says so). */
    void remove(DelayedTask<?> t) {
        int i = t.heapIndex;
        if (i >= 0) {
            removeAt(i - base);
        }
    }

    /**
     * Takes out every entry {@code drop} holds for, restores the order of the rest, then hands
     * each one taken out to {@code dropped} (its {@code heapIndex} already {@code OUT}).
     * {@code drop} must not change the heap, nor throw; {@code dropped} may cancel the entry. If
     * {@code dropped} throws, the others are still handed over, and the first failure is
     * thrown at the end, the heap whole (no entry taken out keeps an index of a slot).
     */
    void removeIf(Predicate<? super DelayedTask<?>> drop, Consumer<? super DelayedTask<?>> dropped) {
        DelayedTask<?>[] e = entries;
        int n = size;
        int kept = 0;
        for (int i = 0; i < n; i++) { // the kept to the front, the dropped to the back
            DelayedTask<?> t = e[i];
            if (!drop.test(t)) {
                e[i] = e[kept];
                e[kept++] = t;
            }
        }
        size = kept;
        for (int i = 0; i < kept; i++) {
            e[i].heapIndex = base + i;
        }
        for (int i = (kept - 2) >>> 2; kept > 1 && i >= 0; i--) { // Floyd's heap construction
            siftDown(i, e[i]);
        }
        Throwable failure = handOver(e, kept, n, dropped);
        shrinkIfEmpty();
        throwIfAny(failure);
    }

    /**
     * Hands {@code e[from]}, ..., {@code e[to - 1]}, entries taken out, to {@code dropped}: all
     * marked {@code OUT} first (a failure below leaves no stale index), then each slot cleared
     * and its entry handed over, even after one threw. Returns the first failure, with later
     * ones suppressed where memory allows, or null.
     */
    static Throwable handOver(DelayedTask<?>[] e, int from, int to, Consumer<? super DelayedTask<?>> dropped) {
        for (int i = from; i < to; i++) {
            e[i].heapIndex = DelayedTask.OUT;
        }
        Throwable failure = null;
        for (int i = from; i < to; i++) {
            DelayedTask<?> t = e[i];
            e[i] = null;
            try {
                dropped.accept(t);
            } catch (Throwable x) { // every dropped entry still goes to dropped
                failure = combineQuietly(failure, x);
            }
        }
        return failure;
    }

    /**
     * {@link Failures#combine}, which allocates for a second failure: if that fails too (out of
     * memory), the first is kept, so that the caller goes on handing entries over.
     */
    static Throwable combineQuietly(Throwable first, Throwable second) {
        try {
            return Failures.combine(first, second);
        } catch (Throwable again) {
            return first != null ? first : second;
        }
    }

    /** Throws {@code failure} as it is if unchecked, wrapped if checked; nothing if null. */
    static void throwIfAny(Throwable failure) {
        if (failure instanceof RuntimeException) {
            throw (RuntimeException) failure;
        } else if (failure instanceof Error) {
            throw (Error) failure;
        } else if (failure != null) {
            throw new IllegalStateException(failure);
        }
    }

    /** Takes out every entry and hands each to {@code dropped}, as {@link #removeIf} does. */
    void clear(Consumer<? super DelayedTask<?>> dropped) {
        removeIf(t -> true, dropped);
    }

    private void removeAt(int i) {
        DelayedTask<?>[] e = entries;
        e[i].heapIndex = DelayedTask.OUT;
        int last = --size;
        DelayedTask<?> moved = e[last];
        e[last] = null;
        if (i != last) {
            siftDown(i, moved);
            if (e[i] == moved) {
                siftUp(i, moved);
            }
        }
        shrinkIfEmpty();
    }

    private void shrinkIfEmpty() {
        if (size == 0 && entries.length > SHRINK_ABOVE) {
            entries = NONE;
        }
    }

    private void siftUp(int i, DelayedTask<?> t) {
        DelayedTask<?>[] e = entries;
        while (i > 0) {
            int parent = (i - 1) >>> 2;
            DelayedTask<?> p = e[parent];
            if (!t.before(p)) {
                break;
            }
            e[i] = p;
            p.heapIndex = base + i;
            i = parent;
        }
        e[i] = t;
        t.heapIndex = base + i;
    }

    private void siftDown(int i, DelayedTask<?> t) {
        DelayedTask<?>[] e = entries;
        int n = size;
        for (int child; (child = (i << 2) + 1) < n; ) {
            DelayedTask<?> c = e[child];
            int best = child;
            for (int k = child + 1, end = Math.min(child + 4, n); k < end; k++) {
                if (e[k].before(c)) {
                    c = e[k];
                    best = k;
                }
            }
            if (!c.before(t)) {
                break;
            }
            e[i] = c;
            c.heapIndex = base + i;
            i = best;
        }
        e[i] = t;
        t.heapIndex = base + i;
    }
}
