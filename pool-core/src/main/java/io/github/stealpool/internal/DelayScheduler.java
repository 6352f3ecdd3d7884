package io.github.stealpool.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.Callable;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The timer behind {@code WorkStealingPool}'s {@code schedule} methods and
 * {@code submitWithTimeout}: one daemon thread, started by the first delayed submission (under
 * the scheduler's {@code mainLock}, once), that keeps the pending {@link DelayedTask}s in a
 * 4-ary min-heap ordered by deadline, then sequence number (see "The inbox"), and hands each
 * one to the workers when it is due ({@link Scheduler#queueDelayed}). After JDK 25's
 * {@code ForkJoinPool.DelayScheduler}: only the timer thread touches the heap; everyone else
 * talks to it through the inbox. "The heap" is a {@link DelayWheel}: a small heap of the
 * entries due in the next tick, a wheel of buckets for the next few milliseconds and a heap
 * beyond them, which gives entries out in the exact order one heap would, at the cost of a
 * small heap's pop for most of them.
 *
 * <h2>The inbox</h2>
 * A {@link TimerInbox}: striped lock-free stacks of the entries and removals offered, linked
 * through their own fields (Treiber stacks, as JDK 25's {@code DelayScheduler} keeps its
 * pending tasks in one), with the submission sequence numbers. Submitters offer new entries,
 * workers offer a periodic entry back after its run (with its next deadline), and a successful
 * {@code cancel} of an entry the timer has taken in offers a {@link Removal} for it. An offer
 * is a CAS on the top of a stripe (an entry's: the one its sequence number names, so a
 * periodic entry goes back where it was scheduled; a removal's: its thread's), which publishes
 * the node; the timer thread takes a stripe's whole stack at once, and is the only consumer
 * but for one case below ("Late arrivals", under {@code mainLock} once the timer has
 * finished). No global lock and no shared line on the way in: submitters on different
 * stripes write nothing in common but the {@link LongAdder} counters' cells; nothing is
 * allocated but the entry (a removal is one small object); and no one waits for another's
 * progress (but under a storm: "A storm of offers"). The order in which the timer takes nodes
 * does not matter: the heap orders by deadline, then by sequence number (increasing for any one
 * thread, so one thread's entries due at the same moment go in the order it scheduled them;
 * between threads a tie goes by stripe counters, not by time of submission, as a global counter
 * would, which every submitter would write); and a removal that the timer takes before its
 * entry (another stripe, or the same batch) means the entry was done before the timer took it
 * in (below), so the timer drops it.
 * The timer unlinks each node as it takes it, so an entry in the heap references no other.
 *
 * <p>What the timer does with what it takes: a new entry goes into the heap, unless it is done
 * already (cancelled before the timer saw it: dropped) or the shutdown policy drops it. A
 * {@link Removal} takes its entry out of the heap if it is there ({@code heapIndex >= 0});
 * otherwise the entry is out of the timer's hands (handed to the workers, or dropped) or on
 * its way back into them, and then it is done, and dropped when it arrives. An entry is at
 * most once in the timer's hands (the heap or the inbox as an add), since only the timer
 * takes one out and only its runner gives it back. An Error while the heap grows ({@code add})
 * cancels the entry in hand, and the rest of its batch, before it propagates (the timer then
 * fails: rule 6), so no entry taken from the inbox is lost.
 *
 * <h2>A cancel before the timer takes the entry in</h2>
 * An entry still in the inbox needs no {@link Removal}: the timer looks whether an entry is
 * done as it polls it, and drops it then. So a cancel offers a removal only if the timer has
 * polled the entry, which a Dekker pair decides: the timer writes {@link DelayedTask#OUT} to
 * the entry's {@code heapIndex} (volatile) as it polls it, then reads its state (volatile);
 * a cancel CASes the state, then reads {@code heapIndex} (volatile). One of the two sees the
 * other's write. If the cancel reads {@link DelayedTask#NOT_TAKEN}, its read came before the
 * timer's write, so the timer's read of the state comes after the CAS: it sees the entry done
 * and drops it. Otherwise the timer's write came first, and the removal is offered after the
 * timer polled the entry, so the timer polls the removal after it placed the entry (or dropped
 * it): it finds the entry in the heap and takes it out, or finds it not there ({@code
 * heapIndex < 0}). The timer first reads the state alone, and drops an entry already done
 * without writing {@code OUT}: the cancel that made it done reads {@code heapIndex} after its
 * CAS and finds {@code NOT_TAKEN}, since the timer wrote no {@code OUT} this time, and offers no
 * removal (for a periodic entry it may read the {@code OUT} of the hand-over before the
 * runner's {@code NOT_TAKEN}, and offer a spare removal, which finds the entry not in the
 * heap): either way the timer drops the entry, and the cancel leaves it to the timer. A periodic entry given back
 * by its runner is set to {@code NOT_TAKEN}
 * before the offer, and the offer's publication orders that write before the timer's next
 * {@code OUT}, so a cancel cannot read a stale {@code NOT_TAKEN} after the timer polled the
 * entry again. An entry not yet taken in is taken in soon without a wake-up (its offer woke a
 * deep-sleeping timer, or the timer lingers), so a cancel that offers no removal wakes nobody;
 * one that offers a removal follows "No lost wake-up". A schedule-then-cancel that the timer
 * has not yet seen costs it one look and no heap work ({@code TimerTakeInVersusCancelTest}
 * checks the pair).
 *
 * <h2>Entries run on the timer</h2>
 * A {@link DelayedTask.OnTimer} entry is run by the timer thread itself when due, not handed to
 * the workers, as JDK 25's {@code ForkJoinPool} runs its "immediate" timeout tasks: it is
 * {@code submitWithTimeout}'s timeout without an action, which cancels its task and interrupts
 * the task's runner. A few steps and no user code, so the timer is held up no longer than by a
 * hand-over, and the time limit holds while every worker is busy (with the timeout as an
 * ordinary entry, a pool of one worker running the timed task could run the timeout only after
 * the task). It is a one-shot entry for every other purpose: the shutdown policy applies to it,
 * and STOP cancels it unrun (rules 1 and 3; after shutdownNow nothing needs a time limit). Its
 * run sets no interrupt on the timer (the task's {@code cancel} of the entry never interrupts),
 * and the timer clears any interrupt anyway (below).
 *
 * <p>The entry of a timed task that completes before it runs ({@code cancel},
 * {@code complete}, or its timeout) is cancelled when a worker takes the task's queued entry and
 * finds it done ({@code Task.completedBeforeRun}); one that runs cancels it as its call ends.
 * Either way a done task's entry is removed (a {@link Removal}) no later than the task leaves
 * the queues, and under SHUTDOWN the workers take every queued task before they can retire: it
 * never holds the pool past that (rule 2), and when it fires with its task done it does nothing.
 *
 * <h2>Handing over in batches</h2>
 * The timer posts due entries to the workers as any outside submitter posts a task (queue it,
 * a full fence, re-read the run state, then Sleep's notice), but {@link #HAND_OVER_BATCH} at a
 * time: it polls up to that many due entries, queues them in a row, and gives the fence and
 * the notice once. The workers then find a batch in one stripe of the injection queue and
 * take it in one go, instead of meeting the timer's offers one entry at a time. The first
 * entry of a batch waits for the rest to be polled (a few microseconds; an entry the timer
 * runs itself hands the batch over first). Sleep's proof allows one notice for several tasks
 * ("Why no job is left behind", several jobs published before one fence and one read). Only
 * the first entry of a batch may go to a sleeper by hand, with no queued entry then waiting
 * for a notice, as one task's post would; the batch's notice comes after that hand-off (Sleep,
 * the proof's case of workers woken with a job in hand). The late settling after the fence is
 * per entry, as for one task, so one refused under STOP is cancelled and the others settle on
 * their own. An entry polled is dropped if done, run if it is the timer's own, or held for
 * the batch, which {@link #fireDue}'s {@code finally} hands over whatever fails: a timer that
 * fails mid-batch strands nothing (rule 6).
 *
 * <h2>A storm of offers</h2>
 * One timer thread takes in what every thread offers, so threads that offer faster than it
 * takes in (many threads scheduling and cancelling: per-request timeouts that complete in time)
 * would grow the inbox without bound, every entry there held until the timer reaches it, until
 * collection pauses outgrow the work. Three rules keep a storm from doing harm:
 * <ul>
 *   <li><b>Flow control.</b> A {@code schedule} (not a periodic re-arm: those are as many as
 *       the periodic tasks) that finds, after its offer, more than {@link #BACKLOG_LIMIT}
 *       entries in its stripe since the timer last took it ({@link TimerInbox#backlog}) waits
 *       until the timer has taken the stripe: it wakes the timer and parks
 *       {@link #BACKLOG_PARK_NANOS} at a time, looking again after each park. It stops waiting
 *       once the backlog is down to half the limit, or the timer failed (it then drains and
 *       cancels what is left, rule 6) or let go (it took the entry in first, or "Late
 *       arrivals" settled it), or
 *       the caller is interrupted (its interrupt status kept). The entry was accepted before
 *       the wait, so a wait changes nothing that the entry's future says, only when the call
 *       returns, as {@code ScheduledThreadPoolExecutor}'s lock makes a storm wait for its
 *       queue. The backlog never counts an entry the timer took ({@link TimerInbox}'s
 *       invariants), so a waiter whose stripe was taken gets out at its next look, unless the
 *       storm has refilled the stripe by then. The bound it gives, for the schedules that
 *       wait: per stripe, the limit plus the offers in flight, and at worst about twice that
 *       (offers the timer's count missed, between its take and its read, are held back by the
 *       old count); an interrupted caller's schedules, periodic re-arms and {@link Removal}s
 *       add to it unchecked (the last two are at most one per entry held). At 64 stripes that
 *       is one to two million entries, against no bound before. The timer never waits (its own {@code schedule} would
 *       wait for itself), and it holds no lock the waiters need; a waiting worker publishes
 *       its forks first, as before any wait that takes no task. For {@code submitWithTimeout},
 *       the wait comes after the time limit's entry is offered, so the limit runs during it.</li>
 *   <li><b>One take per stripe a turn.</b> {@link #drain} takes each stripe once, then the
 *       turn goes on to the due entries: a drain that went on until the inbox was empty would
 *       never end under a storm, and no due entry would be handed over meanwhile. Anything
 *       left in the inbox sends the loop round at once ({@link #prepareToPark}).</li>
 *   <li><b>A cancelled entry costs one look.</b> An entry cancelled in the inbox is dropped on
 *       the timer's first read of its state, before the write of {@code OUT}: the timer writes
 *       nothing to it but the unlinking ("A cancel before the timer takes the entry in" has
 *       why that is safe).</li>
 * </ul>
 *
 * <h2>No lost wake-up</h2>
 * The timer publishes how it sleeps in {@link #parkState}, then checks the inbox and the run
 * state again, and parks only if both are unchanged. Two ways to sleep:
 * <ul>
 *   <li>PARKED_SOON: until {@link #parkDeadline} at the latest (a park to a due entry ends
 *       ahead of it: "Waking ahead of a deadline"), at most {@link #LINGER_NANOS} away. The
 *       timer sleeps so when its heap's first entry is due that soon, and after a turn that
 *       took anything from the inbox (it lingers: offers are coming). Only an entry due before
 *       {@code parkDeadline} wakes it; everything else (later entries, removals) waits for it
 *       at most that long.</li>
 *   <li>PARKED_DEEP: until its heap's first entry, further away, or for good with an empty
 *       heap, after a turn that took nothing. Any offer wakes it: an entry, and a cancel's
 *       removal.</li>
 * </ul>
 * So a stream of offers wakes the timer once, then it takes them in batches, at least every
 * {@code LINGER_NANOS}, with no unpark from the stream unless an entry is due sooner (or a
 * submitter waits for the timer: "A storm of offers"); an idle timer costs one lingering turn
 * after its last offer, then sleeps deep. A submitter offers
 * its entry (a CAS), then reads {@code parkState}, and unparks the timer if the rule above says
 * so, after a CAS of {@code parkState} to AWAKE (so one submitter in a burst unparks it, not
 * all). All of these accesses are volatile (sequentially consistent), so either the timer's
 * check sees the offer and it does not park, or the submitter reads the state written before
 * that check. If it then sees AWAKE the timer is between two cycles, and the next cycle's drain
 * comes after the write of AWAKE, which comes after the submitter's read, which comes after its
 * offer: the drain sees the entry. If it sees PARKED_SOON and does not wake it (its entry is
 * not due earlier), the timer wakes by {@code parkDeadline} anyway and drains, before the
 * entry is due. A failed CAS means someone else set AWAKE: the same case. A cancel's removal
 * follows the same steps and rule (deep: wake); under PARKED_SOON it waits at most
 * {@code LINGER_NANOS}, so a cancelled entry leaves the timer's hands that promptly.
 * A timer spinning ahead of a deadline (below) is AWAKE in this sense: it stores AWAKE, then
 * spins while the inbox is empty, and drains it when the spin ends. A submitter that read a
 * PARKED state either CASes after that store and fails (the case above), or succeeds and
 * unparks a running thread: its offer came before the store, so the spin sees it and ends at
 * once, and the permit costs the next park one turn (a spurious unpark, below). The spin
 * ignores the run state; it ends by the deadline, under {@link #MAX_AHEAD_NANOS} away.
 * {@code shutdown} and {@code shutdownNow} store the run state and then wake the timer the
 * same way, however it sleeps ({@link #wakeUp}); the timer's check of the run state after its
 * publication closes that window likewise. A spurious or extra unpark
 * costs one turn of the loop. So does an interrupt of the timer thread: the timer clears it
 * ({@code Thread.interrupted()}) after every park, since a pending interrupt makes
 * {@code park} return at once and would turn the loop into a spin; the timer has no use for
 * interrupts.
 *
 * <h2>Waking ahead of a deadline</h2>
 * A timed park returns late (the kernel's timer slack, then the wait for a core), and all of
 * that adds to a due entry's lateness before a worker is even woken for it. So a park that
 * ends when the heap's first entry is due asks to end ahead of it by the timer's estimate of
 * that delay, learned from such parks that nobody cut short ({@link #learnOvershoot}: it
 * settles low in their spread, so more parks return after it, spinning nothing, than before
 * it). A park that returns within the estimate of the deadline, timed out or woken, spins the
 * rest of the way ({@code Thread.onSpinWait}), marked AWAKE, and stops at the deadline or as
 * soon as the inbox holds anything; the loop then drains and the spin resumes, to the same
 * deadline, instead of parking, which would cost the overshoot it saves. Entries are handed
 * over only once due ({@code fireDue} compares with the clock as before; under the lab switch
 * of "Handing over ahead" the worker spins to the deadline instead), so no task starts
 * earlier; the cost is the spin, at most the estimate (under {@link #MAX_AHEAD_NANOS}) per
 * deadline, plus a turn of the loop for each offer that cuts it short. A deadline nearer than
 * the estimate when the timer is about to park (entries due closer together than that) is
 * parked to as before, with no spin, unless a park ended ahead of that same deadline (then
 * the spin resumes; an entry that took the place of a removed one with exactly its deadline
 * would get that spin too, at most the estimate). docs/lab/delay-timer.md has the figures.
 *
 * <h2>Handing over ahead (a lab switch, off by default)</h2>
 * With {@link #handAheadSwitch} set to a fixed lead, the first due entry may leave the timer up
 * to that long before its deadline, to a sleeping worker, when every worker sleeps: the
 * worker's wake-up then overlaps the last microseconds of the delay instead of following the
 * deadline, and the worker spins the rest of the way before it runs the task
 * ({@link RunWhenDue}), so no task starts before its delay (the one exception to "Waking ahead
 * of a deadline"'s "handed over only once due"). On an idle pool a park to a due entry ends
 * that much earlier for it, and the timer tries once per deadline ({@code aheadTried}). If no
 * worker sleeps then, the entry stays in the heap; if the hand-off finds no sleeper to take it
 * (one woke, is searching, sleeps in a join, or has slept under 100 us), the entry, polled
 * meanwhile, goes back in its place (a removal offered meanwhile finds it there). Either way
 * it is handed over at its deadline as usual. An entry the timer runs itself
 * ({@link DelayedTask.OnTimer}) is never handed ahead. The entry leaves the timer's hands as a
 * hand-off to a sleeper does (it counts as started), so under the switch a task within the
 * lead of its deadline may still run after {@code shutdownNow} (rule 3), or after
 * {@code shutdown} with {@code cancelDelayedTasksOnShutdown} (rule 1). Smaller effects, all
 * under the switch only: the early poll may move the wheel's front up to the lead ahead of the
 * clock (a larger front, the same order); a task picked for timing counts the worker's spin as
 * queue wait; and a hand-off no sleeper took has used up a timing pick. For the many-core A/B
 * of lateness p99 (docs/lab/delay-timer.md, "What is open"); removed once decided.
 *
 * <h2>Shutdown: the rules, and why they hold</h2>
 * As {@code ScheduledThreadPoolExecutor} with its defaults (docs/guarantees.md states them):
 * <ol>
 *   <li><b>After {@code shutdown()}</b> one-shot delayed tasks still run when due; periodic
 *       ones stop (cancelled); with {@code cancelDelayedTasksOnShutdown} the one-shot ones are
 *       cancelled too. The timer applies this policy to its heap when it sees SHUTDOWN, and to
 *       every entry it polls afterwards; a periodic task running meanwhile is cancelled by
 *       its runner instead of re-armed ({@link DelayedTask.Periodic#run}), or by the policy when its
 *       re-arm reaches the timer. {@code shutdown()} returns once the timer has applied the
 *       policy ({@link #applied}).</li>
 *   <li><b>The pool does not terminate while one-shot tasks are still due to run.</b> The
 *       timer holds the pool ({@code Scheduler.delayHold}, set under {@code mainLock} when the
 *       timer starts, while the pool is RUNNING): while it holds, no worker retires
 *       ({@code LifeCycle.tryRetire}), idle workers sleep instead of leaving (the Sleep
 *       predicate), and nothing terminates the pool. So a due task handed over under SHUTDOWN
 *       ({@link Scheduler#queueDelayed} accepts it then) finds a live worker, which runs
 *       it. The timer lets go ({@link #tryFinish}) only with its heap empty and, under
 *       {@code mainLock}, its inbox empty: then it can be given nothing it would run (below),
 *       and it wakes the sleeping workers, which retire once the queues are empty, the last
 *       one terminating the pool; if no worker is left it terminates the pool itself. Every
 *       task it handed over is in a queue by then, where {@code tryRetire} (under the same
 *       lock) sees it. So {@code awaitTermination} waits for the due one-shot tasks.</li>
 *   <li><b>{@code shutdownNow()} runs no delayed task</b>: the timer hands nothing over once it
 *       reads STOP (and {@code queueDelayed} refuses then); it cancels every entry in its
 *       heap and every one it polls, then lets go. A task handed over before STOP is a queued
 *       task: {@code shutdownNow}'s sweep returns it (its future), or a hand-off to a parked
 *       worker counts as started, as for any task; one handed over as STOP lands is refused
 *       ({@code settleLate}) and cancelled by the timer. {@code shutdownNow()} returns once the
 *       timer has applied STOP, so every delayed task is returned or cancelled by then.</li>
 *   <li><b>Late arrivals.</b> A submission checks the run state before it offers (rejected
 *       after shutdown, as {@code ScheduledThreadPoolExecutor} does), and again after the offer
 *       (its CAS is a volatile write, the check a volatile read); one that sees the pool leave
 *       RUNNING settles under {@code mainLock} ({@link #settleLate}). If the timer has not
 *       finished, it will take the entry (it lets go only with every stripe of the inbox
 *       empty, under the same lock, and the offer came first) and apply the policy. If it has
 *       finished it takes no more: the settler, now the inbox's only
 *       consumer (consumers follow each other under {@code mainLock}), drains it and cancels
 *       every entry there, as {@code ScheduledThreadPoolExecutor.delayedExecute} cancels a
 *       task it finds it cannot run. A periodic re-arm settles the same way.</li>
 *   <li><b>The timer thread ends with the pool</b>: it lets go only after shutdown, then
 *       returns; {@code awaitTermination} joins it as it joins the workers, unless called on
 *       the timer thread itself (a termination action runs there when the timer terminates the
 *       pool as it lets go). A pool that never scheduled anything never had one.</li>
 *   <li><b>A failing timer still lets go.</b> If its loop throws, the timer sets
 *       {@link #failed}, logs (a failing log is ignored), cancels its heap and drains its
 *       inbox with the STOP policy, then lets go as in rule 2 ({@link #tryFinish}, draining
 *       again until the inbox is empty under {@code mainLock}). New submissions are refused
 *       once {@code failed} is set. A hand-over racing the failure re-checks {@code failed}
 *       after its offer, as it re-checks the run state (rule 4): if it reads false, its offer
 *       came before the write of {@code failed}, so before the timer's last check of the
 *       inbox, which sees it; if true it settles under {@code mainLock}:
 *       before the timer finished, the timer polls it yet; after, the settler cancels it. No
 *       entry is left in a dead inbox. If even that clean-up fails and the thread ends without
 *       letting go, whoever next needs the timer takes over ({@link #takeOverIfDead}, under
 *       {@code mainLock}): {@code shutdown}/{@code shutdownNow} waiting for the policy (they
 *       wait in slices and look whether the thread is alive), {@code awaitTermination} while
 *       the hold is set, and a settling hand-over. The taker sees the thread dead
 *       ({@code isAlive()} false: the dead thread's writes, the heap included, happen-before
 *       that), sets {@code failed} and {@code finished} (so cancels offer no more removals and
 *       submissions are refused), cancels the heap and the inbox, and releases the hold
 *       ({@code LifeCycle.delaysFinished}), and wakes the sleeping workers at once (the taker
 *       may be about to wait for their retirement). Consumers of the inbox still follow each
 *       other under {@code mainLock}.</li>
 * </ol>
 */
public final class DelayScheduler {

    static final Logger LOG = LoggerFactory.getLogger(DelayScheduler.class);

    private static final int AWAKE = 0;
    private static final int PARKED_SOON = 1;
    private static final int PARKED_DEEP = 2;

    /**
     * The longest PARKED_SOON sleep ("No lost wake-up"): how long a removal or an entry due
     * later may wait for a lingering timer; short against any delay worth a timer, long
     * against the gap between two offers of a stream.
     */
    static final long LINGER_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    /**
     * Entries a stripe of the inbox may hold, not yet taken in, before a {@code schedule} that
     * finds more waits for the timer ("A storm of offers"): far above what one thread's burst
     * leaves there while the timer keeps up, and a few megabytes a stripe at most.
     */
    static final long BACKLOG_LIMIT = 1 << 14;
    /** How long a {@code schedule} waiting for the timer parks between two looks. */
    static final long BACKLOG_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(50);

    /**
     * The most a park ends ahead of a due entry, and so the longest spin ("Waking ahead of a
     * deadline"): a park that returns later than this was descheduled, and is not learned from.
     */
    static final long MAX_AHEAD_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

    /**
     * Lab switch {@code stealpool.lab.timerHandAheadNanos} (docs/lab/README.md, "Lab switches"):
     * how long before its deadline the first due entry may be handed to a sleeping worker,
     * which spins the rest of the way ("Handing over ahead"); 0, the default, never. Read once
     * per timer, at most half of {@link #MAX_AHEAD_NANOS}. Not for users; removed once decided.
     */
    static long handAheadSwitch() {
        long n = Long.getLong("stealpool.lab.timerHandAheadNanos", 0L);
        return Math.max(0L, Math.min(n, MAX_AHEAD_NANOS / 2));
    }

    /** Delays are clamped to this (~146 years), so deadlines compare by subtraction. */
    static final long MAX_DELAY = Long.MAX_VALUE >> 1;

    private static final VarHandle PARK_STATE;

    static {
        try {
            PARK_STATE = MethodHandles.lookup().findVarHandle(DelayScheduler.class, "parkState", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final Scheduler pool;
    private final boolean cancelOneShotOnShutdown;
    /** See "The inbox". */
    private final TimerInbox inbox;
    /**
     * Entries that left the timer's hands (handed over, dropped, removed or cancelled): the
     * timer's, or a settler's under {@code mainLock}; {@link #pending()} is the inbox's count of
     * entries offered less this.
     */
    private final LongAdder released = new LongAdder();
    /**
     * The most due entries handed to the workers together, under one fence and one notice:
     * enough to share their cost, few enough that the first waits for the rest only a few
     * microseconds of heap pops on a typical heap.
     */
    static final int HAND_OVER_BATCH = 64;
    /** The timer thread's: due entries polled and not yet handed over ({@link #fireDue}). */
    private final DelayedTask<?>[] dueBatch = new DelayedTask<?>[HAND_OVER_BATCH];
    /** The timer thread's: the queued ones of a batch, as the queues hold them. */
    private final Runnable[] queuedBatch = new Runnable[HAND_OVER_BATCH];
    /** {@code executor.scheduled.repetitively}: calls of the two periodic ones. */
    final LongAdder scheduledRepetitively = new LongAdder();
    final Thread thread;

    /** See "No lost wake-up". */
    private volatile int parkState;
    private volatile long parkDeadline;
    /** The timer thread's own: whether its next park has no deadline (deep, empty heap). */
    private boolean parkForever;
    /** The timer thread's own: whether its next park ends when the heap's first entry is due. */
    private boolean parkOnDue;
    /**
     * The timer thread's own: how late its parks to a due entry return when nobody wakes them,
     * an asymmetric running mean under {@link #MAX_AHEAD_NANOS} ({@link #learnOvershoot}).
     * Written before the entries it then hands over (see {@link #parkOvershootNanos()}).
     */
    private long parkOvershootNanos;
    /** The timer thread's own: the deadline of the last park that ended ahead of one. */
    private long spinDeadline;
    /** See {@link #handAheadSwitch}: 0, or how far ahead of its deadline an entry may go. */
    private final long handAheadNanos;
    /** The timer thread's own: the deadline of the last entry it tried to hand over ahead. */
    private long aheadTried;
    /** Entries handed over ahead of their deadline ({@link #handAheadSwitch}); the timer's writes. */
    private volatile long handedAhead;
    /** The highest run state whose policy the timer has applied; written under mainLock. */
    private volatile int applied = Scheduler.RUNNING;
    /** Set under mainLock when the timer lets go of the pool; it polls no more. */
    private volatile boolean finished;
    /**
     * Set by the timer thread as it fails (or by whoever takes over from a dead one), before it
     * drains its inbox for the last time: a hand-over re-checks it after its offer (rule 6).
     */
    private volatile boolean failed;

    /** The timer thread's own, or whoever's takes over from a dead one under mainLock. */
    private final DelayWheel delays = new DelayWheel();

    /** A cancel's request to take its entry out of the heap. */
    static final class Removal {
        final DelayedTask<?> task;
        /** The inbox node offered before this one; written before the offer's CAS. */
        Object next;

        Removal(DelayedTask<?> task) {
            this.task = task;
        }
    }

    DelayScheduler(Scheduler pool, boolean cancelOneShotOnShutdown) {
        this.pool = pool;
        this.cancelOneShotOnShutdown = cancelOneShotOnShutdown;
        this.handAheadNanos = handAheadSwitch();
        // Two stripes per worker, as the injection queue: concurrent submitters seldom share one.
        this.inbox = new TimerInbox(2 * pool.parallelism);
        Thread t = new Thread(null, this::run, pool.name() + "-timer", 0L, false);
        t.setDaemon(true); // the workers keep the JVM alive while there is work; the timer never needs to
        this.thread = t;
    }

    // ------------------------------------------------------------------ submitting

    /** The deadline {@code delay} nanoseconds from now, the delay clamped to {@link #MAX_DELAY}. */
    static long deadline(long delayNanos) {
        return System.nanoTime() + Math.min(Math.max(delayNanos, 0L), MAX_DELAY);
    }

    /**
     * A one-shot task running {@code callable} after {@code delay}, handed to the timer;
     * decorated first by {@code decorator} unless it is null. Here and below the decorator
     * runs before anything is counted or handed over, so one that throws leaves the timer as
     * it was.
     */
    public <V> DelayedTask<V> schedule(Callable<V> callable, long delay, TimeUnit unit,
                                       UnaryOperator<Runnable> decorator) {
        long time = deadline(unit.toNanos(delay));
        DelayedTask<V> t = decorator == null
                ? new DelayedTask<>(this, callable, time, inbox.nextSequence())
                : new DelayedTask.Decorated<>(this, callable, time, inbox.nextSequence())
                        .decorate(decorator);
        inbox.countScheduledOnce(t);
        submit(t);
        return t;
    }

    /**
     * A one-shot task running {@code runnable} after {@code delay}, decorated first unless
     * {@code decorator} is null; not counted as scheduled when {@code !counted}.
     */
    public DelayedTask<Void> schedule(Runnable runnable, long delay, TimeUnit unit, boolean counted,
                                      UnaryOperator<Runnable> decorator) {
        long time = deadline(unit.toNanos(delay));
        DelayedTask<Void> t = decorator == null
                ? new DelayedTask<>(this, runnable, null, time, inbox.nextSequence())
                : new DelayedTask.Decorated<Void>(this, runnable, null, time, inbox.nextSequence())
                        .decorate(decorator);
        if (counted) {
            inbox.countScheduledOnce(t);
        }
        submit(t);
        return t;
    }

    /**
     * An entry that the timer thread runs itself when due ({@link DelayedTask.OnTimer}): for
     * {@code action}s of a few steps that run no user code; not counted as scheduled.
     */
    public DelayedTask<Void> scheduleOnTimer(Runnable action, long delay, TimeUnit unit) {
        DelayedTask<Void> t = new DelayedTask.OnTimer(this, action, deadline(unit.toNanos(delay)),
                inbox.nextSequence());
        submit(t);
        return t;
    }

    /**
     * A periodic task: at a fixed rate if {@code fixedRate}, else with a fixed delay between
     * the end of a run and the start of the next.
     */
    public DelayedTask<Void> schedulePeriodic(Runnable runnable, long initialDelay, long period,
                                              TimeUnit unit, boolean fixedRate,
                                              UnaryOperator<Runnable> decorator) {
        long p = Math.min(unit.toNanos(period), MAX_DELAY);
        DelayedTask.Periodic t = new DelayedTask.Periodic(this, runnable,
                deadline(unit.toNanos(initialDelay)), fixedRate ? p : -p, inbox.nextSequence());
        if (decorator != null) {
            t.decorate(decorator);
        }
        scheduledRepetitively.increment();
        submit(t);
        return t;
    }

    private void submit(DelayedTask<?> t) {
        if (pool.runState != Scheduler.RUNNING || failed || finished) { // finished while running: it failed
            throw pool.rejected(t);
        }
        handOver(t);
        if (inbox.backlog(t) > BACKLOG_LIMIT) {
            awaitTimer(t);
        }
    }

    /**
     * The flow control of "A storm of offers": {@code t} is offered; waits until the timer has
     * taken its stripe down to half the limit, or can take nothing more (it failed or let go),
     * or the caller is interrupted (its status kept). The timer itself never waits.
     */
    private void awaitTimer(DelayedTask<?> t) {
        Thread me = Thread.currentThread();
        if (me == thread) {
            return;
        }
        Worker.publishForksOfCurrent(); // a worker waits here running no task (Worker.publishForks)
        while (inbox.backlog(t) > BACKLOG_LIMIT / 2 && !failed && !finished && !me.isInterrupted()) {
            wakeUp(); // a lingering timer drains now, not at the end of its linger
            LockSupport.parkNanos(this, BACKLOG_PARK_NANOS);
        }
    }

    /** A periodic task's runner gives it back with its next deadline. */
    void rearm(DelayedTask<?> t) {
        // Before the offer, which publishes it: the timer wrote OUT as it handed the entry over,
        // and a cancel must not read that once the entry is back in the inbox ("A cancel before
        // the timer takes the entry in").
        t.heapIndex = DelayedTask.NOT_TAKEN;
        handOver(t);
    }

    private void handOver(DelayedTask<?> t) {
        offerAndWake(t); // its offer's CAS comes before the reads below
        if (pool.runState != Scheduler.RUNNING || failed) {
            settleLate();
        }
    }

    /**
     * The submitter's half of "No lost wake-up": offers {@code t}, then unparks the timer if it
     * sleeps past {@code t}'s deadline; true if this call unparked it.
     */
    private boolean offerAndWake(DelayedTask<?> t) {
        inbox.offer(t); // counted, then a volatile CAS: before the reads below and the caller's (rule 4)
        long time = t.time;
        int s = parkState;
        if (s == PARKED_DEEP || s == PARKED_SOON && time - parkDeadline < 0) {
            if (PARK_STATE.compareAndSet(this, s, AWAKE)) {
                LockSupport.unpark(thread);
                return true;
            }
        }
        return false;
    }

    /**
     * The timer's half of "No lost wake-up": publishes how it would sleep, lingering if
     * {@code busy} (its turn took something from the inbox), then looks at the inbox and the
     * run state again; true if it may park, false if it must go round (then it is AWAKE again).
     */
    private boolean prepareToPark(int rs, boolean busy) {
        long now = System.nanoTime();
        DelayedTask<?> first = delays.first(now);
        boolean soonDue = first != null && first.time - now <= LINGER_NANOS;
        if (soonDue || busy) {
            parkForever = false;
            parkOnDue = soonDue;
            parkDeadline = soonDue ? first.time : now + LINGER_NANOS;
            parkState = PARKED_SOON;
        } else {
            parkForever = first == null;
            parkOnDue = first != null;
            parkDeadline = first == null ? now + MAX_DELAY : first.time;
            parkState = PARKED_DEEP;
        }
        if (!inbox.isEmpty() || pool.runState != rs) {
            parkState = AWAKE;
            return false;
        }
        return true;
    }

    /**
     * For the jcstress test of "No lost wake-up" ({@code TimerWakeUpTest}): a timer over
     * {@code pool} whose thread is never started, and its two halves.
     */
    public static final class WakeUpProbe {
        private final DelayScheduler timer;
        private final boolean lingering;
        private final long due;

        /** The timer parking deep, after an idle turn, with an empty heap. */
        public WakeUpProbe(Scheduler pool) {
            this(pool, false);
        }

        /**
         * With {@code lingering}, the timer parks PARKED_SOON after a busy turn, and an earlier
         * turn left a {@code parkDeadline} far in the past; the submitter's entry is due after
         * that one and before the new one, so it must wake the timer if it sees it lingering.
         */
        public WakeUpProbe(Scheduler pool, boolean lingering) {
            this.timer = new DelayScheduler(pool, false);
            this.lingering = lingering;
            long now = System.nanoTime();
            this.due = lingering ? now + LINGER_NANOS / 2 : now;
            if (lingering) {
                timer.parkDeadline = now - TimeUnit.SECONDS.toNanos(1);
            }
        }

        /** The timer thread's half: true if it would park. */
        public boolean timerWouldPark() {
            return timer.prepareToPark(Scheduler.RUNNING, lingering);
        }

        /** A submitter's half: true if it unparked the timer. */
        public boolean submitterWakes() {
            return timer.offerAndWake(new DelayedTask<Void>(timer, () -> { }, null, due, 0L));
        }
    }

    /**
     * For the jcstress test of "A cancel before the timer takes the entry in"
     * ({@code TimerTakeInVersusCancelTest} and {@code TimerRearmVersusCancelTest}): a timer whose
     * thread is never started, one entry, and the sides: the timer taking it in (given to it
     * directly), a periodic runner giving it back, and a cancel.
     */
    public static final class TakeInProbe {
        private final DelayScheduler timer;
        private final DelayedTask<Void> task;

        /** A new entry, not yet given to the timer. */
        public TakeInProbe(Scheduler pool) {
            this(pool, false);
        }

        /**
         * With {@code handedOver}, the entry is a periodic one the timer has handed over (out
         * of its heap) and that is running.
         */
        public TakeInProbe(Scheduler pool, boolean handedOver) {
            this.timer = new DelayScheduler(pool, false);
            this.task = new DelayedTask.Periodic(timer, () -> { }, System.nanoTime() + MAX_DELAY,
                    TimeUnit.HOURS.toNanos(1), 0L);
            if (handedOver) {
                task.heapIndex = DelayedTask.OUT;
            }
        }

        /** The timer polls the entry: true if it placed it in the heap. */
        public boolean timerTakesIn() {
            timer.takeIn(task, Scheduler.RUNNING);
            return task.heapIndex >= 0;
        }

        /** The user cancels the entry: true if the cancel asked for its removal. */
        public boolean cancelAsksForRemoval() {
            task.cancel(false);
            return !timer.inbox.isEmpty(); // nothing else is ever offered to this timer
        }

        /** The user cancels the entry (while other things may be offered). */
        public void cancel() {
            task.cancel(false);
        }

        /** A periodic runner gives the entry back after a run (a probe made {@code handedOver}). */
        public void rearm() {
            timer.rearm(task);
        }

        /** The timer takes in its inbox: true if the heap then holds an entry. */
        public boolean timerDrains() {
            timer.drain(Scheduler.RUNNING);
            return !timer.delays.isEmpty();
        }

        /**
         * After both: the user cancels the entry, then the timer takes in its inbox; true if
         * the heap still holds it (read from the heap itself, whatever {@code heapIndex} says).
         */
        public boolean cancelledAndLeftInTheHeap() {
            task.cancel(false);
            timer.drain(Scheduler.RUNNING);
            return !timer.delays.isEmpty();
        }

        /** After both: true if the entry is still in the heap once the timer took in its inbox. */
        public boolean leftInTheHeap() {
            timer.drain(Scheduler.RUNNING);
            return task.heapIndex >= 0;
        }
    }

    /**
     * For the jcstress test of the inbox ({@code TimerInboxOffersVersusTakeTest}): a timer
     * whose thread is never started, two entries to offer, and its inbox's consumer side.
     */
    public static final class InboxProbe {
        private final DelayScheduler timer;
        private final DelayedTask<Void> first;
        private final DelayedTask<Void> second;
        private int firstTaken;
        private int secondTaken;

        public InboxProbe(Scheduler pool) {
            this.timer = new DelayScheduler(pool, false);
            this.first = new DelayedTask<Void>(timer, () -> { }, null, 0L, 0L);
            // seq 0 for both: the same stripe, so the two offers race on one top
            this.second = new DelayedTask<Void>(timer, () -> { }, null, 0L, 0L);
        }

        public void offerFirst() {
            timer.inbox.offer(first);
        }

        public void offerSecond() {
            timer.inbox.offer(second);
        }

        /** Takes everything offered so far; the number of entries taken. */
        public int takeAll() {
            int n = 0;
            for (Object batch; (batch = timer.inbox.takeAny()) != null; ) {
                for (Object o = batch; o != null; o = TimerInbox.unlinkNext(o)) {
                    n++;
                    if (o == first) {
                        firstTaken++;
                    } else if (o == second) {
                        secondTaken++;
                    }
                }
            }
            return n;
        }

        /**
         * After everything was taken: true if each entry was taken exactly once, and unlinked,
         * and the stripe's backlog reads 0 ("A storm of offers": no entry taken still counted).
         */
        public boolean eachTakenOnce() {
            return firstTaken == 1 && secondTaken == 1 && first.inboxNext == null && second.inboxNext == null
                    && timer.inbox.isEmpty() && timer.inbox.offered() == 2 && timer.inbox.backlog(first) == 0;
        }
    }

    /** Unparks the timer however it sleeps (shutdown, shutdownNow). */
    void wakeUp() {
        int s = parkState;
        if (s != AWAKE && PARK_STATE.compareAndSet(this, s, AWAKE)) {
            LockSupport.unpark(thread);
        }
    }

    /**
     * {@code t} was cancelled (its state CAS done): asks the timer to take it out of its heap
     * if the timer has polled it ("A cancel before the timer takes the entry in").
     */
    void cancelled(DelayedTask<?> t) {
        if (Thread.currentThread() == thread || finished) {
            return; // the timer cancels only what it holds in hand; a finished one holds nothing
        }
        if (t.heapIndexVolatile() != DelayedTask.NOT_TAKEN) {
            inbox.offer(new Removal(t)); // a volatile CAS, before the read of parkState ("No lost wake-up")
            if (parkState == PARKED_DEEP && PARK_STATE.compareAndSet(this, PARKED_DEEP, AWAKE)) {
                LockSupport.unpark(thread);
            }
        }
    }

    /**
     * Rules 4 and 6: a hand-over that saw the pool leave RUNNING, or the timer fail, after its
     * offer.
     */
    private void settleLate() {
        boolean tookOver = false;
        pool.mainLock.lock();
        try {
            if (!finished) {
                // The timer polls it yet (a failing one drains its inbox before it lets go),
                // unless its thread died without letting go: then this thread finishes for it.
                tookOver = takeOverIfDead();
                return;
            }
            drainAndCancel();
        } finally {
            pool.mainLock.unlock();
            if (tookOver) {
                afterTakeOver();
            }
        }
    }

    /** Under mainLock, once the timer has finished: cancels what the inbox still holds. */
    private void drainAndCancel() {
        Throwable failure = null;
        for (Object batch; (batch = inbox.takeAny()) != null; ) {
            try {
                cancelAll(batch);
            } catch (Throwable e) { // every stripe still goes: the inbox is dead after this
                failure = firstOf(failure, e);
            }
        }
        rethrow(failure);
    }

    /** {@code failure} with {@code e} suppressed in it, or {@code e} if it is the first. */
    private static Throwable firstOf(Throwable failure, Throwable e) {
        if (failure == null) {
            return e;
        }
        if (e != failure) { // the JVM may throw one preallocated OutOfMemoryError again
            failure.addSuppressed(e);
        }
        return failure;
    }

    private static void rethrow(Throwable failure) {
        if (failure instanceof RuntimeException) {
            throw (RuntimeException) failure;
        } else if (failure instanceof Error) {
            throw (Error) failure;
        } else if (failure != null) {
            throw new IllegalStateException(failure); // cancel declares no checked exception
        }
    }

    /**
     * Cancels every entry of {@code batch} (from {@code takeAny}), unlinking each, whatever a
     * cancel throws: the batch is in neither the inbox nor the heap, so no entry may be skipped;
     * the first failure is rethrown at the end, later ones suppressed.
     */
    private void cancelAll(Object batch) {
        Throwable failure = null;
        for (Object o = batch; o != null; ) {
            Object next = TimerInbox.unlinkNext(o);
            if (o instanceof DelayedTask) {
                released.increment();
                try {
                    ((DelayedTask<?>) o).cancel(false);
                } catch (Throwable e) {
                    failure = firstOf(failure, e);
                }
            }
            o = next;
        }
        rethrow(failure);
    }

    /**
     * Rule 6: under mainLock, if the timer thread has ended without letting go of the pool,
     * does it for the thread: cancels its heap and its inbox, marks it finished and releases
     * the hold, and wakes the sleeping workers; true if it did (then the caller, after
     * unlocking, calls {@link #afterTakeOver}).
     * The dead thread's writes to the heap happen-before {@code isAlive()} returns false (JLS
     * 17.4.5), so the heap may be read here.
     */
    boolean takeOverIfDead() {
        if (finished || thread.isAlive() || thread.getState() == Thread.State.NEW) {
            return false;
        }
        failed = true;
        finished = true; // first: the cancels below offer no Removal, and submissions are refused
        try {
            LOG.error("{}: the timer thread ended without letting go of the pool; its delayed tasks are cancelled",
                    pool.name());
        } catch (Throwable ignored) {
            // the clean-up below matters more than the log
        }
        try {
            cancelHeap();
            drainAndCancel();
        } finally {
            pool.life.delaysFinished();
            // Sleeping workers look again, and retire; now, not after the caller unlocks: it
            // may wait on (awaitTermination) for their retirement (start() wakes under the lock too).
            pool.sleep.wakeAll();
        }
        return true;
    }

    /** After a {@link #takeOverIfDead} that returned true, with mainLock released. */
    void afterTakeOver() {
        pool.life.fireTermination();
    }

    // ------------------------------------------------------------------ life cycle

    /** Under mainLock, once: starts the thread. */
    void start() {
        thread.start();
    }

    /** Whether the timer has applied the policy of run state {@code rs}, or let go. */
    boolean hasApplied(int rs) {
        return applied >= rs || finished;
    }

    boolean isFinished() {
        return finished;
    }

    /**
     * Entries with the timer: offered and not yet handed over, dropped or removed; exact when
     * nothing moves.
     */
    long pending() {
        long gone = released.sum(); // first: every entry it counts was counted as offered before
        return Math.max(0L, inbox.offered() - gone);
    }

    /** {@code executor.scheduled.once}: calls of the one-shot {@code schedule} methods. */
    long scheduledOnce() {
        return inbox.scheduledOnce();
    }

    // ------------------------------------------------------------------ the timer thread

    private void run() {
        try {
            loop();
        } catch (Throwable e) {
            if (finished) {
                // It let go already (rule 2) and failed after, in tryFinish's wake-up: the inbox
                // belongs to the settlers now (drained under mainLock), so no drain here; only
                // the wake-up of the sleeping workers is owed, so that they retire.
                try {
                    pool.sleep.wakeAll();
                } catch (Throwable ignored) {
                    // nothing more this thread can do; the next post or shutdown wakes them
                }
                return;
            }
            failed = true; // before the last drains: a racing hand-over settles (rule 6)
            try {
                LOG.error("{}: the timer thread failed; delayed tasks are cancelled", pool.name(), e);
            } catch (Throwable ignored) {
                // the clean-up below matters more than the log
            }
            try {
                cancelHeap();
                drain(Scheduler.STOP);
            } finally {
                while (!tryFinish()) {
                    drain(Scheduler.STOP);
                }
            }
        }
    }

    private void loop() {
        int done = Scheduler.RUNNING;
        for (;;) {
            pool.probe.timerTurn();
            int rs = pool.runState;
            boolean busy = drain(rs);
            if (rs > done) {
                applyPolicy(rs);
                done = rs;
                acknowledge(rs);
            }
            if (rs < Scheduler.STOP) {
                fireDue();
            }
            if (rs >= Scheduler.SHUTDOWN && delays.isEmpty()) {
                if (tryFinish()) {
                    return;
                }
                continue;
            }
            if (!prepareToPark(rs, busy)) {
                continue;
            }
            park();
            // The timer has no use for interrupts; one left set would make park return at
            // once, and the loop spin, forever ("No lost wake-up").
            Thread.interrupted();
            parkState = AWAKE;
        }
    }

    /**
     * Parks as {@link #prepareToPark} published. A park to the heap's first entry ends ahead of
     * it by the estimated overshoot, and the rest is spun ("Waking ahead of a deadline").
     */
    private void park() {
        if (parkForever) {
            LockSupport.park(this);
            return;
        }
        long deadline = parkDeadline;
        long now = System.nanoTime();
        // Lab switch: on an idle pool, a due entry not yet tried is woken for ahead of itself
        // ("Handing over ahead"); on a busy one there is no sleeper to hand it to.
        long target = parkOnDue && handAheadFor(deadline) != 0L && pool.sleep.allAsleep()
                ? deadline - handAheadNanos : deadline;
        long ahead = parkOnDue ? parkOvershootNanos : 0L;
        if (target - ahead - now <= 0L) {
            if (parkOnDue && deadline == spinDeadline && target - now > 0L) {
                spinTo(target); // a spin an offer cut short goes on: a park would cost the overshoot
                return;
            }
            ahead = 0L; // nearer than the overshoot (entries close together): park to it, no spin
        }
        long wakeAt = target - ahead;
        long wait = wakeAt - now;
        if (wait <= 0L) {
            return;
        }
        if (ahead != 0L) {
            spinDeadline = deadline; // however this park ends, within the estimate it spins on
        }
        LockSupport.parkNanos(this, wait);
        if (parkOnDue && parkState != AWAKE) {
            // Nobody set AWAKE: it timed out, or returned early (a stale permit, an interrupt,
            // a spurious return), which a negative lateness or a deadline still far tell.
            now = System.nanoTime();
            learnOvershoot(now - wakeAt);
            long left = target - now;
            if (left > 0L && left <= ahead) {
                spinTo(target);
            }
        }
    }

    /**
     * Folds one park's lateness into {@link #parkOvershootNanos}: down by a quarter of the gap,
     * up by a sixteenth (an asymmetric running mean), so it settles low in the spread and more
     * parks return after it, spinning nothing, than before it. A lateness of
     * {@link #MAX_AHEAD_NANOS} or more is a descheduled thread, not the park's slack: not learned.
     */
    private void learnOvershoot(long late) {
        if (late >= 0L && late < MAX_AHEAD_NANOS) {
            long gap = late - parkOvershootNanos;
            parkOvershootNanos += gap < 0L ? gap >> 2 : gap >> 4;
        }
    }

    /** Spins until {@code deadline} or until the inbox holds anything, whichever comes first. */
    private void spinTo(long deadline) {
        parkState = AWAKE; // no submitter need unpark it: the loop drains before it parks again
        while (System.nanoTime() - deadline < 0L && inbox.isEmpty()) {
            Thread.onSpinWait();
        }
    }

    /**
     * For tests: the overshoot estimate, at least as current as it was when this timer handed
     * over an entry, for a thread ordered after that entry's run (its {@code get} returned).
     */
    long parkOvershootNanos() {
        return parkOvershootNanos;
    }

    /**
     * Takes in what each stripe of the inbox holds, one take each, applying the policy of run
     * state {@code rs}; true if there was anything.
     */
    private boolean drain(int rs) {
        boolean took = false;
        // One take per stripe, then back to the loop: a storm of offers never keeps the timer
        // from its due entries ("A storm of offers").
        for (int i = 0, n = inbox.stripes(); i < n; i++) {
            Object batch = inbox.take(i);
            if (batch == null) {
                continue;
            }
            long now = System.nanoTime(); // once a batch: where an empty queue's wheel starts
            took = true;
            for (Object o = batch; o != null; ) {
                Object next = TimerInbox.unlinkNext(o);
                try {
                    if (o instanceof Removal) {
                        remove(((Removal) o).task);
                    } else {
                        takeIn((DelayedTask<?>) o, rs, now);
                    }
                } catch (Throwable e) { // the timer fails (rule 6): the rest of the batch is only here
                    try {
                        cancelAll(next);
                    } catch (Throwable again) {
                        firstOf(e, again);
                    }
                    throw e;
                }
                o = next;
            }
            pool.probe.timerTookIn();
        }
        return took;
    }

    /** A {@link Removal}: takes {@code t} out of the heap if it is there. */
    void remove(DelayedTask<?> t) {
        if (t.heapIndex >= 0) {
            delays.remove(t);
            released.increment();
        }
    }

    /** A polled entry: into the heap, unless it is done or the policy of {@code rs} drops it. */
    void takeIn(DelayedTask<?> t, int rs) {
        takeIn(t, rs, System.nanoTime());
    }

    /** As {@link #takeIn(DelayedTask, int)}, with a recent {@code System.nanoTime()}. */
    void takeIn(DelayedTask<?> t, int rs, long now) {
        if (t.isDone()) { // cancelled in the inbox: dropped, and no OUT for the cancel to read
            released.increment();
            return;
        }
        t.setHeapIndexVolatile(DelayedTask.OUT); // before isDone: "A cancel before the timer takes the entry in"
        if (t.isDone()) {
            released.increment();
        } else if (drops(t, rs)) {
            released.increment();
            t.cancel(false);
        } else {
            try {
                delays.add(t, now);
            } catch (Throwable e) { // out of memory growing the heap: t is only here
                released.increment();
                t.cancel(false);
                throw e; // the timer fails (rule 6)
            }
        }
    }

    /** Whether the shutdown policy of run state {@code rs} cancels {@code t}. */
    private boolean drops(DelayedTask<?> t, int rs) {
        return rs >= Scheduler.STOP
                || rs >= Scheduler.SHUTDOWN && (t.isPeriodic() || cancelOneShotOnShutdown);
    }

    /** Cancels the heap's entries that the policy of {@code rs} drops, and rebuilds the heap. */
    private void applyPolicy(int rs) {
        if (rs >= Scheduler.STOP) {
            cancelHeap();
            return;
        }
        delays.removeIf(t -> drops(t, rs) || t.isDone(), this::cancelDropped);
    }

    private void cancelHeap() {
        delays.clear(this::cancelDropped);
    }

    /** An entry the heap gave up at shutdown: it leaves the timer's hands, cancelled. */
    private void cancelDropped(DelayedTask<?> t) {
        released.increment();
        t.cancel(false);
    }

    private void acknowledge(int rs) {
        pool.mainLock.lock();
        try {
            applied = rs;
            pool.life.signalTermination();
        } finally {
            pool.mainLock.unlock();
        }
    }

    /**
     * Hands every due entry to the workers, earliest first, up to {@link #HAND_OVER_BATCH} at
     * a time ("Handing over in batches").
     */
    private void fireDue() {
        long now = System.nanoTime();
        DelayedTask<?>[] due = this.dueBatch;
        int n = 0; // polled and not yet handed over
        try {
            for (DelayedTask<?> t; (t = delays.first(now)) != null; ) {
                if (t.time - now > 0L) {
                    if (n == 0 && t.time - now <= handAheadFor(t.time)) { // lab switch: "Handing over ahead"
                        aheadTried = t.time; // tried once, whatever comes of it: the park goes to the deadline now
                        if (!(t instanceof DelayedTask.OnTimer) && handOverAhead(t, now)) {
                            continue; // an entry the timer runs itself stays with it
                        }
                    }
                    return;
                }
                delays.pollFirst();
                if (t.isDone()) {
                    released.increment();
                    continue;
                }
                if (t instanceof DelayedTask.OnTimer) {
                    if (n != 0) { // first: those polled before it wait for no one's run
                        int k = n;
                        n = 0;
                        handToWorkers(k);
                    }
                    released.increment();
                    t.run(); // FutureTask.run: what it throws is recorded (and logged), not thrown
                    continue;
                }
                due[n++] = t;
                if (n == HAND_OVER_BATCH) {
                    n = 0;
                    handToWorkers(HAND_OVER_BATCH);
                } else if (n == 1) {
                    pool.probe.timerBatchBegun();
                }
            }
        } finally { // also if the timer fails (rule 6): what it polled is handed over
            if (n != 0) {
                handToWorkers(n);
            }
        }
    }

    /** How far ahead of {@code deadline} the timer may hand its entry over: 0 once tried. */
    private long handAheadFor(long deadline) {
        return handAheadNanos != 0L && deadline != aheadTried ? handAheadNanos : 0L;
    }

    /**
     * "Handing over ahead" (lab switch): hands {@code t}, the first entry and not yet due, to a
     * sleeping worker that spins to its deadline before it runs it ({@link RunWhenDue}); true
     * if it left the timer's hands so (or was done), false if it is in the heap as before.
     */
    private boolean handOverAhead(DelayedTask<?> t, long now) {
        if (!pool.sleep.allAsleep()) {
            return false; // no sleeper to hand it to: it waits for its deadline as usual
        }
        DelayedTask<?> polled = delays.pollFirst(); // t: out of the heap (OUT) before anyone else can run it
        assert polled == t : polled;
        released.increment(); // before the hand-off, as the entry leaves the timer's hands (handToWorkers)
        if (t.isDone()) {
            return true;
        }
        boolean handed;
        try {
            handed = pool.handOffAhead(t.entry(), t.time);
        } catch (Throwable e) { // refused (STOP, rule 3) or failed: t is only here
            cancelUnhanded(t, e);
            return true;
        }
        if (handed) {
            handedAhead = handedAhead + 1; // only the timer writes it
            return true;
        }
        released.decrement(); // back in the timer's hands
        try {
            delays.add(t, now); // no sleeper took it: back in its place, due as before
        } catch (Throwable e) { // out of memory growing the heap: t is only here
            released.increment();
            t.cancel(false);
            throw e; // the timer fails (rule 6)
        }
        return false;
    }

    /** For tests: entries handed over ahead of their deadline ({@link #handAheadSwitch}). */
    long handedAhead() {
        return handedAhead;
    }

    /**
     * Hands the {@code n} entries polled ({@code dueBatch[0..n)}) to the workers: queues each
     * (the first may go to a sleeper by hand instead), then gives the post's fence and notice
     * once ({@link #announce}). One refused (after shutdownNow, rule 3) or whose queuing failed
     * is cancelled. Never throws, and leaves the arrays empty.
     */
    private void handToWorkers(int n) {
        DelayedTask<?>[] due = dueBatch;
        released.add(n); // before the hand-over, as the entries leave the timer's hands
        int q = 0;
        for (int i = 0; i < n; i++) {
            DelayedTask<?> t = due[i];
            due[i] = null;
            try {
                Runnable r = pool.queueDelayed(t.entry(), i == 0); // the task or its decorated form
                if (r != null) {
                    due[q] = t; // q <= i: the queued ones, kept for their settling and notice
                    queuedBatch[q++] = r;
                }
            } catch (Throwable e) {
                cancelUnhanded(t, e);
            }
        }
        if (q != 0) {
            announce(q);
        }
    }

    /**
     * The rest of the post of the {@code n} entries just queued ({@code dueBatch[i]} as
     * {@code queuedBatch[i]}): one fence, the late settling of each, one notice. Never
     * throws, and leaves the arrays empty.
     */
    private void announce(int n) {
        try {
            if (pool.leftRunningAfterQueuing()) {
                for (int i = 0; i < n; i++) {
                    try {
                        pool.settleLate(queuedBatch[i], true);
                    } catch (Throwable e) { // refused from STOP on, still queued (rule 3)
                        cancelUnhanded(dueBatch[i], e);
                    }
                }
            }
            try {
                pool.sleep.notifyNewJob();
            } catch (Throwable e) { // queued, but maybe unnoticed: cancelled, as one refused
                for (int i = 0; i < n; i++) {
                    if (!dueBatch[i].isDone()) { // not one settled or run meanwhile
                        cancelUnhanded(dueBatch[i], e);
                    }
                }
            }
        } finally {
            Arrays.fill(dueBatch, 0, n, null); // nothing handed over stays referenced here
            Arrays.fill(queuedBatch, 0, n, null);
        }
    }

    /**
     * An entry refused by the workers' queues (rule 3), or whose hand-over failed: it never
     * runs. Never throws: a failing log is ignored, as everywhere on the timer (rule 6).
     */
    private void cancelUnhanded(DelayedTask<?> t, Throwable why) {
        try {
            t.cancel(false); // first: whatever the log does, no waiter is left hanging
            if (!(why instanceof RejectedExecutionException)) {
                LOG.error("{}: could not hand {} to the workers; cancelled", pool.name(), t, why);
            }
        } catch (Throwable ignored) {
            // out of stack or memory: the rest of the batch matters more
        }
    }

    /**
     * Rule 2: lets go of the pool if the inbox is empty, under mainLock; false if it is not
     * (the caller drains it and tries again).
     */
    private boolean tryFinish() {
        pool.probe.timerLettingGo();
        pool.mainLock.lock();
        try {
            if (!inbox.isEmpty()) {
                return false;
            }
            finished = true;
            pool.life.delaysFinished();
        } finally {
            pool.mainLock.unlock();
            pool.life.fireTermination();
        }
        pool.sleep.wakeAll(); // sleeping workers look again, and retire
        return true;
    }

    /**
     * The heap's first entry, taken out as {@link #fireDue} takes it but not handed over; null
     * if the heap is empty. The timer thread's, like the heap: for {@code DelayHeapTest}, on a
     * timer whose thread never starts.
     */
    DelayedTask<?> pollFirst() {
        DelayedTask<?> t = delays.pollFirst();
        if (t != null) {
            released.increment();
        }
        return t;
    }
}
