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
 *       that nobody else can split. A fixed fraction, not one shrinking with the participants,
 *       so the bound adds O(log) batches per range at any parallelism
 *       (docs/lab/range-loop-policy.md has both cases' figures). With one participant nobody
 *       can steal, and the bound is skipped.</li>
 *   <li>A claimed batch is the owner's alone, so no thief can split it; it is revocable by its
 *       owner instead. The owner runs it in runs of 1, 2, 4, ... up to {@link #CHECK_SPAN}
 *       indexes, and between two runs looks at {@link #idle}, the participants that quit for
 *       lack of work. If one did and the owner's range has nothing left (so no thief could
 *       help it), it cuts the upper half of the rest of its batch off as a new range and forks
 *       a participant for it, which an idle worker steals. So an expensive stretch claimed
 *       whole after a cheap one (in the middle of a long range, where the guided bound still
 *       allows a large batch) is shared within one run of at most {@link #CHECK_SPAN} indexes,
 *       the grain of a 64-leaf {@code ForkJoinPool} split. After a split the rest of that
 *       batch runs one index at a time while its indexes are expensive (timed against
 *       {@link #SPLIT_RUN_NANOS}): halves are cut by count, not cost, so the participant that
 *       took one may run dry again first, and is then answered within one index
 *       (docs/lab/range-loop-policy.md, "Expensive stretch in the middle"). The look is one read
 *       of a field that changes only when a participant quits or a split answers it. With one
 *       participant the batch is run in one piece (criterion C1). The forking owner joins what
 *       it forked before it ends its participation.</li>
 *   <li>A participant whose range is used up steals the upper half of the range with the most
 *       work left (the paper's FindMax), which becomes a new range that others can split again;
 *       it stops when no range has any work left.</li>
 *   <li>The caller joins the participant jobs (helping while it waits), each of which has
 *       joined the ones its splits forked. Termination needs no shared counter: every index
 *       belongs to exactly one range, and every range is drained by exactly one participant
 *       before that participant ends.</li>
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
    private static final VarHandle IDLE;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            FAILURE = l.findVarHandle(RangeLoop.class, "failure", Failures.Thrown.class);
            IDLE = l.findVarHandle(RangeLoop.class, "idle", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // --- accessors: access mode in the name, raw VarHandle calls only here ---

    private boolean casFailure(Failures.Thrown expect, Failures.Thrown update) {
        return FAILURE.compareAndSet(this, expect, update);
    }

    private void getAndAddIdle(int delta) {
        IDLE.getAndAdd(this, delta);
    }

    private boolean casIdle(int expect, int update) {
        return IDLE.compareAndSet(this, expect, update);
    }

    /** Recorded when a failure could not be (no memory to record it): see {@link #fail}. */
    private static final Failures.Thrown UNRECORDED = new Failures.Thrown(
            new OutOfMemoryError("a range loop failed, and there was no memory to record how"));

    /**
     * Largest run of a claimed batch processed between two looks at {@link #idle}: the part of
     * a batch that can never be split, as {@code ForkJoinPool} code with 64-index leaves.
     */
    static final long CHECK_SPAN = 64;

    /**
     * After a split, a run of one index that took less than this (in nanoseconds) lets the
     * runs double again: below it the call per index costs more than answering an idle
     * participant sooner saves. A {@code System.nanoTime()} read is small against it.
     */
    static final long SPLIT_RUN_NANOS = 2_000;

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

    /**
     * Participants of this window that found no work left anywhere and quit, not yet answered
     * by a split: an owner that sees it non-zero between two runs of its batch, with nothing
     * left in its range for a thief, hands the upper half of the rest of its batch to a new
     * participant (see the class comment). Written once per quitting participant and once per
     * split; read between runs of a batch, so a plain volatile field is cheap enough.
     */
    private volatile int idle;

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
        idle = 0;
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
            participate(w, parts[0]);
        } finally {
            // Whatever happened above, no participant may run on after this call returns.
            // Newest first: the last one forked is at the bottom of this worker's deque.
            for (int i = n - 1; i >= 0; i--) {
                join(w, forked[i]);
            }
        }
        if (failure == null) {
            List<StealableRange> inOrder = new ArrayList<>(segments);
            inOrder.sort(Comparator.comparingLong(r -> r.base));
            windowDone(inOrder);
        }
    }

    /**
     * Drains {@code own}, then keeps stealing until no range has work left or the loop failed,
     * then joins the participants its splits forked. Never throws: anything that escapes (an
     * error while stealing, say) fails the loop.
     */
    final void participate(Worker w, StealableRange own) {
        ArrayList<Participant> splits = null;
        try {
            splits = new ArrayList<>(0);
            for (StealableRange r = own; r != null; r = failure == null ? stealSomething() : null) {
                drain(r, w, splits);
            }
            if (failure == null) {
                getAndAddIdle(1);
            }
        } catch (Throwable t) {
            fail(t);
        } finally {
            if (splits != null) {
                for (int i = splits.size() - 1; i >= 0; i--) { // newest first, as runWindow
                    join(w, splits.get(i));
                }
            }
        }
    }

    /**
     * Joins {@code job} whatever happens, helping while it waits: no participant may run on
     * after the loop returns. If the join itself throws (a StackOverflowError from a task it
     * helped with, an OutOfMemoryError), the loop fails, and the job is either cancelled before
     * it starts or, already running elsewhere, waited for without helping and without
     * allocating.
     */
    private void join(Worker w, Participant job) {
        boolean ranHere = false;
        try {
            if (w.tryUnfork(job)) {
                ranHere = true; // nobody else can have it now
                job.run();
            } else {
                w.awaitLatch(job);
            }
        } catch (Throwable t) {
            // First make sure the job is over or never starts, then record t: recording
            // allocates, and t may be an OutOfMemoryError.
            if (!ranHere && !job.cancelBeforeStart()) {
                while (!job.isSet()) {
                    Thread.yield();
                }
            }
            fail(t);
        }
    }

    private void drain(StealableRange r, Worker w, ArrayList<Participant> splits) {
        long batch = minBatch;
        int share = guidedShare;
        for (long claim; failure == null && (claim = r.take(guided(r, batch, share))) != -1; ) {
            if (scheduler.isStopping()) { // shutdownNow: end the loop, as FJP-style code would
                fail(new CancellationException("the pool was shut down during the loop"));
                return;
            }
            long lo = r.start(claim);
            long end = lo + StealableRange.count(claim);
            try {
                if (share == 0) {
                    process(r, lo, end); // one participant: nobody to split for (criterion C1)
                } else {
                    // Runs of 1, 2, 4, ... up to CHECK_SPAN indexes, looking for idle
                    // participants between them, so an expensive index is noticed at once.
                    // After a split the rest of the batch runs one index at a time while its
                    // indexes are expensive: the batch is in demand (its halves are cut by
                    // count, not cost, so the one who took the other half may well run dry
                    // again first), and a run of 1 answers them within one index. Each such
                    // run is timed, and one shorter than SPLIT_RUN_NANOS restores the doubling,
                    // so cheap indexes never pay a call each (the clock is read only after a
                    // split, and costs under 2% of an index that it keeps at span 1).
                    long clock = 0;
                    for (long pos = lo, run = 1, span = CHECK_SPAN; pos < end && failure == null; ) {
                        long stop = pos + Math.min(run, end - pos); // pos + run may overflow
                        process(r, pos, stop);
                        pos = stop;
                        if (span == 1) {
                            long now = System.nanoTime();
                            if (now - clock < SPLIT_RUN_NANOS) {
                                span = CHECK_SPAN; // cheap: a call per index would cost more
                            }
                            clock = now;
                        }
                        run = Math.min(span, run << 1);
                        if (idle != 0 && end - pos >= 2) {
                            long cut = split(r, w, splits, pos, end);
                            if (cut != end) {
                                end = cut;
                                run = span = 1;
                                clock = System.nanoTime();
                            }
                        }
                    }
                }
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
     * The revocable part of a batch: the owner of {@code r}, holding {@code [pos, end)} of a
     * claimed batch still to run, hands {@code [mid, end)} to a new participant when another
     * participant has quit for lack of work and nobody can steal from {@code r} (nothing left
     * in it). Returns the new end of the owner's batch.
     *
     * <p>Why each index still runs exactly once, in order for reductions: the batch is the
     * owner's alone (its claim CAS took it out of {@code r}), so giving half of it away is a
     * local decision that touches no shared word; the half becomes a fresh range, published
     * through {@link #segments} and the fork, and is drained like any other. {@code r} has
     * nothing left, and never gets anything back (a range's low end only grows), so {@code r}'s
     * partial result stays one contiguous run {@code [.., mid)} and the new range folds after
     * it by its base.
     */
    private long split(StealableRange r, Worker w, ArrayList<Participant> splits, long pos, long end) {
        if (w == null || r.remaining() != 0 || !tryTakeIdle()) {
            return end;
        }
        long mid = pos + (end - pos) / 2;
        StealableRange rest = new StealableRange(mid, end - mid);
        Participant job = new Participant(this, rest);
        splits.ensureCapacity(splits.size() + 1);
        segments.add(rest);
        splits.add(job); // cannot throw now; before the fork, so the job is always joined
        try {
            w.fork(job);
        } catch (Throwable t) {
            // Pushed or not: if nobody has started the job, it never will and needs no join;
            // if a thief already runs it, it stays to be joined. The caller fails the loop
            // with t, so [mid, end) is not lost in silence.
            if (job.cancelBeforeStart()) {
                splits.remove(splits.size() - 1);
            }
            throw t;
        }
        return mid;
    }

    /** Participants of the current window that quit and no split has answered yet (tests). */
    int idleParticipants() {
        return idle;
    }

    /** Answers one quit participant; false if none is waiting for an answer. */
    private boolean tryTakeIdle() {
        for (int v; (v = idle) != 0; ) {
            if (casIdle(v, v - 1)) {
                return true;
            }
        }
        return false;
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

    /**
     * Records {@code t} as the loop's failure (the first one wins; later ones are suppressed in
     * it). Never throws: if recording cannot allocate, a failure made in advance is recorded
     * instead, so a loop that lost indexes never returns as if it had not.
     */
    private void fail(Throwable t) {
        try {
            if (!casFailure(null, new Failures.Thrown(t)) && failure != UNRECORDED) {
                Failures.combine(failure.failure, t); // the shared UNRECORDED collects nothing
            }
        } catch (Throwable outOfMemory) {
            casFailure(null, UNRECORDED); // no allocation
        }
    }

    /**
     * One forked participant: drains its part, then steals, then completes its latch. Starting
     * is a CAS on {@link #started}, so its joiner can cancel it before it starts without
     * allocating (see {@link #join}).
     */
    private static final class Participant extends Latch implements ForkedJob {
        private static final VarHandle STARTED;

        static {
            try {
                STARTED = MethodHandles.lookup().findVarHandle(Participant.class, "started", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private boolean casStarted(int expect, int update) { // raw VarHandle call only here
            return STARTED.compareAndSet(this, expect, update);
        }

        private static final int NEW = 0;
        private static final int RUNNING = 1;
        private static final int CANCELLED = 2;

        private final RangeLoop loop;
        private final StealableRange part;
        private volatile int started;

        Participant(RangeLoop loop, StealableRange part) {
            this.loop = loop;
            this.part = part;
        }

        @Override
        public void run() {
            if (isSet() || !casStarted(NEW, RUNNING)) {
                return;
            }
            try {
                loop.participate(Worker.current(), part); // never throws: failures are recorded
            } finally {
                trySetResult(null);
            }
        }

        /** True if this job had not started and now never will (its latch stays unset). */
        boolean cancelBeforeStart() {
            return casStarted(NEW, CANCELLED);
        }

        /** shutdownNow: stop the whole loop, not just this participant. */
        @Override
        public void abandon() {
            loop.fail(new CancellationException("the pool was shut down during the loop"));
            tryCancel();
        }
    }
}
