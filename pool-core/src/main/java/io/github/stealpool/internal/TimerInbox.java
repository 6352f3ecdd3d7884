package io.github.stealpool.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The delay timer's inbox ({@link DelayScheduler}, "The inbox"): what submitters, periodic
 * tasks' runners and cancels hand to the timer thread, the submission sequence of the entries,
 * and the counts of entries offered and of one-shot schedules.
 *
 * <p>A power-of-two number of stripes, each on cache lines of its own, holding a lock-free
 * stack of nodes linked through the nodes' own fields (a Treiber stack: a {@link DelayedTask}'s
 * {@code inboxNext}, a {@link DelayScheduler.Removal}'s {@code next}) and its counters. A
 * thread takes its entries' sequence numbers from the stripe its thread id hashes to, and an
 * entry is offered and counted on the stripe its number names, a removal on its thread's: so
 * concurrent submitters seldom write the same line, and one thread's entries take increasing
 * numbers from one counter.
 *
 * <h2>Invariants and orderings</h2>
 * <ul>
 *   <li>An offer links the node to the top it read (a plain write), then CASes the top from
 *       that value to the node. The CAS is volatile: it publishes the node's fields and link to
 *       whoever takes it, and it comes before the offering thread's later volatile reads in the
 *       synchronization order, which the timer's "No lost wake-up" needs.</li>
 *   <li>A node is never offered while it is in a stripe (an entry is at most once in the
 *       timer's hands; a removal is offered once), so a CAS that finds the top it read links
 *       correctly even if the stack was emptied and refilled in between (no ABA harm: nothing
 *       is ever popped one at a time).</li>
 *   <li>Only the inbox's consumer takes (the timer thread, or a settler under {@code mainLock}
 *       once the timer has finished): {@code getAndSet(null)} of a stripe's top, which takes
 *       the whole stack, newest first. The consumer unlinks the nodes as it goes.</li>
 *   <li>{@link #isEmpty} reads every stripe's top (volatile): true only if every stripe was
 *       empty at its read.</li>
 *   <li>No one waits for another's progress: a failed CAS means another offer or a take
 *       succeeded.</li>
 *   <li>A sequence number is the stripe's counter (a volatile {@code getAndAdd}) shifted left
 *       by the stripe bits, or'ed with the stripe index: unique in the pool, and increasing for
 *       any one thread.</li>
 *   <li>The counts ({@code getAndAdd}, summed over the stripes with volatile reads) only grow;
 *       an entry is counted as offered before its CAS, so before anyone can take it.</li>
 *   <li>A take takes the stack, then reads the stripe's offered count and stores it as the
 *       stripe's {@code taken} (opaque). Every entry it took was counted before its push, so
 *       before that read: {@code offered - taken} ({@link #backlog}) counts the entries
 *       offered since the consumer's last take of the stripe, less the ones counted between
 *       the take and that read (a consumer descheduled there may miss many), which the next
 *       take counts. It never counts an entry already taken, so once a stripe is empty its
 *       backlog is at most its offers in flight, one per offering thread. (Read before the take,
 *       an offer landing between the read and the take would stay counted after the stripe
 *       was emptied, until the next take, which an empty stripe never gets.) An estimate for
 *       the submitters' flow control ({@code DelayScheduler}, "A storm of offers"), on which
 *       nothing else depends, hence opaque, which only keeps a waiting reader from caching
 *       it. It may read negative (an old {@code offered} against a newer {@code taken}).</li>
 * </ul>
 */
final class TimerInbox {

    /** Upper bound on stripes, as for the injection queue's. */
    static final int MAX_STRIPES = 64;

    private final Stripe[] stripes;
    private final int mask;
    private final int bits;

    /** @param stripes wanted number of stripes, rounded up to a power of two, at most 64 */
    TimerInbox(int stripes) {
        int n = Integer.highestOneBit(Math.max(1, Math.min(MAX_STRIPES, stripes)) * 2 - 1);
        this.stripes = new Stripe[n];
        for (int i = 0; i < n; i++) {
            this.stripes[i] = new Stripe();
        }
        this.mask = n - 1;
        this.bits = Integer.numberOfTrailingZeros(n);
    }

    int stripes() {
        return stripes.length;
    }

    /** Fibonacci hashing of the thread id: stable per thread, spread across stripes. */
    private int stripeOfCurrentThread() {
        long id = Thread.currentThread().getId();
        return (int) ((id * 0x9E3779B97F4A7C15L) >>> 40) & mask;
    }

    /** The next sequence number for an entry scheduled by this thread (see the invariants). */
    long nextSequence() {
        int i = stripeOfCurrentThread();
        return (stripes[i].getAndAddSeq(1L) << bits) | i;
    }

    /** The stripe that entry {@code t} is offered and counted on: the one its number names. */
    private Stripe stripeOf(DelayedTask<?> t) {
        return stripes[(int) t.seq & mask];
    }

    /** Counts a call of a one-shot {@code schedule} method, which made {@code t}. */
    void countScheduledOnce(DelayedTask<?> t) {
        stripeOf(t).getAndAddOnce(1L);
    }

    /** Counts entry {@code t} as offered, then offers it. */
    void offer(DelayedTask<?> t) {
        Stripe s = stripeOf(t);
        s.getAndAddOffered(1L);
        push(s, t);
    }

    /** Offers {@code r}. */
    void offer(DelayScheduler.Removal r) {
        push(stripes[stripeOfCurrentThread()], r);
    }

    /** Entries offered so far: exact when nothing moves. */
    long offered() {
        long n = 0L;
        for (Stripe s : stripes) {
            n += s.offered;
        }
        return n;
    }

    /** Calls of the one-shot {@code schedule} methods so far: exact when nothing moves. */
    long scheduledOnce() {
        long n = 0L;
        for (Stripe s : stripes) {
            n += s.once;
        }
        return n;
    }

    private static void push(Stripe s, Object node) {
        for (Object top = s.top; ; top = s.top) {
            link(node, top);
            if (s.casTop(top, node)) {
                return;
            }
        }
    }

    /**
     * Takes every node of one stripe that holds any, newest first, linked; null if every
     * stripe was empty at its read.
     */
    Object takeAny() {
        for (int i = 0; i < stripes.length; i++) {
            Object batch = take(i);
            if (batch != null) {
                return batch;
            }
        }
        return null;
    }

    /** Takes every node of stripe {@code i}, newest first, linked; null if it was empty. */
    Object take(int i) {
        Stripe s = stripes[i];
        if (s.top == null) {
            return null;
        }
        Object batch = s.getAndSetTop(null);
        s.setTakenOpaque(s.offered); // after the take: see the invariants
        return batch;
    }

    /**
     * Entries offered to the stripe of {@code t} that its consumer had not taken at its last
     * take, give or take the offers in flight (see the invariants).
     */
    long backlog(DelayedTask<?> t) {
        Stripe s = stripeOf(t);
        return s.offered - s.takenOpaque();
    }

    boolean isEmpty() {
        for (Stripe s : stripes) {
            if (s.top != null) {
                return false;
            }
        }
        return true;
    }

    /** The node after {@code node} in a batch from {@link #take} or {@link #takeAny}, unlinking it. */
    static Object unlinkNext(Object node) {
        Object next;
        if (node instanceof DelayScheduler.Removal) {
            DelayScheduler.Removal r = (DelayScheduler.Removal) node;
            next = r.next;
            r.next = null;
        } else {
            DelayedTask<?> t = (DelayedTask<?>) node;
            next = t.inboxNext;
            t.inboxNext = null;
        }
        return next;
    }

    private static void link(Object node, Object next) {
        if (node instanceof DelayScheduler.Removal) {
            ((DelayScheduler.Removal) node).next = next;
        } else {
            ((DelayedTask<?>) node).inboxNext = next;
        }
    }

    /** One stripe: its stack's top and its counters, padded (see below). */
    static final class Stripe extends TimerStripePad1 {

        private static final VarHandle TOP;
        private static final VarHandle SEQ;
        private static final VarHandle OFFERED;
        private static final VarHandle ONCE;
        private static final VarHandle TAKEN;

        static {
            try {
                MethodHandles.Lookup l = MethodHandles.lookup();
                TOP = l.findVarHandle(TimerStripeFields.class, "top", Object.class);
                SEQ = l.findVarHandle(TimerStripeFields.class, "seq", long.class);
                OFFERED = l.findVarHandle(TimerStripeFields.class, "offered", long.class);
                ONCE = l.findVarHandle(TimerStripeFields.class, "once", long.class);
                TAKEN = l.findVarHandle(TimerStripeFields.class, "taken", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        // --- accessors: access mode in the name, raw VarHandle calls only here ---

        /**
         * A volatile-mode CAS, and it must stay one: the timer's "No lost wake-up" and the
         * submitters' re-check of the run state (DelayScheduler, rules 4 and 6) order the push
         * before their later volatile reads through it; a release-only CAS would not (on x86
         * every CAS is a full barrier, so no test there would notice).
         */
        boolean casTop(Object expected, Object node) {
            return TOP.compareAndSet(this, expected, node);
        }

        Object getAndSetTop(Object node) {
            return TOP.getAndSet(this, node);
        }

        long getAndAddSeq(long n) {
            return (long) SEQ.getAndAdd(this, n);
        }

        long getAndAddOffered(long n) {
            return (long) OFFERED.getAndAdd(this, n);
        }

        long getAndAddOnce(long n) {
            return (long) ONCE.getAndAdd(this, n);
        }

        void setTakenOpaque(long n) {
            TAKEN.setOpaque(this, n);
        }

        long takenOpaque() {
            return (long) TAKEN.getOpaque(this);
        }
    }
}

// Padding by inheritance (the JVM lays superclass fields first and never interleaves levels):
// each stripe's top and counter get cache lines of their own, so submitters offering to
// different stripes do not slow each other down.

abstract class TimerStripePad0 {
    long p00, p01, p02, p03, p04, p05, p06, p07;
    long p08, p09, p0a, p0b, p0c, p0d, p0e, p0f;
}

abstract class TimerStripeFields extends TimerStripePad0 {
    /** The node offered last, null when the stripe is empty. */
    volatile Object top;
    /** The stripe's next sequence count. */
    volatile long seq;
    /** Entries offered to this stripe, periodic entries given back included. */
    volatile long offered;
    /** One-shot schedules whose entries this stripe numbered. */
    volatile long once;
    /** {@link #offered} as the consumer read it right after its last take of the stripe. */
    long taken;
}

abstract class TimerStripePad1 extends TimerStripeFields {
    long p10, p11, p12, p13, p14, p15, p16, p17;
    long p18, p19, p1a, p1b, p1c, p1d, p1e, p1f;
}
