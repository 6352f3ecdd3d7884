package io.github.stealpool.internal;

import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.jctools.queues.varhandle.MpmcVarHandleArrayQueue;

/**
 * The pool's global queue for tasks submitted by threads outside the pool: many producers, many
 * consumers (the workers), unbounded.
 *
 * <h2>Design</h2>
 * JCTools offers an unbounded MPMC queue only in {@code jctools-core}, which is built on
 * {@code sun.misc.Unsafe} and prints a deprecation warning on JDK 24+. The VarHandle flavour,
 * {@code jctools-core-jdk11}, has a bounded MPMC array queue only. So: the bounded
 * {@link MpmcVarHandleArrayQueue} is the fast path (preallocated, no allocation per task), and a
 * {@link ConcurrentLinkedQueue} takes the overflow of a burst larger than its capacity.
 *
 * <h2>Invariants</h2>
 * <ul>
 *   <li>Every offered task is in exactly one of the two queues until one consumer polls it; both
 *       queues are linearizable, so no task is lost or polled twice.</li>
 *   <li>While the overflow queue is non-empty, producers append to it rather than to the fast
 *       queue. Consumers poll the fast queue first, so the fast queue drains and then the overflow
 *       does: no task waits behind an unbounded stream of newer ones (no starvation). Order
 *       between the two is approximately FIFO, which is all an executor promises.</li>
 * </ul>
 *
 * <h2>Memory ordering</h2>
 * Both offers publish with a CAS (a sequentially consistent write in Java), and
 * {@link #isEmpty()} reads both queues' indexes with volatile reads. The idle protocol relies on
 * exactly that: a producer's offer, then its volatile read of the sleep counter, against a
 * worker's CAS on that counter, then its {@code isEmpty()} check (a Dekker pattern; see
 * {@link Sleep}).
 */
public final class InjectionQueue {

    /**
     * Fast-path capacity: 8192 slots (about 100 KB with the sequence array) absorb the bursts
     * of a busy service without touching the overflow; a larger burst spills, and costs a node
     * allocation per spilled task.
     */
    static final int FAST_CAPACITY = 1 << 13;

    private final MpmcVarHandleArrayQueue<Runnable> fast;
    private final ConcurrentLinkedQueue<Runnable> overflow = new ConcurrentLinkedQueue<>();

    public InjectionQueue() {
        this(FAST_CAPACITY);
    }

    /** For tests: a tiny fast path makes the overflow path easy to reach. */
    InjectionQueue(int fastCapacity) {
        fast = new MpmcVarHandleArrayQueue<>(fastCapacity);
    }

    /** Any thread: appends {@code task}. Never fails. */
    public void offer(Runnable task) {
        if (overflow.isEmpty() && fast.offer(task)) {
            return;
        }
        overflow.offer(task);
    }

    /** Any thread: removes and returns a task, or null if both queues were empty. */
    public Runnable poll() {
        Runnable t = fast.poll();
        if (t == null && !overflow.isEmpty()) {
            t = overflow.poll();
        }
        return t;
    }

    /** True if no task was queued at the moment of the reads (volatile reads of both queues). */
    public boolean isEmpty() {
        return fast.isEmpty() && overflow.isEmpty();
    }

    /** Approximate number of queued tasks. */
    public int size() {
        long n = (long) fast.size() + overflow.size();
        return (int) Math.min(n, Integer.MAX_VALUE);
    }

    /** Moves every queued task to {@code sink}; returns how many. */
    public int drainTo(List<Runnable> sink) {
        int n = 0;
        for (Runnable t; (t = poll()) != null; n++) {
            sink.add(t);
        }
        return n;
    }
}
