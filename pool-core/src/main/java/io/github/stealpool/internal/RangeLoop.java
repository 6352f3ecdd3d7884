package io.github.stealpool.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Runs a loop over an index range on the pool, balanced by work-stealing ranges (seeds 000-002):
 *
 * <ol>
 *   <li>The range is cut into one contiguous {@link StealableRange} per participant (the
 *       calling worker plus {@code parallelism - 1} forked participant jobs).</li>
 *   <li>Each participant consumes its range from the low end in batches whose size starts at the
 *       minimum and doubles up to the maximum (MAXSTEP): one expensive element is found after a
 *       few cheap claims, and cheap elements cost one CAS per large batch. A batch never takes
 *       more than a quarter of what is left in the range (not below the minimum), as in guided
 *       self-scheduling: near the end of a range most of it stays stealable, so an owner whose
 *       batches grew over a cheap stretch cannot claim the whole expensive tail in one batch
 *       that nobody else can split (issue 14's cheap-then-expensive loop ran at 1.03x on 2
 *       workers). A fixed fraction, not one shrinking with the participants, so the bound adds
 *       O(log) batches per range at any parallelism (1/(2p) would have made a million-index
 *       loop on 64 workers take 52,000 batches instead of 1,600; a quarter takes 3,200). With
 *       one participant nobody can steal, and the bound is skipped. A claimed batch still
 *       cannot be split: an expensive stretch in the middle of a long range can still be
 *       claimed whole.</li>
 *   <li>A participant whose range is used up steals the upper half of the range with the most
 *       work left (the paper's FindMax), which becomes a new range that others can split again;
 *       it stops when no range has any work left.</li>
 *   <li>The caller joins the participant jobs (helping while it waits). Termination needs no
 *       shared counter: every index belongs to exactly one range, and every range is drained by
 *       exactly one participant before that participant ends.</li>
 * </ol>
 * Ranges longer than {@link StealableRange#MAX_LENGTH} per participant are run as consecutive
 * windows, so bounds anywhere in {@code long} work without overflow.
 *
 * <p>A reduction keeps one partial result per range (each range is one contiguous run of
 * indexes, consumed in order by its single owner); after the joins the partials are folded in
 * index order, so an associative combiner gives the sequential answer even if it does not
 * commute.
 *
 * <p>The first failure of the body stops the loop: every participant checks it before taking
 * another batch (so up to one batch per participant may still run). It is rethrown to the caller
 * once, later ones attached as suppressed. {@code shutdownNow} fails the loop the same way, with a
 * CancellationException, through the participants it cancels.
 */
public abstract class RangeLoop {

    private static final VarHandle FAILURE;

    static {
        try {
            FAILURE = MethodHandles.lookup().findVarHandle(RangeLoop.class, "failure", Failures.Thrown.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final long minBatch;
    private final long maxBatch;
    /** Every range of the current window: searched by thieves, folded by reductions. */
    private final ConcurrentLinkedQueue<StealableRange> segments = new ConcurrentLinkedQueue<>();
    private volatile Failures.Thrown failure;
    private Scheduler scheduler; // set by run() before any participant exists
    /**
     * A batch takes at most 1/{@value #GUIDED_SHARE} of what is left in its range: see the class
     * comment.
     */
    static final int GUIDED_SHARE = 4;

    /**
     * {@link #GUIDED_SHARE}, or 0 with one participant (no bound); set before the participants
     * are forked, which publishes it to them.
     */
    private int guidedShare;

    protected RangeLoop(long minBatch, long maxBatch) {
        this.minBatch = minBatch;
        this.maxBatch = maxBatch;
    }

    /** Runs the body over {@code [lo, hi)}, a batch of {@code range}, on its owner's thread. */
    protected abstract void process(StealableRange range, long lo, long hi);

    /** Called after each window's joins with its ranges in index order (reductions fold them). */
    protected void windowDone(List<StealableRange> inOrder) {
    }

    /**
     * Runs the loop over {@code [from, to)} ({@code from <= to}) on worker {@code w}'s thread
     * and returns when every index is done, or rethrows the body's first failure.
     */
    public final void run(Worker w, int parallelism, long from, long to) {
        scheduler = w.scheduler(); // published to participants by their fork
        long cur = from;
        while (cur < to && failure == null) {
            long cap = Math.min(parallelism, Long.MAX_VALUE / StealableRange.MAX_LENGTH) * StealableRange.MAX_LENGTH;
            long left = to - cur; // read unsigned: the true length even if it overflows a long
            long len = Long.compareUnsigned(left, cap) > 0 ? cap : left;
            runWindow(w, parallelism, cur, len);
            cur += len;
        }
        Failures.Thrown f = failure;
        if (f != null) {
            throw Failures.rethrow(f.forThisThread());
        }
    }

    private void runWindow(Worker w, int parallelism, long base, long len) {
        int p = (int) Math.min(parallelism, len);
        guidedShare = p > 1 ? GUIDED_SHARE : 0;
        segments.clear();
        StealableRange[] parts = new StealableRange[p];
        long partLen = len / p;
        long extra = len % p;
        long start = base;
        for (int k = 0; k < p; k++) {
            long n = partLen + (k < extra ? 1 : 0);
            parts[k] = new StealableRange(start, n);
            segments.add(parts[k]);
            start += n;
        }
        Participant[] forked = new Participant[p - 1]; // in fork order
        int n = 0;
        try {
            for (int k = p - 1; k >= 1; k--) {
                Participant job = new Participant(this, parts[k]);
                w.fork(job);
                forked[n++] = job;
            }
            participate(parts[0]);
        } finally {
            // Whatever happened above, no participant may run on after this call returns.
            // Newest first: the last one forked is at the bottom of this worker's deque.
            for (int i = n - 1; i >= 0; i--) {
                Participant job = forked[i];
                if (w.tryUnfork(job)) {
                    job.run();
                } else {
                    w.awaitLatch(job);
                }
            }
        }
        if (failure == null) {
            List<StealableRange> inOrder = new ArrayList<>(segments);
            inOrder.sort(Comparator.comparingLong(r -> r.base));
            windowDone(inOrder);
        }
    }

    /**
     * Drains {@code own}, then keeps stealing until no range has work left or the loop failed.
     * Never throws: anything that escapes (an error while stealing, say) fails the loop.
     */
    final void participate(StealableRange own) {
        try {
            for (StealableRange r = own; r != null; r = failure == null ? stealSomething() : null) {
                drain(r);
            }
        } catch (Throwable t) {
            fail(t);
        }
    }

    private void drain(StealableRange r) {
        long batch = minBatch;
        int share = guidedShare;
        for (long claim; failure == null && (claim = r.take(guided(r, batch, share))) != -1; ) {
            if (scheduler.isStopping()) { // shutdownNow: end the loop, as FJP-style code would
                fail(new CancellationException("the pool was shut down during the loop"));
                return;
            }
            long lo = r.start(claim);
            try {
                process(r, lo, lo + StealableRange.count(claim));
            } catch (Throwable t) {
                fail(t);
                return;
            }
            if (batch < maxBatch) {
                batch = Math.min(maxBatch, batch << 1);
            }
        }
    }

    /**
     * {@code batch}, but at most {@code 1/share} of what is left in {@code r}, not below min. A
     * thief may shrink {@code r} between this read and the take: the take clamps to what is
     * left, so at worst one batch exceeds the share of the new remainder.
     */
    private long guided(StealableRange r, long batch, int share) {
        if (share == 0) {
            return batch;
        }
        return Math.max(minBatch, Math.min(batch, r.remaining() / share));
    }

    /** FindMax: split the range with the most work left; null when there is none. */
    private StealableRange stealSomething() {
        for (;;) {
            StealableRange victim = null;
            long most = 0;
            for (StealableRange s : segments) {
                long left = s.remaining();
                if (left > most) {
                    most = left;
                    victim = s;
                }
            }
            if (victim == null) {
                return null;
            }
            long claim = victim.steal();
            if (claim != -1) {
                StealableRange mine = new StealableRange(victim.start(claim), StealableRange.count(claim));
                segments.add(mine);
                return mine;
            }
            // the victim ran dry meanwhile: look again
        }
    }

    private void fail(Throwable t) {
        if (!FAILURE.compareAndSet(this, null, new Failures.Thrown(t))) {
            try {
                Failures.combine(failure.failure, t);
            } catch (Throwable ignored) {
                // addSuppressed could not allocate: the first failure is what the caller gets
            }
        }
    }

    /** One forked participant: drains its part, then steals, then completes its latch. */
    private static final class Participant extends Latch implements ForkedJob {
        private final RangeLoop loop;
        private final StealableRange part;

        Participant(RangeLoop loop, StealableRange part) {
            this.loop = loop;
            this.part = part;
        }

        @Override
        public void run() {
            if (isSet()) {
                return;
            }
            loop.participate(part); // never throws: failures are recorded in the loop
            trySetResult(null);
        }

        /** shutdownNow: stop the whole loop, not just this participant. */
        @Override
        public void abandon() {
            loop.fail(new CancellationException("the pool was shut down during the loop"));
            tryCancel();
        }
    }
}
