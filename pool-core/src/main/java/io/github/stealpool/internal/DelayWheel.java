package io.github.stealpool.internal;

import java.util.Arrays;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * The delay timer's queue ({@link DelayScheduler}): entries ordered by deadline, then by
 * sequence number ({@link DelayedTask#before}), kept in three parts so that most pops cost what
 * a pop from a small heap costs:
 * <ul>
 *   <li><b>the front</b>, a {@link DelayHeap} of entries due before {@code frontEnd};</li>
 *   <li><b>the wheel</b>, {@link #TICKS} buckets of one tick ({@code 2^}{@link #TICK_SHIFT} ns)
 *       each, for the ticks from {@code frontEnd} on: an entry due in one of them is appended to
 *       its bucket, unordered;</li>
 *   <li><b>the far heap</b>, another {@link DelayHeap}, for the entries due beyond the wheel when
 *       they came (and those of a full bucket).</li>
 * </ul>
 * The earliest entry is the earlier of the front's first and the far heap's first. When a poll
 * finds the front empty and the wheel not, {@code frontEnd} moves to the end of the next tick
 * that holds an entry, and that tick's bucket moves into the front; so does {@link #first(long)}
 * once that tick has begun, and before it only looks into the bucket, so that {@code frontEnd}
 * never runs ahead of the clock by more than a tick. The front then holds one tick's entries (and those that come due before its end
 * meanwhile), not all of them: a pop sifts through a heap of tens of entries where one heap of
 * all of them would be thousands, and a pop's cost is the branches among four children on each
 * level. An entry due beyond the wheel costs what it cost before the wheel: an add to and a pop
 * from one heap.
 *
 * <h2>Invariants</h2>
 * <ol>
 *   <li>Every entry of the front is due before {@code frontEnd}, every entry of the wheel at or
 *       after it. So with the front empty the wheel's earliest entry is in its next non-empty
 *       bucket, and otherwise no wheel entry comes before the front's first: the earlier of the
 *       front's first and the far heap's first is the earliest of all. The order is exact, ties
 *       included; the ticks decide only which entries share the front.</li>
 *   <li>An entry of the wheel sits in the bucket of its tick ({@code time >>> TICK_SHIFT}, modulo
 *       {@link #TICKS}), and every one is due before {@code frontEnd} plus {@link #TICKS} ticks:
 *       distinct ticks, distinct buckets.</li>
 *   <li>{@code frontEnd} is the start of a tick. It moves forward only while the front is
 *       empty: past empty buckets and the one it moves into the front ({@link #advance}, in a
 *       poll or a {@link #first(long)}), or in an add past empty buckets towards the current
 *       tick; and it is reset to the current tick while the front and the wheel are both empty
 *       ({@link #add}). Deadlines are compared by difference, so {@code nanoTime}'s wrap
 *       is harmless.</li>
 *   <li>{@code heapIndex}, which the timer's protocol reads as "held" when it is {@code >= 0}:
 *       the front's entries hold their slot, the far heap's {@link #FAR_BASE} plus their slot,
 *       the wheel's {@link #WHEEL_BASE} plus their bucket and slot; {@code OUT} once out.</li>
 * </ol>
 *
 * <p>Only {@link #add} allocates (growing an array), and it fails, if at all, before it changes
 * anything. {@link #first}, {@link #pollFirst}, {@link #remove} and {@link #removeIf} allocate
 * nothing, so they cannot fail for memory: the timer's loop and its cancelling of every entry
 * as it fails (perhaps out of memory) rely on it.
 *
 * <p>Not thread-safe: the timer thread's own, as {@link DelayHeap}.
 */
final class DelayWheel {

    /** A tick is 2^13 ns, about 8 us: tens of entries of a dense burst, one of a sparse timer. */
    static final int TICK_SHIFT = 13;
    private static final long TICK = 1L << TICK_SHIFT;
    /** Ticks the wheel covers, about 4 ms in all: a burst's spread, and short delays. */
    static final int TICKS = 512;
    private static final long SPAN = (long) TICKS << TICK_SHIFT;

    /** {@code heapIndex} ranges: the front's from 0, the far heap's, the wheel's. */
    static final int FAR_BASE = 1 << 29;
    static final int WHEEL_BASE = 1 << 30;
    /** A wheel entry's {@code heapIndex}: {@code WHEEL_BASE + (bucket << SLOT_BITS) + slot}. */
    private static final int SLOT_BITS = 21;
    /** The most entries one bucket holds; more for its tick go to the far heap. */
    static final int BUCKET_CAPACITY = 1 << SLOT_BITS;
    private static final int INITIAL_BUCKET_CAPACITY = 8;
    /** A bucket this large gives its array back once it moves to the front (a burst's memory). */
    private static final int SHRINK_BUCKET_ABOVE = 256;
    /** A wheel nobody has used: a pool whose delays are all long costs no table. */
    private static final DelayedTask<?>[][] NO_BUCKETS = new DelayedTask<?>[0][];
    private static final int[] NO_COUNTS = new int[0];

    /** As {@link #BUCKET_CAPACITY}, or fewer for a test. */
    private final int bucketCapacity;
    private final DelayHeap front = new DelayHeap(0, FAR_BASE);
    private final DelayHeap far = new DelayHeap(FAR_BASE, WHEEL_BASE - FAR_BASE);
    /** The buckets and their counts: empty until the first entry due within the wheel's reach. */
    private DelayedTask<?>[][] buckets = NO_BUCKETS;
    private int[] counts = NO_COUNTS;
    /** Entries in the wheel's buckets, all together. */
    private int wheelSize;
    /** Every front entry is due before it, every wheel entry at or after it (invariant 1). */
    private long frontEnd;
    /**
     * The wheel's earliest entry once {@link #first} or {@link #pollFirst} looked for it, kept while it stays
     * the earliest; null when not known. Saves a look through the next bucket on every turn
     * of a timer that waits for it.
     */
    private DelayedTask<?> wheelFirst;

    DelayWheel() {
        this(BUCKET_CAPACITY);
    }

    /** For a test: buckets of at most {@code bucketCapacity} entries. */
    DelayWheel(int bucketCapacity) {
        if (bucketCapacity < 1 || bucketCapacity > BUCKET_CAPACITY) {
            throw new IllegalArgumentException("bucketCapacity " + bucketCapacity);
        }
        this.bucketCapacity = bucketCapacity;
    }

    int size() {
        return front.size() + wheelSize + far.size();
    }

    boolean isEmpty() {
        return size() == 0;
    }

    /**
     * The earliest entry, or null if there is none. With the front empty it looks into the
     * wheel's next bucket without moving it, so that entries that come meanwhile land in the
     * wheel, not in the front.
     */
    DelayedTask<?> first() {
        return firstOf(nearFirst(), far.first());
    }

    /**
     * As {@link #first}, but with the front empty and the wheel's next tick begun by
     * {@code now}, moves that tick's bucket into the front first, as the poll that follows
     * would: entries due now are polled one after another, and the front is where a poll is
     * cheap. A tick still ahead is only looked into, so {@code frontEnd} passes now by at most
     * the rest of now's tick.
     */
    DelayedTask<?> first(long now) {
        if (front.isEmpty() && wheelSize != 0 && tickStartOf(nextBucket()) - now <= 0L) {
            advance();
        }
        return first();
    }

    /**
     * Takes out and returns the earliest entry, or null if there is none: the one {@link #first}
     * gives ({@code time} and {@code seq} together are unique, so the front's heap, once it
     * holds the bucket, has the same entry first).
     */
    DelayedTask<?> pollFirst() {
        DelayedTask<?> near = nearFirst();
        DelayedTask<?> t = firstOf(near, far.first());
        if (t == null) {
            return null;
        }
        if (t != near) {
            far.pollFirst();
        } else {
            if (front.isEmpty()) {
                advance(); // t is the wheel's earliest, in its next bucket
            }
            DelayedTask<?> polled = front.pollFirst();
            assert polled == t : "the front's first is not the earliest";
        }
        return t;
    }

    /** The earliest entry of the front, or of the wheel if the front is empty; null if both are. */
    private DelayedTask<?> nearFirst() {
        if (!front.isEmpty() || wheelSize == 0) {
            return front.first();
        }
        DelayedTask<?> w = wheelFirst;
        if (w == null) {
            w = wheelFirst = earliestOf(nextBucket());
        }
        return w;
    }

    private static DelayedTask<?> firstOf(DelayedTask<?> near, DelayedTask<?> far) {
        return near == null || far != null && far.before(near) ? far : near;
    }

    /**
     * Adds {@code t}; {@code now} is a recent {@code System.nanoTime()}, where the wheel starts
     * if it was empty. An OutOfMemoryError, or an IllegalStateException past a limit, adds nothing.
     */
    void add(DelayedTask<?> t, long now) {
        if (front.isEmpty()) {
            catchUp(now & -TICK);
        }
        long time = t.time;
        long fromFront = time - frontEnd;
        if (fromFront < 0L) {
            front.add(t);
        } else if (fromFront >= SPAN || !addToWheel(t, time)) {
            far.add(t);
        }
    }

    /** Takes {@code t} out if it is here (its {@code heapIndex} says so, and where). */
    void remove(DelayedTask<?> t) {
        int i = t.heapIndex;
        if (i < 0) {
            return;
        }
        if (i < FAR_BASE) {
            front.remove(t);
        } else if (i < WHEEL_BASE) {
            far.remove(t);
        } else {
            removeFromWheel(t, i - WHEEL_BASE);
        }
    }

    /**
     * As {@link DelayHeap#removeIf}: takes out every entry {@code drop} holds for, hands each to
     * {@code dropped}, keeps the rest where they are and in order, and throws the first failure
     * of {@code dropped} once all were handed over. {@code drop} must not throw (the timer's
     * tests a state and reads a flag). Allocates nothing: it runs as the timer fails, perhaps
     * out of memory, and must still cancel every entry.
     */
    void removeIf(Predicate<? super DelayedTask<?>> drop, Consumer<? super DelayedTask<?>> dropped) {
        Throwable failure = null;
        for (int b = 0; b < counts.length; b++) {
            if (counts[b] != 0) {
                failure = DelayHeap.combineQuietly(failure, removeFromBucketIf(b, drop, dropped));
            }
        }
        try {
            front.removeIf(drop, dropped);
        } catch (Throwable x) {
            failure = DelayHeap.combineQuietly(failure, x);
        }
        try {
            far.removeIf(drop, dropped);
        } catch (Throwable x) {
            failure = DelayHeap.combineQuietly(failure, x);
        }
        DelayHeap.throwIfAny(failure);
    }

    /** {@link #removeIf} for bucket {@code b}: returns the first failure of {@code dropped}, or null. */
    private Throwable removeFromBucketIf(int b, Predicate<? super DelayedTask<?>> drop,
                                         Consumer<? super DelayedTask<?>> dropped) {
        DelayedTask<?>[] e = buckets[b];
        int n = counts[b];
        int kept = 0;
        for (int i = 0; i < n; i++) { // the kept to the front, the dropped to the back
            DelayedTask<?> t = e[i];
            if (!drop.test(t)) {
                e[i] = e[kept];
                e[kept] = t;
                t.heapIndex = WHEEL_BASE + (b << SLOT_BITS) + kept++;
            }
        }
        counts[b] = kept;
        wheelSize -= n - kept;
        if (kept != n) {
            wheelFirst = null; // it may be among the dropped
        }
        if (kept == 0 && e.length > SHRINK_BUCKET_ABOVE) {
            buckets[b] = null; // the memory of a burst (e is still ours to clear below)
        }
        return DelayHeap.handOver(e, kept, n, dropped);
    }

    /** Takes out every entry and hands each to {@code dropped}, as {@link #removeIf} does. */
    void clear(Consumer<? super DelayedTask<?>> dropped) {
        removeIf(t -> true, dropped);
    }

    /**
     * With the front empty, moves {@code frontEnd} towards {@code tick} (the current one): to it
     * if the wheel is empty too (invariant 3 lets it go anywhere then), else past the empty
     * buckets before it, so that the wheel reaches as far past now as it can and entries due soon
     * land in it, not in the far heap. One step a tick of real time: O(1) over time.
     */
    private void catchUp(long tick) {
        if (wheelSize == 0) {
            frontEnd = tick;
            return;
        }
        while (frontEnd - tick < 0L && counts[(int) (frontEnd >>> TICK_SHIFT) & (TICKS - 1)] == 0) {
            frontEnd += TICK;
        }
    }

    private boolean addToWheel(DelayedTask<?> t, long time) {
        if (counts.length == 0) { // both, or neither: an OutOfMemoryError leaves the wheel unused
            DelayedTask<?>[][] newBuckets = new DelayedTask<?>[TICKS][];
            counts = new int[TICKS];
            buckets = newBuckets;
        }
        int b = (int) (time >>> TICK_SHIFT) & (TICKS - 1);
        int n = counts[b];
        if (n == bucketCapacity) {
            return false;
        }
        DelayedTask<?>[] e = buckets[b];
        if (e == null) {
            e = buckets[b] = new DelayedTask<?>[Math.min(INITIAL_BUCKET_CAPACITY, bucketCapacity)];
        } else if (n == e.length) {
            e = buckets[b] = Arrays.copyOf(e, Math.min(Math.max(n + 1, n + (n >> 1)), bucketCapacity));
        }
        e[n] = t;
        t.heapIndex = WHEEL_BASE + (b << SLOT_BITS) + n;
        counts[b] = n + 1;
        wheelSize++;
        if (wheelFirst != null && t.before(wheelFirst)) {
            wheelFirst = t;
        }
        return true;
    }

    /** Swaps the bucket's last entry into {@code t}'s slot: a bucket has no order to keep. */
    private void removeFromWheel(DelayedTask<?> t, int position) {
        int b = position >>> SLOT_BITS;
        int slot = position & (BUCKET_CAPACITY - 1);
        DelayedTask<?>[] e = buckets[b];
        int last = counts[b] - 1;
        t.heapIndex = DelayedTask.OUT;
        DelayedTask<?> moved = e[last];
        e[last] = null;
        if (slot != last) {
            e[slot] = moved;
            moved.heapIndex = WHEEL_BASE + (b << SLOT_BITS) + slot;
        }
        counts[b] = last;
        wheelSize--;
        if (t == wheelFirst) {
            wheelFirst = null;
        }
        if (last == 0 && e.length > SHRINK_BUCKET_ABOVE) {
            buckets[b] = null; // the memory of a burst cancelled before it was due
        }
    }

    /** The wheel holds an entry: the bucket of the earliest tick that holds one, from {@code frontEnd} on. */
    private int nextBucket() {
        int b = (int) (frontEnd >>> TICK_SHIFT) & (TICKS - 1);
        while (counts[b] == 0) {
            b = (b + 1) & (TICKS - 1);
        }
        return b;
    }

    /** The start of bucket {@code b}'s tick: {@code frontEnd}'s tick or one of the next ones. */
    private long tickStartOf(int b) {
        long ticksAhead = (b - ((int) (frontEnd >>> TICK_SHIFT) & (TICKS - 1))) & (TICKS - 1);
        return frontEnd + (ticksAhead << TICK_SHIFT);
    }

    private DelayedTask<?> earliestOf(int b) {
        DelayedTask<?>[] e = buckets[b];
        DelayedTask<?> earliest = e[0];
        for (int i = 1, n = counts[b]; i < n; i++) {
            if (e[i].before(earliest)) {
                earliest = e[i];
            }
        }
        return earliest;
    }

    /**
     * The front is empty and the wheel is not: moves {@code frontEnd} to the end of the next
     * tick whose bucket holds an entry, and that bucket into the front. The buckets passed over
     * were empty, so invariants 1 and 2 hold after. The front takes the bucket's array as its
     * own and gives the bucket its empty one: nothing is allocated, so {@link #pollFirst}
     * cannot fail.
     */
    private void advance() {
        int b = nextBucket();
        long tickEnd = tickStartOf(b) + TICK;
        int n = counts[b];
        DelayedTask<?>[] emptied = front.adopt(buckets[b], n);
        buckets[b] = emptied.length == 0 || emptied.length > SHRINK_BUCKET_ABOVE ? null : emptied;
        counts[b] = 0;
        wheelSize -= n;
        wheelFirst = null;
        frontEnd = tickEnd;
    }
}
