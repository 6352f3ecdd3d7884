package io.github.stealpool.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;

/**
 * A growable work-stealing deque: one owner pushes and pops at the bottom (LIFO), any number of
 * thieves steal at the top (FIFO). A pool in FIFO mode has the owner take from the top too, with
 * {@link #poll()}, which is a steal that also clears the slot it took.
 *
 * <h2>Algorithm</h2>
 * Chase and Lev, "Dynamic Circular Work-Stealing Deque" (SPAA 2005), with the memory orderings of
 * Lê, Pop, Cohen and Zappa Nardelli, "Correct and Efficient Work-Stealing for Weak Memory Models"
 * (PPoPP 2013), mapped onto Java {@link VarHandle} access modes. Indexes are {@code long}s that only
 * grow (no wrap-around, no ABA); the array is a power-of-two ring indexed by {@code index & mask}.
 *
 * <h2>Invariants</h2>
 * <ul>
 *   <li>{@code top} only increases, and only by a successful CAS (a thief, or the owner taking
 *       the last element).</li>
 *   <li>{@code bottom} is written only by the owner.</li>
 *   <li>The live elements are the indexes {@code [top, bottom)}; {@code bottom - top <= capacity}
 *       whenever the owner publishes {@code bottom} (push and pushAll grow the array first).</li>
 *   <li>An index below {@code top} is dead forever: no CAS on {@code top} can succeed for it, so
 *       its slot may be cleared or reused by the owner.</li>
 *   <li>{@code array} is replaced only by the owner, in {@link #grow}, and an old array is never
 *       written again, so a thief holding a stale array still reads the right element for any
 *       index that was live when it read {@code bottom}.</li>
 * </ul>
 *
 * <h2>Memory orderings, and why each is enough</h2>
 * <ul>
 *   <li><b>push</b>: plain store of the element, then {@code setRelease(bottom)}. The release store
 *       pairs with the thief's volatile read of {@code bottom}: a thief that sees the new
 *       {@code bottom} also sees the element (and a new array published by {@code grow} with a
 *       release store before it).</li>
 *   <li><b>pushAll</b>: plain stores of every element, then one {@code setRelease(bottom)}: as
 *       push, for all of them at once. No slot it writes belongs to a live index: the capacity
 *       check counts from a {@code top} read before the writes, and a stale {@code top} is only
 *       smaller, so the check is only stricter. (A thief that read an older {@code top} may
 *       read such a slot, as with push; its CAS on that {@code top} then fails.)</li>
 *   <li><b>pop</b>, two or more elements: {@code setVolatile(bottom = b - 1)} then
 *       {@code getVolatile(top)}. This store-then-load is the classic Chase-Lev hazard: with only
 *       release/acquire the CPU may read {@code top} before its store to {@code bottom} is
 *       visible, and both the owner and a thief take the last element. Volatile (sequentially
 *       consistent) accesses on both sides forbid that: in the total order either the thief sees
 *       the decremented {@code bottom}, or the owner sees the thief's incremented {@code top};
 *       when both race for the single last element, the CAS on {@code top} decides.</li>
 *   <li><b>pop</b>, exactly one element seen ({@code top == bottom - 1}): the owner skips the
 *       store and the fence and goes straight to the CAS on {@code top} that thieves use for
 *       that element; whoever wins it takes it, and a win leaves {@code top == bottom}, empty,
 *       without touching {@code bottom}. A stale (smaller) {@code top} only makes the CAS fail
 *       on an already empty deque. This is the common case of fork-then-join recursion.</li>
 *   <li><b>steal</b>: {@code getVolatile(top)}, then {@code getVolatile(bottom)} (the mirror image
 *       of pop's store-load; volatile reads cost nothing extra on x86/ARMv8), then
 *       {@code getAcquire(array)} and a plain read of the slot, then a CAS on {@code top} that
 *       claims the index. The CAS fails if the owner or another thief took it first.</li>
 * </ul>
 *
 * <h2>Clearing slots</h2>
 * The owner nulls a slot it pops or {@link #poll}s, so a finished task is not kept reachable. A thief never writes
 * the array (a late write could clobber an element the owner pushed to the same slot after the
 * steal); instead the owner clears stolen slots lazily, when it finds the deque empty: then every
 * index below {@code top == bottom} is dead and no live index shares their slots.
 *
 * <h2>Sizes</h2>
 * {@link #size()} and {@link #isEmpty()} read both indexes without a lock: exact when quiescent,
 * approximate while others operate on the deque.
 *
 * @param <E> element type
 */
