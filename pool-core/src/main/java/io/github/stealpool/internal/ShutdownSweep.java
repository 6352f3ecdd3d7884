package io.github.stealpool.internal;

import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sweeps that take tasks out of the queues without running them: {@code shutdownNow}'s
 * ({@link #sweepForStop}) and a late submitter's ({@link #settleLate}), with the rules and the
 * proof that, with them, no accepted task is lost.
 *
 * <h2>Nothing lost: every accepted task runs, or is returned by shutdownNow, exactly once</h2>
 * "Accepted" means {@code execute} returned normally. Each task sits in at most one place at a
 * time: a stripe of the injection queue, a deque, or the hands of exactly one thread, and every
 * move between places takes it out with an atomic step (a stripe poll under the stripe's lock, a
 * deque pop or a steal's CAS) that only one thread can win. A hand-off moves a task from its
 * submitter's hands to those of the parked worker it wakes, under Sleep's lock, which pops that
 * worker off the sleepers' stack once; the worker runs it whatever the run state (rule 1: it
 * took it), and a worker whose sleep record was released always returns from its sleep with
 * it, interrupted, out of time or not. So "exactly once" reduces to "at
 * least once": no task may end in a place that nobody will ever look at, or in the hands of a
 * thread that will neither run it nor hand it back. The rules that give that:
 * <ol>
 *   <li><b>Whoever takes a task out of a queue runs it</b>, with three exceptions, all under
 *       {@code mainLock}: {@code shutdownNow}'s sweep (returns it, or abandons a fork/join
 *       piece), a late submitter's sweep ({@link #settleLate}: rejects its own task, abandons
 *       fork/join pieces as {@code shutdownNow} does, puts the other plain tasks back before
 *       unlocking), and a dead worker's hand-off (offers its deque to the injection queue, only
 *       before STOP). A worker that takes a batch from the injection queue
 *       pushes the rest onto its deque while it holds the stripe's lock, which the sweeps take
 *       too, so a sweep finds each task of the batch in the stripe or in that deque; the
 *       batch's first task the worker runs, whatever the run state.</li>
 *   <li><b>A worker that exits settles its deque only under {@code mainLock}, and only after
 *       STOP</b> ({@link #settleExit}; before STOP a dead worker hands its deque on, rule 1, and
 *       a retiring one has nothing left). STOP is stored and swept in one hold of that lock,
 *       and the exiting worker saw STOP, so it settles after the sweep. It takes everything
 *       left, with the deque's own atomic steps, abandons the fork/join pieces, as the sweep
 *       would, and puts the plain tasks back for their submitters (below: after the sweep a
 *       plain task in a queue belongs to a late submitter), as {@link #settleLate} does.
 *       Reason for the lock: an exit path that took tasks out and put them back without it
 *       would hide them from a late submitter's sweep running in between
 *       ({@code ShutdownRaceTest} forces the exit against {@code shutdownNow}'s sweep).</li>
 *   <li><b>No fork is left behind with nobody to abandon it.</b> A fork onto an empty deque
 *       is fenced, and checks the run state after its push, as {@code Scheduler.execute} does:
 *       if it sees RUNNING the sweep sees the push; if it sees STOP it takes the fork back
 *       itself. If it cannot (someone took it between its push and its check), the taker was
 *       a thief, which runs it, or a sweep, which abandons it: a late submitter's sweep too,
 *       which is why that one abandons fork/join pieces instead of putting them back (put
 *       back after STOP, nobody would ever run or cancel them, and their joiner would wait
 *       forever). A fork onto a deque that holds work has no fence outside a blocking call
 *       ({@link Worker#fork}), so the sweep may miss it while its check still reads RUNNING.
 *       Then its owner has it: the fork sits above the floor of the task that forked it, and
 *       the owner is running that task or one above it on its stack. The join of that task, or
 *       of any frame below it, pops it and runs it, as a thief would (a join past its depth
 *       bound takes nothing below its own floor, which holds only older tasks; an interruptible
 *       join that gives up at STOP takes nothing, and its task ends); a task that returns
 *       leaves it to the owner's loop, which sees STOP and exits, settling the fork by rule 2.
 *       A fork is pushed only by its owner, so no other thread leaves one where nobody looks.
 *       What this gives up: the sweep no longer cancels such a fork at once. An owner blocked
 *       for good in its task (deaf to {@code shutdownNow}'s interrupt) settles it only when
 *       the task returns, so a thread outside the pool that joins the fork waits that long
 *       (joiners inside the pool take it themselves).</li>
 * </ol>
 * <b>Submissions racing with shutdown.</b> A submitter checks {@code runState} before it
 * publishes (to reject tasks that come after shutdown) and, unless it handed its task to a
 * worker (which needs no second look: that worker runs it, as one that took it from a queue
 * just before STOP would), again after: a volatile read after a full fence that follows the
 * whole publication (the deque's release store; the injection queue's CAS and, when that offer
 * links a new chunk, the release stores that finish the link), against {@code shutdownNow}'s
 * volatile store of STOP followed by its sweep's volatile reads of the same queues (Dekker).
 * If the second check sees RUNNING, the sweep's reads see the publication, so it finds the
 * task unless someone took it first, and by rule 1 that someone runs it. The CAS alone is not
 * enough: an offer that links a chunk CASes the producer index to an odd value, and JCTools'
 * poll answers null until the link's release stores land, which a store buffer may hold past
 * the re-check; the sweep then saw a stripe that holds a task and took nothing from it. So
 * the sweep also waits out a link in progress ({@link InjectionQueue#drainTo}, "Tasks in
 * transit"): the task is then returned; only on a stripe where an offer failed does it stop
 * waiting, and the fence makes that safe, the submitter then seeing STOP.
 * Otherwise the submitter settles under {@code mainLock} ({@link #settleLate}):
 * <ul>
 *   <li>SHUTDOWN: some worker is still alive (the last one retires only after finding every queue
 *       empty, under the same lock), so the task is accepted and will run;</li>
 *   <li>STOP or TERMINATED: idle workers no longer look for tasks (one that began a search
 *       before STOP, or one waiting inside a join, may still take a task, and by rule 1 runs
 *       it), and whatever plain task is queued after {@code shutdownNow}'s sweep belongs to a
 *       submitter in the same position (rules 2 and 3: an exiting worker puts back only
 *       such tasks, and a fork is settled by its owner). The submitter sweeps the injection queue and every deque (a worker may have
 *       moved its task into a deque with a batch, and may have exited since), rejects its task
 *       if it finds it, abandons fork/join pieces (a fork in transit, or another late
 *       submitter's Task, which is then accepted and cancelled, as {@code shutdownNow} treats
 *       them), and puts the plain tasks back for their own submitters before it unlocks. Not
 *       found means a thread took it out, which by rule 1 means it ran, {@code shutdownNow}
 *       returned it, or it was a fork/join piece and was cancelled: accepted either way.</li>
 * </ul>
 * So every accepted task either runs or is returned by {@code shutdownNow}, exactly once, and
 * every rejected one does neither.
 *
 * <p><b>Timed tasks.</b> While task timing is on ({@link TaskTimer}), a submission picked for
 * timing is queued as its wrapper, made before the publication: "the task" above is then the
 * wrapper, which the late submitter looks for by identity, the sweeps move like any task, and
 * which runs its task exactly when it runs. Only {@code shutdownNow}'s returned list is
 * unwrapped, after its sweep, so its caller gets the tasks as submitted.
 *
 * <p>This class reads and writes the scheduler's fields ({@code mainLock}, {@code runState},
 * the slots, the queues, the statistics' counts) directly, with the modes they have there.
 * Nothing here is on the path of an accepted task: the scheduler reaches it only from
 * {@code shutdownNow} and from a submitter that saw the pool leave RUNNING.
 */
final class ShutdownSweep {

    /** The scheduler's logger: these lines were always the scheduler's. */
    private static final Logger LOG = LoggerFactory.getLogger(Scheduler.class);

    private final Scheduler scheduler;

    /** The sweeps of {@code scheduler}, made with it. */
    ShutdownSweep(Scheduler scheduler) {
        this.scheduler = scheduler;
    }

    /**
     * {@code shutdownNow}'s sweep, under mainLock after its store of STOP: moves every queued
     * plain task to {@code never}, as submitted, and abandons the fork/join pieces.
     */
    void sweepForStop(List<Runnable> never) {
        sweepQueues(never);
        // Fork/join pieces are waited for inside the pool, not by the caller: cancel them
        // so their waiters finish, and hand back only what was submitted as such.
        abandonAll(takeForkJoinPieces(never));
        never.replaceAll(TaskTimer::unwrap); // the tasks as submitted, not timed wrappers
    }

    /**
     * A submitter saw the pool leave RUNNING after publishing {@code task}. Under SHUTDOWN the task
     * is accepted (a live worker will run it). Under STOP or TERMINATED nothing runs queued
     * tasks any more and shutdownNow has already swept the queues, so every plain task still
     * queued belongs to a submitter like us, each settling in turn under mainLock: we collect it
     * all, keep ours (and reject it), abandon fork/join pieces, and put the plain tasks back for
     * their submitters to find. Not found means a worker took it and runs it: accepted.
     */
    void settleLate(Runnable task, boolean external) {
        Scheduler s = scheduler;
        s.mainLock.lock();
        try {
            if (s.runState < Scheduler.STOP) {
                return;
            }
            List<Runnable> stranded = new ArrayList<>();
            sweepQueues(stranded);
            boolean mine = removeSame(stranded, task);
            // A fork/join piece here is a fork in transit (its forker could not take it back,
            // see Worker.fork) or another late submitter's Task: after STOP nothing would run it
            // if we put it back, and its joiner would wait forever. Cancel it, as shutdownNow
            // does; a late submitter that then does not find its Task has it accepted, cancelled.
            List<Runnable> pieces = takeForkJoinPieces(stranded);
            // Each offer below repeats one counted before, and ours, if rejected, was no
            // submission (a local one was never counted). Subtracted before the offers, so a
            // concurrent reading errs low, which StatisticsAssembly.snapshot() clamps.
            s.statistics.offersNotSubmitted += stranded.size() + (mine && external ? 1 : 0);
            for (Runnable r : stranded) {
                s.injection.requeue(r); // first: the plain tasks are back whatever abandon does
            }
            abandonAll(pieces);
            if (mine) {
                throw s.rejected(task);
            }
        } finally {
            s.mainLock.unlock();
        }
    }

    /**
     * Rule 2: a worker exits after STOP, under mainLock (so after shutdownNow's sweep). Abandons
     * the fork/join pieces left in its deque (forks the sweep could not see, rule 3) and puts
     * the plain tasks back in the injection queue for their late submitters to find, as
     * {@link #settleLate} does.
     */
    void settleExit(ChaseLevDeque<Runnable> deque) {
        Scheduler s = scheduler;
        // One task at a time, each settled as it is taken: an Error (out of memory) costs the
        // task in hand at most, never the rest, and never the worker's exit (the caller goes on).
        for (Runnable t; (t = deque.pop()) != null; ) { // the owner's own thread
            try {
                if (ForkedJob.isForkJoinPiece(t)) {
                    ForkedJob.abandonPiece(t);
                } else {
                    s.statistics.offersNotSubmitted++; // the offer repeats one counted before
                    s.injection.requeue(t);
                }
            } catch (Throwable e) {
                try {
                    LOG.error("{}: could not settle {} as its worker exited; whoever waits for it may wait on",
                            s.name(), t, e);
                } catch (Throwable ignored) {
                    // nothing more to do
                }
            }
        }
    }

    /** Removes the fork/join pieces ({@link ForkedJob#isForkJoinPiece}) from {@code swept} and returns them. */
    private static List<Runnable> takeForkJoinPieces(List<Runnable> swept) {
        List<Runnable> pieces = new ArrayList<>();
        swept.removeIf(t -> {
            if (ForkedJob.isForkJoinPiece(t)) {
                pieces.add(t);
                return true;
            }
            return false;
        });
        return pieces;
    }

    /**
     * Abandons pieces the pool will not run, so whoever waits for one is released (a
     * CancellationException). One that fails to abandon (out of memory) does not stop the rest.
     */
    private void abandonAll(List<Runnable> pieces) {
        for (Runnable j : pieces) {
            try {
                ForkedJob.abandonPiece(j);
            } catch (Throwable e) {
                try {
                    LOG.error("{}: could not cancel {}; whoever waits for it may wait on",
                            scheduler.name(), j, e);
                } catch (Throwable ignored) {
                    // nothing more to do
                }
            }
        }
    }

    /** Removes {@code task} itself (not an equal one) from {@code list}; true if it was there. */
    private static boolean removeSame(List<Runnable> list, Runnable task) {
        for (int i = 0; i < list.size(); i++) {
            if (list.get(i) == task) {
                list.remove(i);
                return true;
            }
        }
        return false;
    }

    /** Moves every queued task, from the injection queue and every deque, to {@code sink}. */
    private void sweepQueues(List<Runnable> sink) {
        Scheduler s = scheduler;
        s.injection.drainTo(sink);
        for (int i = 0, n = s.slots(); i < n; i++) {
            ChaseLevDeque<Runnable> d = s.deques[i];
            while (!d.isEmpty()) {
                Runnable t = d.steal();
                if (t != null) {
                    sink.add(t);
                }
            }
        }
    }
}