public final class ChaseLevDeque<E> extends ChaseLevDequePad2 {

    /** Initial capacity: a worker rarely has more than a few dozen pending tasks. */
    static final int INITIAL_CAPACITY = 64;

    /** Largest array we allocate; a deque that would need more is a runaway producer. */
    static final int MAX_CAPACITY = 1 << 30;

    private static final VarHandle TOP;
    private static final VarHandle BOTTOM;
    private static final VarHandle ARRAY;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            TOP = l.findVarHandle(ChaseLevDequeTop.class, "top", long.class);
            BOTTOM = l.findVarHandle(ChaseLevDequeBottom.class, "bottom", long.class);
            ARRAY = l.findVarHandle(ChaseLevDequeBottom.class, "array", Object[].class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Largest array this deque allocates: {@link #MAX_CAPACITY} but in tests of a full deque. */
    private final int maxCapacity;

    public ChaseLevDeque() {
        this(INITIAL_CAPACITY);
    }

    /** @param initialCapacity rounded up to a power of two, at least 2 */
    public ChaseLevDeque(int initialCapacity) {
        this(initialCapacity, MAX_CAPACITY);
    }

    /**
     * For tests in this package: a deque that is full at {@code maxCapacity} (a power of two),
     * so the paths taken when a push cannot grow are reached with a few tasks.
     */
    ChaseLevDeque(int initialCapacity, int maxCapacity) {
        if (maxCapacity < 2 || maxCapacity > MAX_CAPACITY || Integer.bitCount(maxCapacity) != 1) {
            throw new IllegalArgumentException("maxCapacity must be a power of two in [2, "
                    + MAX_CAPACITY + "]: " + maxCapacity);
        }
        if (initialCapacity < 1 || initialCapacity > maxCapacity) {
            throw new IllegalArgumentException("initialCapacity must be in [1, " + maxCapacity
                    + "]: " + initialCapacity);
        }
        this.maxCapacity = maxCapacity;
        int cap = Math.max(2, Integer.highestOneBit(initialCapacity - 1) << 1);
        ARRAY.setRelease(this, new Object[cap]);
    }

    // --- accessors: access mode in the name, raw VarHandle calls only here ---

    private long lvTop() {
        return (long) TOP.getVolatile(this);
    }

    private boolean casTop(long expect, long update) {
        return TOP.compareAndSet(this, expect, update);
    }

    private long lpBottom() { // owner only: its own last write
        return (long) BOTTOM.get(this);
    }

    private long lvBottom() {
        return (long) BOTTOM.getVolatile(this);
    }

    /** Pairs with lvBottom in steal: publishes the element stored before it. */
    private void soBottom(long b) {
        BOTTOM.setRelease(this, b);
    }

    /** Store-load fence with the following lvTop (the Chase-Lev hazard). */
    private void svBottom(long b) {
        BOTTOM.setVolatile(this, b);
    }

    private Object[] lpArray() { // owner only
        return (Object[]) ARRAY.get(this);
    }

    private Object[] laArray() {
        return (Object[]) ARRAY.getAcquire(this);
    }

    /** Pairs with laArray in steal; ordered before the soBottom that follows it. */
    private void soArray(Object[] a) {
        ARRAY.setRelease(this, a);
    }

    // --- owner operations ---

    /**
     * Owner only: adds {@code e} at the bottom.
     *
     * @return whether the deque held nothing as the push began ({@code top}, read first, met
     *         {@code bottom}): a hint, free since the push reads {@code top} anyway; thieves may
     *         have emptied it since
     */
    public boolean push(E e) {
        long b = lpBottom();
        long t = lvTop();
        Object[] a = lpArray();
        if (b - t > a.length - 1) {
            a = grow(a, t, b);
        }
        a[(int) b & (a.length - 1)] = e;
        soBottom(b + 1);
        return b == t;
    }

    /**
     * Owner only: adds {@code src[from]}, ..., {@code src[to - 1]} at the bottom, in that order
     * ({@code src[to - 1]} ends at the bottom, where {@link #pop} takes first; {@code src[from]}
     * nearest the top, where thieves and {@link #poll} take first). The same as pushing them one
     * by one, for a batch from the injection queue: one read of {@code top}, one capacity check
     * (repeated only while the array grows) and one release store of {@code bottom} for the
     * lot. Per element, {@link #push} reads {@code top}, a line the thieves CAS, and with one
     * submitter feeding many workers the thieves are busy at exactly the deque a batch lands
     * on.
     *
     * <p>Thieves see none of the elements before the store of {@code bottom}, and all of them
     * after it, so the batch appears at once (see "Memory orderings": the release store
     * publishes every plain store of a slot before it, as it does push's one).
     *
     * <p>All or nothing: {@code bottom} is its last write, so if it throws (the deque is full,
     * or growing it ran out of memory part-way) none of the elements was added, and the caller
     * still holds every one of them (the array may have grown; that changes no element).
     *
     * @throws IndexOutOfBoundsException if {@code [from, to)} is not a range of {@code src}
     * @throws IllegalStateException if the deque cannot hold them all
     */
    public void pushAll(E[] src, int from, int to) {
        Objects.checkFromToIndex(from, to, src.length);
        int count = to - from;
        long b = lpBottom();
        long t = lvTop();
        Object[] a = lpArray();
        while (b - t > a.length - count) {
            if (b - t + count > maxCapacity) { // fail before growing to the largest array
                throw new IllegalStateException("work-stealing deque is full (" + (b - t) + " tasks, "
                        + count + " more)");
            }
            a = grow(a, t, b);
        }
        int mask = a.length - 1;
        for (int k = 0; k < count; k++) {
            a[(int) (b + k) & mask] = src[from + k];
        }
        soBottom(b + count);
    }

    /** Owner only: removes and returns the bottom element (the newest), or null if empty. */
    @SuppressWarnings("unchecked")
    public E pop() {
        long b = lpBottom() - 1;
        long t = lvTop();
        if (b < t) {
            // Empty, and only the owner can change that: skip the fence below. (top only grows,
            // so a stale read can only make the deque look fuller, never emptier.)
            if (clearedUpTo < t) {
                clearStolenSlots(lpArray(), t);
            }
            return null;
        }
        Object[] a = lpArray();
        int i = (int) b & (a.length - 1);
        return (E) (b == t ? takeLast(a, i, t) : takeBottom(a, i, b));
    }

    /**
     * Owner only: removes {@code e} if it is the bottom element (the task the owner pushed last,
     * typically the one it is about to join), so the owner can run it itself.
     *
     * @return true if removed; false if the bottom is another element, or a thief got there first
     */
    public boolean tryUnpush(E e) {
        long b = lpBottom() - 1;
        long t = lvTop();
        if (b < t) {
            return false;
        }
        Object[] a = lpArray();
        int i = (int) b & (a.length - 1);
        if (a[i] != e) { // the owner's own last write to that slot
            return false;
        }
        return (b == t ? takeLast(a, i, t) : takeBottom(a, i, b)) != null;
    }

    /**
     * Owner only: the bottom element (the one pushed last), or null if the deque looked empty.
     * A thief may take it at any moment after, so this only says what {@link #tryUnpush} is
     * worth trying with. Only the owner writes slots, so its plain read of one is its own write.
     */
    @SuppressWarnings("unchecked")
    public E peekBottom() {
        long b = lpBottom() - 1;
        long t = lvTop();
        if (b < t) {
            return null;
        }
        Object[] a = lpArray();
        return (E) a[(int) b & (a.length - 1)];
    }

    /**
     * The deque held exactly one element, at index {@code t} (slot {@code i}), when the owner
     * read {@code top}: race the thieves for it with the CAS they use. {@code bottom} need not
     * move (a win leaves {@code top == bottom}: empty), so this path needs no store-load fence.
     *
     * @return the element, or null if a thief won it
     */
    private Object takeLast(Object[] a, int i, long t) {
        Object e = a[i];
        boolean won = casTop(t, t + 1);
        clearStolenSlots(a, t + 1); // empty either way; we hold e, a winning thief read it before
        return won ? e : null;
    }

    /**
     * The deque held two or more elements: announce the bottom one (index {@code b}, slot
     * {@code i}) as taken by the volatile store of {@code bottom}, ordered before the re-read of
     * {@code top}, then check that the thieves did not reach it meanwhile.
     *
     * @return the element, or null if a thief won it
     */
    private Object takeBottom(Object[] a, int i, long b) {
        Object e = a[i];
        svBottom(b);
        long t = lvTop();
        if (t < b) { // no race possible: thieves stop below b
            a[i] = null;
            return e;
        }
        boolean won = t == b && casTop(t, t + 1); // thieves reached the last element: CAS decides
        soBottom(b + 1);
        clearStolenSlots(a, b + 1); // empty either way
        return won ? e : null;
    }

    /**
     * Owner only: removes and returns the top element (the oldest), as a thief would, and clears
     * its slot; null only if the deque is empty. A CAS lost to a thief is retried (the thief took
     * an element, so this is lock-free). For a pool in FIFO mode. Clearing the slot after the CAS
     * is the owner's right alone: the index is dead, and only the owner writes slots, by later
     * pushes in its own program order.
     */
    @SuppressWarnings("unchecked")
    public E poll() {
        for (;;) {
            long t = lvTop();
            long b = lpBottom();
            Object[] a = lpArray();
            if (t >= b) {
                if (clearedUpTo < t) {
                    clearStolenSlots(a, t);
                }
                return null;
            }
            int i = (int) t & (a.length - 1);
            Object e = a[i];
            if (casTop(t, t + 1)) {
                a[i] = null;
                return (E) e;
            }
        }
    }

    // --- thief operations ---

    /**
     * Any thread: removes and returns the top element (the oldest), or null if the deque looked
     * empty or another thread won the race for the element (the caller may retry).
     */
    @SuppressWarnings("unchecked")
    public E steal() {
        long t = lvTop();
        long b = lvBottom();
        if (t >= b) {
            return null;
        }
        Object[] a = laArray();
        Object e = a[(int) t & (a.length - 1)];
        if (!casTop(t, t + 1)) {
            return null;
        }
        assert e != null : "stole a null at index " + t;
        return (E) e;
    }

    /** Owner only: the index the next push will use (marks where a task's own forks begin). */
    public long bottomIndex() {
        return lpBottom();
    }

    /** Approximate number of elements (exact when no thread is operating on the deque). */
    public int size() {
        long b = lvBottom();
        long t = lvTop();
        long n = b - t;
        return n <= 0 ? 0 : (int) Math.min(n, Integer.MAX_VALUE);
    }

    /** True if the deque looked empty; only a hint while others operate on it. */
    public boolean isEmpty() {
        return lvBottom() <= lvTop();
    }

    /** Current array length (for tests). */
    int capacity() {
        return lpArray().length;
    }

    // --- cold paths ---

    private Object[] grow(Object[] old, long t, long b) {
        int oldCap = old.length;
        if (oldCap >= maxCapacity) {
            throw new IllegalStateException("work-stealing deque is full (" + oldCap + " tasks)");
        }
        int newCap = oldCap << 1;
        Object[] a = new Object[newCap];
        int oldMask = oldCap - 1;
        int newMask = newCap - 1;
        for (long i = t; i < b; i++) {
            a[(int) i & newMask] = old[(int) i & oldMask];
        }
        soArray(a);
        return a;
    }

    /**
     * Owner only, called when the deque was found empty at {@code top}: every index below it is
     * dead, and since {@code bottom == top} no live index maps to their slots.
     */
    private void clearStolenSlots(Object[] a, long top) {
        long from = Math.max(clearedUpTo, top - a.length);
        int mask = a.length - 1;
        for (long i = from; i < top; i++) {
            a[(int) i & mask] = null;
        }
        clearedUpTo = top;
    }
}

// Padding by inheritance, as JCTools does: the JVM lays out superclass fields first and never
// interleaves levels, whereas it may reorder the fields of one class. Thieves CAS top; the
// owner writes bottom on every push and pop: each gets its own cache lines.

abstract class ChaseLevDequePad0 {
    long p00, p01, p02, p03, p04, p05, p06, p07;
    long p08, p09, p0a, p0b, p0c, p0d, p0e, p0f;
}

abstract class ChaseLevDequeTop extends ChaseLevDequePad0 {
    /** Next index to steal; see {@link ChaseLevDeque}. */
    volatile long top;
}

abstract class ChaseLevDequePad1 extends ChaseLevDequeTop {
    long p10, p11, p12, p13, p14, p15, p16, p17;
    long p18, p19, p1a, p1b, p1c, p1d, p1e, p1f;
}

abstract class ChaseLevDequeBottom extends ChaseLevDequePad1 {
    /** Next index to push; written by the owner only. */
    volatile long bottom;
    /** The ring; replaced by the owner only. */
    volatile Object[] array;
    /** Owner only: indexes below this have been cleared after being stolen. */
    long clearedUpTo;
}

abstract class ChaseLevDequePad2 extends ChaseLevDequeBottom {
    long p20, p21, p22, p23, p24, p25, p26, p27;
    long p28, p29, p2a, p2b, p2c, p2d, p2e, p2f;
}
