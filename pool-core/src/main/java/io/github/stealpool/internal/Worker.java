package io.github.stealpool.internal;

import io.github.stealpool.internal.jfr.BlockingCallEvent;
import java.lang.invoke.VarHandle;
import java.util.concurrent.RunnableFuture;
import java.util.function.BooleanSupplier;

/**
 * One worker of a {@link Scheduler}: its deque and the loop its thread runs.
 *
 * <h2>Search order</h2>
 * Own deque (LIFO, no synchronisation on the fast path; FIFO mode takes the oldest, with a CAS,
 * as thieves do), then the injection queue, then stealing
 * (FIFO) from the other workers' deques, starting at a victim chosen by this worker's own
 * xorshift generator and sweeping all of them. Stealing comes last because it pushes the victim
 * onto its own slow path (the CAS on the last element) sooner.
 *
 * <h2>Idle protocol</h2>
 * A worker that finds nothing in its own deque asks {@link Sleep} to let it search
 * ({@link Sleep#tryStartSearching}, at most half the pool at once). A searcher searches again
 * {@link #spinRounds} times with a short {@link Thread#onSpinWait()} pause, then
 * {@link #yieldRounds} times with a {@link Thread#yield()} (the pool's
 * {@code IdleStrategy}); then it stops searching, announces itself sleepy, searches once more,
 * and parks through {@link Sleep}, which proves that no job posted meanwhile is missed. A worker
 * refused as a searcher goes straight to the announcement. A worker woken for new work is a
 * searcher and starts the rounds again; one woken with a task in hand (a submitter from outside
 * handed it over, {@link Sleep#tryHandOff}) stops searching and runs it, without a search. A
 * worker asleep inside a join is never handed a task: woken, it looks at its latch first. A searcher that finds work stops searching at once; if
 * it was the last one while others sleep, and it sees more work queued, it wakes the next
 * searcher ({@link #leaveSearch}): wake-ups spread from worker to worker, not from the
 * submitter.
 *
 * <h2>Waiting inside a task</h2>
 * A task that joins runs other work meanwhile ({@link #awaitLatch}): its own forks, then the
 * injection queue, then stolen tasks, each on top of its stack, then sleeps in the same idle
 * protocol, registered on the latch so its completion wakes it by name. Two bounds keep the stack
 * in check: nested waits stop stealing past {@link #MAX_HELP_DEPTH}, and past it a waiter runs
 * only the running task's own forks, those above the deque index where that task began
 * ({@code taskFloor}).
 *
 * <h2>Spare workers</h2>
 * A worker in a slot past the pool's parallelism ({@link #spare}) is a spare thread standing in
 * for a worker blocked in a {@code blocking} call ({@link SpareThreads}). It works like
 * any other. Between two tasks, with its own deque empty, it retires if it is no longer needed;
 * idle, it parks for at most the pool's keep-alive, and when that runs out it searches once more
 * and retires under the same condition. After shutdown it retires as any worker does.
 *
 * <h2>Threading</h2>
 * Everything here except {@link #deque}'s steal side, {@link #thread}, {@link #retired} and
 * {@link #slotFree} (under the scheduler's lock) is touched only by the worker's own thread
 * (one thread at a time: a spare slot's next thread starts after the last one left).
 * The fields follow a block of padding ({@link WorkerPad}): the worker writes some of them on
 * every task and reads others on every fork, and a collection may copy two workers next to
 * each other.
 */
public final class Worker extends WorkerPad implements Runnable {

    /** Searches with a spin-wait pause before parking (the pool's {@code IdleStrategy}). */
    private final int spinRounds;
    /** Then searches with a {@link Thread#yield()} before parking. */
    private final int yieldRounds;
    /** Spin and yield rounds together: the round at which a searcher gives up. */
    private final int searchRounds;
    /** {@link Thread#onSpinWait()} calls between two searches of the spin phase. */
    static final int SPINS_PER_ROUND = 64;
    /** Counted as searching in {@link Sleep}: see {@link #leaveSearch}. */
    private boolean searching;

    /** Set by a worker thread the pool did not create itself (a user's ThreadFactory). */
    static final ThreadLocal<Worker> CURRENT = new ThreadLocal<>();

    final Scheduler scheduler;
    final int index;
    final ChaseLevDeque<Runnable> deque = new ChaseLevDeque<>();
    /** This worker's hot-path counters; written by its thread only. */
    final WorkerStats stats = new WorkerStats();
    /** Picks which of this worker's own submissions are timed, while timing is on (TaskTimer). */
    final TaskSampler submitSampler = new TaskSampler(System.nanoTime());

    /** The thread running this worker; replaced if the thread dies abnormally. */
    volatile Thread thread;
    /**
     * Set under the scheduler's lock when this worker retires after shutdown, or a spare
     * retires idle; cleared there when a spare slot gets a new thread.
     */
    boolean retired;
    /** A spare slot: its thread stands in for a worker blocked in a {@code blocking} call. */
    final boolean spare;
    /** A spare slot with no thread, free for the next spare. Guarded by the scheduler's lock. */
    boolean slotFree;
    /** Nesting of {@code blocking} calls on this worker's thread; only the outermost counts. */
    private int blockingDepth;
    /** The outermost blocking call's event while a recording has it enabled, else null. */
    private BlockingCallEvent blockingEvent;

    private int seed;
    private int injectionPolls;

    Worker(Scheduler scheduler, int index, int spinRounds, int yieldRounds, boolean spare) {
        this.scheduler = scheduler;
        this.index = index;
        this.spare = spare;
        this.slotFree = spare;
        // Any non-zero seed works for xorshift; spread the indexes so neighbours differ.
        this.seed = (index + 1) * 0x9E3779B9 | 1;
        this.spinRounds = spinRounds;
        this.yieldRounds = yieldRounds;
        this.searchRounds = (int) Math.min(Integer.MAX_VALUE - 1, (long) spinRounds + yieldRounds);
    }

    /**
     * Nested joins deeper than this stop stealing while they wait: each help runs a stolen task
     * on top of the joiner's stack, and a chain of them could overflow it. Past the bound a
     * joiner still runs its own forks (they are its own recursion) and otherwise parks.
     * 32 nested helps of recursions like fib(40) use well under a megabyte of stack.
     */
    static final int MAX_HELP_DEPTH = 32;

    private int helpDepth;
    /** Bottom index when the task running now started: deque entries above it are its forks. */
    private long taskFloor;
    /**
     * The innermost submitted task ({@code submit}, {@code invokeAll}, {@code invokeAny})
     * running on this worker's stack, or null: {@link #runNested} asks it whether an interrupt
     * arriving during a nested task was aimed at it. Set and restored by
     * {@link PoolFutureTask#run}, so nothing is written for other tasks.
     */
    private PoolFutureTask<?> runningFuture;
    /**
     * Whether this worker has a task in hand: set when it takes one after having none, cleared
     * when it runs out of work. The thread's own copy of {@link WorkerStats#active()}, so that
     * the shared flag is written only when it changes.
     */
    private boolean busy;

    /** The worker that the calling thread runs, of any pool, or null. */
    public static Worker current() {
        Thread t = Thread.currentThread();
        return t instanceof WorkerThread ? ((WorkerThread) t).worker : CURRENT.get();
    }

    /**
     * Counts a task that threw on the calling worker (a task given to {@code execute} or
     * {@code submit}, or a {@code Task}), whatever then caught its failure; called where that
     * failure is caught, before the outcome is published. Off the pool it does nothing: the task
     * did not run on a worker. It never throws: its callers are about to record a failure (a
     * future's, a joiner's), and an error here (out of memory creating the thread-local map of a
     * foreign thread) must not stop that and leave a waiter hanging.
     */
    public static void taskFailed() {
        try {
            Worker w = current();
            if (w != null) {
                w.stats.incFailed();
            }
        } catch (Throwable uncounted) {
            // the failure goes uncounted; its task's outcome still gets recorded
        }
    }

    /** Tasks waiting in this worker's deque: its forks not yet run, taken back or stolen. */
    public int queuedTasks() {
        return deque.size();
    }

    /**
     * How many more tasks this worker holds than the other workers are likely to steal soon, as
     * {@code ForkJoinTask.getSurplusQueuedTaskCount()} estimates it: the queued tasks less a
     * reserve that grows as fewer workers are awake to steal (none while more than half the pool
     * is awake, then 1, 2, 4 and 8 as a quarter, an eighth, a sixteenth or fewer are). A
     * recursion that splits while this is small keeps the idle workers fed without splitting
     * more than they take. May be negative.
     */
    public int surplusQueuedTasks() {
        int queued = deque.size();
        int p = scheduler.parallelism;
        // Threads awake, spares included (a parked spare is no worker that could steal).
        int awake = Math.max(0, scheduler.liveWorkers() - scheduler.sleep.sleepingWorkers());
        int reserve = 0;
        for (int share = p >>> 1; reserve < 8 && awake <= share; share >>>= 1) {
            reserve = reserve == 0 ? 1 : reserve << 1;
        }
        return queued - reserve;
    }

    /** This worker's scheduler. */
    public Scheduler scheduler() {
        return scheduler;
    }

    /**
     * Called on this worker's thread by the task it runs: pushes {@code job} on the deque and
     * announces it. Accepted after {@code shutdown}, so running computations can finish; after
     * {@code shutdownNow} the job is abandoned (cancelled), so they end quickly instead.
     *
     * <p>A push onto an empty deque, and every push inside a blocking call, is fenced: a full
     * fence between it and the reads of the run state and of Sleep's {@code ctl}, as in
     * {@code Scheduler.execute}. Such a push is what a sleeper's last search and
     * {@code shutdownNow}'s sweep must see (both Dekker pairs). Any other push onto a deque that
     * holds work is not: a fence per fork is a large part of what a fork costs
     * (docs/lab/fork-fence.md), and such a fork never waits for a sleeper. Its owner is awake and
     * runs it (a join pops it) or, exiting after {@code shutdownNow}, abandons it
     * (ShutdownSweep, "Nothing lost", rules 2 and 3); before the owner waits without taking tasks it
     * publishes its deque ({@link #publishForks}). A thief is a gain, not a condition of progress
     * (Sleep, "Forks onto a deque that holds work").
     */
    public void fork(ForkedJob job) {
        forkPiece(job);
    }

    /**
     * As {@link #fork(ForkedJob)}, for {@code io.github.stealpool.Task.fork()}: a fork/join piece
     * that is no ForkedJob (see {@link ForkedJob#isForkJoinPiece}), named here only by the
     * interface it implements, since this package does not depend on the API's classes. Any
     * other piece goes through {@link #fork(ForkedJob)}.
     */
    public void forkTask(RunnableFuture<?> task) {
        assert TaskSecrets.isTask(task) : task;
        forkPiece(task);
    }

    /**
     * Lab switch {@code stealpool.lab.forkNotice=fenced} (docs/lab/README.md, "Lab switches"): a
     * fork is notified only when it is fenced (onto an empty deque, or inside a blocking call),
     * as {@code ForkJoinPool} signals only a push onto an empty queue; by default every fork is,
     * the others as a hint. For the many-core A/B. Read once; a constant the compiler folds. Not
     * for users; removed once decided.
     */
    private static final boolean NOTICE_ONLY_FENCED_FORKS =
            "fenced".equals(System.getProperty("stealpool.lab.forkNotice"));

    private void forkPiece(Runnable job) {
        boolean alone = deque.push(job);
        boolean fenced = alone || blockingDepth != 0;
        if (fenced) {
            // The push (a release store) before the reads below (Dekker). Inside a blocking
            // call every fork is fenced: the caller may wait on it without taking tasks.
            VarHandle.fullFence();
        }
        if (scheduler.isStopping()) {
            if (deque.tryUnpush(job)) {
                ForkedJob.abandonPiece(job);
                return;
            }
            // Not at the bottom any more: a sweep took it (shutdownNow's or a late submitter's,
            // which abandon fork/join pieces), or a thief (which runs it, so count it as
            // submitted: completed never exceeds submitted). Neither needs a notice from us.
            stats.incSubmitted();
            return;
        }
        stats.incSubmitted();
        // After the fence, the notice Sleep's proof relies on; without it, a hint that may
        // read ctl before the push is visible (Sleep, "Forks onto a deque that holds work"),
        // which the lab switch drops.
        if (fenced) {
            scheduler.sleep.notifyNewJob();
        } else if (!NOTICE_ONLY_FENCED_FORKS) {
            scheduler.sleep.hintNewJob();
        }
        if (alone) {
            scheduler.sleep.spread(); // a computation fans out (Sleep, "Spreading a computation")
        }
    }

    /**
     * Called on this worker's thread as it enters a blocking call: the outermost one asks the
     * scheduler for a spare thread to stand in for this one until {@link #endBlocking}.
     */
    public void beginBlocking() {
        publishForks();
        // The depth first: a ThreadFactory that itself calls blocking() on this thread while
        // the spare is created nests instead of recursing.
        if (blockingDepth++ == 0) {
            BlockingCallEvent event = FlightEventSupport.AVAILABLE
                    ? FlightEvents.blockingCallBegins() : null; // null unless recorded
            int spare;
            try {
                spare = scheduler.spares.beginBlocking();
            } catch (Throwable e) { // the lock failed (out of stack): nothing was counted
                blockingDepth--;
                throw e;
            }
            if (event != null) {
                SpareThreads sp = scheduler.spares;
                FlightEvents.blockingCallBegan(event, scheduler, spare, sp.activeSpares(), sp.blockedWorkers());
                blockingEvent = event;
            }
        }
    }

    /**
     * Before the current thread, if it is a worker (of any pool), waits without taking tasks (a
     * timed wait on a task or a future, a delayed task's result, another pool's termination or
     * quiescence, room in another pool's bound): see {@link #publishForks}.
     */
    public static void publishForksOfCurrent() {
        Worker w = current();
        if (w != null) {
            w.publishForks();
        }
    }

    /**
     * Before this worker's thread waits without taking tasks, with tasks in its deque (a
     * blocking call, a join past its depth bound, a timed wait): forks pushed onto a deque that
     * held work carried no fence and no notice that Sleep relies on, and the owner will not take
     * them while it waits; fence and announce them now, so a sleeper comes for them if none is
     * searching (Sleep, "Forks onto a deque that holds work").
     */
    private void publishForks() {
        if (!deque.isEmpty()) {
            VarHandle.fullFence();
            try {
                scheduler.sleep.notifyNewJob();
            } catch (Throwable wakeUpLost) {
                // Out of stack deep in a join: that wake-up is lost, not the wait (as scan's notice).
            }
        }
    }

    /** Called on this worker's thread as it leaves a blocking call (in a finally block). */
    public void endBlocking() {
        if (--blockingDepth == 0) {
            scheduler.spares.endBlocking(); // an atomic decrement
            BlockingCallEvent event = blockingEvent;
            if (event != null) {
                blockingEvent = null;
                FlightEvents.blockingCallEnded(event);
            }
        }
    }

    /**
     * Called on this worker's thread: takes {@code job} back if nobody stole it yet. The caller
     * runs it at once, so it counts as completed here.
     */
    public boolean tryUnfork(Runnable job) {
        if (deque.tryUnpush(job)) {
            stats.incCompleted();
            return true;
        }
        return false;
    }

    /**
     * As {@link #tryUnfork} for a task this worker submitted, which sits at the bottom of its
     * deque as itself or as its wrapper: timed (TaskTimer), decorated (DecoratedTask), or both.
     * Returns what it took, for the caller to run, or null.
     */
    Runnable tryUnforkSubmitted(Runnable task) {
        if (tryUnfork(task)) {
            return task;
        }
        Runnable bottom = deque.peekBottom();
        return bottom != null && TaskTimer.unwrap(bottom) == task && tryUnfork(bottom) ? bottom : null;
    }

    /**
     * Called on this worker's thread by the task it runs: returns once {@code latch} is set,
     * running other tasks meanwhile (its own forks first, then the injection queue, then
     * stolen ones), and sleeping in the pool's idle protocol only when there are none. A job
     * posted meanwhile wakes it like any idle worker; the latch's completer wakes it too.
     */
    public void awaitLatch(Latch latch) {
        awaitLatch(Latch.ALGORITHM, latch);
    }

    /** As {@link #awaitLatch(Latch)}, for a latch of any class, with its accessor {@code a}. */
    public void awaitLatch(LatchAlgorithm a, Object latch) {
        try {
            await(a, latch, false);
        } catch (InterruptedException impossible) {
            throw new AssertionError(impossible);
        }
    }

    /**
     * As {@link #awaitLatch}, but gives up with InterruptedException if the thread is
     * interrupted or the pool is stopping (shutdownNow), as a blocked {@code Future.get()} in a
     * fixed thread pool would.
     */
    public void awaitLatchInterruptibly(Latch latch) throws InterruptedException {
        await(Latch.ALGORITHM, latch, true);
    }

    /** As {@link #awaitLatchInterruptibly(Latch)}, for a latch of any class, with its accessor {@code a}. */
    public void awaitLatchInterruptibly(LatchAlgorithm a, Object latch) throws InterruptedException {
        await(a, latch, true);
    }

    private void await(LatchAlgorithm a, Object latch, boolean interruptible) throws InterruptedException {
        if (a.isSet(latch)) {
            return;
        }
        helpDepth++;
        try {
            helpUntilSet(a, latch, helpDepth <= MAX_HELP_DEPTH, interruptible);
        } finally {
            helpDepth--;
        }
    }

    private void helpUntilSet(LatchAlgorithm a, Object latch, boolean mayScan, boolean interruptible)
            throws InterruptedException {
        final Scheduler s = scheduler;
        long jec = 0;
        boolean registered = false;
        LatchAlgorithm.Waiter sleeper = null; // our node on the latch's stack, once registered
        boolean slept = false;
        try {
            for (int round = 0; !a.isSet(latch); round++) {
                if (interruptible && (Thread.interrupted() || s.isStopping())) {
                    throw new InterruptedException();
                }
                // The running task's own forks (above its floor) first, newest first in either
                // order; past the depth bound nothing older may be run on this stack (it waits
                // for other workers); below it, older tasks in the pool's order.
                Runnable t;
                if (deque.bottomIndex() > taskFloor) {
                    t = deque.pop();
                } else {
                    t = mayScan ? takeOwn() : null;
                }
                if (t == null && mayScan) {
                    t = scan();
                }
                if (t != null) {
                    try {
                        leaveSearch();
                    } catch (Throwable wakeUpLost) {
                        // t is only here: run it; an Error in the wake-up passed on (out of
                        // stack, deep in a join) costs that wake-up only, as scan's notice.
                    }
                    runNested(t);
                    stats.incCompleted();
                    round = -1;
                    continue;
                }
                if (!mayScan) {
                    publishForks(); // older tasks below the floor wait for thieves meanwhile
                    boolean wasRunning = stats.running(); // not when a retiring worker joins
                    stats.setRunning(false);
                    try {
                        a.parkUntilSet(latch, interruptible, s); // the awaited task runs elsewhere
                    } finally {
                        stats.setRunning(wasRunning);
                    }
                    return;
                }
                if (round < spinRounds) {
                    idleSpin();
                } else if (round < searchRounds) {
                    idleYield();
                } else if (round == searchRounds) {
                    leaveSearch();
                    if (!registered) {
                        registered = true;
                        sleeper = a.addSleepingWorker(latch, this);
                        if (sleeper == null) {
                            return; // set meanwhile
                        }
                    }
                    jec = s.sleep.announceSleepy();
                } else {
                    BooleanSupplier abort = interruptible
                            ? () -> a.isSet(latch) || s.isStopping() || Thread.currentThread().isInterrupted()
                            : () -> a.isSet(latch);
                    int woken;
                    boolean wasRunning = stats.running(); // not when a retiring worker joins
                    stats.setRunning(false);
                    try {
                        woken = s.sleep.sleep(index, jec, abort, interruptible);
                    } finally {
                        stats.setRunning(wasRunning);
                    }
                    assert woken != Sleep.HANDED_OFF : "a task handed to a worker asleep in a join";
                    if (woken != Sleep.BACKED_OUT) {
                        slept = true;
                        searching = woken == Sleep.WOKEN_TO_SEARCH;
                        round = -1;
                    } else {
                        round = searchRounds - 1;
                    }
                }
            }
        } finally {
            leaveSearch(); // woken to search but leaving for our latch: pass the search on
            if (sleeper != null) {
                a.removeWaiter(latch, sleeper); // gave up (interrupt, stop) or set: no node left behind
            }
        }
        if (slept && (!s.injection.isEmpty() || s.queuedTasks() > 0)) {
            // Woken by our latch's completer, we may have been the sleeper a poster counted on;
            // we leave without looking, so pass it on: it starts that job sooner (Sleep's
            // proof, second case, does not rely on it).
            s.sleep.notifyNewJob();
        }
    }

    /**
     * Runs a task on top of the waiting task's stack, keeping their interrupts apart as far as
     * one thread can. The nested task starts with a clear status; an interrupt it leaves
     * behind, or one aimed at it ({@code cancel(true)} of its future), is dropped when it
     * returns. The waiting task gets back the status it had, and an interrupt aimed at it
     * meanwhile: {@code shutdownNow} (the pool is stopping: again after every nested task, so
     * that it stops), or {@code cancel(true)} of the innermost submitted task on this stack
     * ({@link #runningFuture}), once: a cancel that came before the nested task started
     * delivered its interrupt before the status taken here (or the task handled it), so only
     * one that came later is delivered again. One thread cannot do the converse: an interrupt aimed at the waiting task
     * that lands while the nested one runs is seen by the nested one too. The caller counts the
     * task as completed (a task taken back with {@link #tryUnfork} already is).
     */
    void runNested(Runnable t) {
        final PoolFutureTask<?> outer = runningFuture;
        // Cancelled before: its interrupt came before the status taken here (or was handled).
        boolean outerCancelledBefore = outer != null && outer.cancelledAndSettled();
        boolean interrupted = Thread.interrupted();
        long floor = taskFloor;
        taskFloor = deque.bottomIndex();
        try {
            scheduler.runTask(t);
        } catch (StackOverflowError e) {
            // Out of stack before the task could even start (its own failures are caught
            // inside): fail it rather than lose it, so whoever joins it is released.
            if (ForkedJob.isForkJoinPiece(t)) {
                ForkedJob.abandonPiece(t);
            }
            throw e;
        } finally {
            taskFloor = floor;
            runningFuture = outer; // as PoolFutureTask.run left it, even after an error
            // Owed, decided before the status is cleared and once a cancel seen now has landed:
            // an interrupt still on its way would otherwise come on top of the one given here.
            boolean owed = outer != null && !outerCancelledBefore
                    && outer.cancelledAndSettled() && outer.interruptOwed();
            Thread.interrupted(); // the nested task's, or one aimed at it
            if (interrupted || owed || scheduler.isStopping()) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Called by {@link PoolFutureTask#run}: {@code f} runs on top; returns the one below. */
    PoolFutureTask<?> enterFuture(PoolFutureTask<?> f) {
        PoolFutureTask<?> outer = runningFuture;
        runningFuture = f;
        return outer;
    }

    /** Called by {@link PoolFutureTask#run} as it returns, with what {@link #enterFuture} gave. */
    void leaveFuture(PoolFutureTask<?> outer) {
        runningFuture = outer;
    }

    @Override
    public void run() {
        boolean foreignThread = !(Thread.currentThread() instanceof WorkerThread);
        if (foreignThread) {
            CURRENT.set(this);
        }
        boolean normalExit = false;
        try {
            runLoop();
            normalExit = true;
        } finally {
            // A thread that dies while searching (out of memory in the idle loop) must not
            // leave its search counted: posters would wait for it forever.
            stats.setBusy(false); // first: it cannot throw, and leaveSearch can
            busy = false;
            runningFuture = null;
            leaveSearch();
            if (foreignThread) {
                CURRENT.remove();
            }
            scheduler.life.workerExited(this, normalExit);
        }
    }

    /**
     * The worker's loop, entered once and left only when the worker exits. It does nothing but
     * call {@link #runNext}, and must stay that way: HotSpot compiles a loop that is entered once
     * only by on-stack replacement, after about 60,000 turns for C1 and some 40,000 more for C2
     * (tiered defaults), so a body written inline here runs in the interpreter on every task and
     * every wake-up for a long time. A method called once per turn is queued for C1 after about
     * 200-256 calls (Tier3InvocationThreshold) and for C2 after about 5,000. docs/lab/wake-ups.md
     * ("The worker's loop ran in the interpreter") gives what this costs.
     */
    private void runLoop() {
        while (runNext()) {
            // each turn runs one task
        }
    }

    /**
     * One turn of the worker's loop: finds a task, waiting for one if need be, and runs it.
     *
     * @return true when a task ran; false when the worker is to exit: the pool is stopping, or
     *     shut down with nothing left for this worker, or this spare worker retired
     */
    private boolean runNext() {
        final Scheduler s = scheduler;
        if (s.isStopping()) {
            // The deque is settled on the way out, under mainLock, after shutdownNow's sweep
            // (LifeCycle.workerExited; ShutdownSweep, "Nothing lost", rule 2).
            s.probe.workerExitingAfterStop(this);
            return false;
        }
        Runnable task = takeOwn();
        if (task == null && spare && s.spares.retire(this)) {
            return false; // no longer needed, its deque empty: see SpareThreads
        }
        if (task == null && (task = scan()) == null) {
            // Busy is written when the worker runs out of work or gets some, never per task.
            if (busy) {
                busy = false;
                stats.setBusy(false);
            }
            if ((task = awaitWork()) == null) {
                return false;
            }
        }
        if (!busy) {
            busy = true;
            stats.setBusy(true);
        }
        // An interrupt aimed at the previous task (cancel(true) racing its end) or at this
        // worker while it was idle must not reach this task; one from shutdownNow must.
        if (Thread.interrupted() && s.isStopping()) {
            Thread.currentThread().interrupt();
        }
        taskFloor = deque.bottomIndex();
        s.runTask(task);
        stats.incCompleted();
        return true;
    }

    /**
     * The next task of this worker's own deque: the newest (pop), or in FIFO mode the oldest,
     * taken from the top as a thief would ({@link ChaseLevDeque#poll}, which retries a race lost
     * to a thief). Either way a null means the deque was empty, which the idle protocol relies
     * on: it never looks at a worker's own deque again before the worker sleeps.
     */
    private Runnable takeOwn() {
        return scheduler.fifo ? deque.poll() : deque.pop();
    }

    /** Injection queue, then the other workers' deques. */
    private Runnable scan() {
        Runnable t = scheduler.injection.poll(index + ++injectionPolls, deque, scheduler.fifo);
        if (t != null) {
            try {
                if (!deque.isEmpty()) { // the rest of the batch landed in our (empty) deque
                    scheduler.announceLocalJobs();
                }
            } catch (Throwable noticeFailed) {
                // Out of stack in the notice: t is only here, so run it; the batch is in our
                // deque, which we run ourselves (the wake-up of a thief is what is lost).
            }
            return t;
        }
        return steal();
    }

    private Runnable steal() {
        ChaseLevDeque<Runnable>[] ds = scheduler.deques;
        int n = scheduler.slots(); // a volatile read: the slots below it are filled
        if (n == 1) {
            return null;
        }
        int i = nextVictim(n);
        int looks = 0;
        for (int k = 0; k < n; k++, i = (i + 1 == n) ? 0 : i + 1) {
            if (i == index) {
                continue;
            }
            ChaseLevDeque<Runnable> victim = ds[i];
            looks++;
            // A null from steal() with the deque still non-empty means another thread won the
            // race for that element: it made progress, so retrying here is lock-free.
            while (!victim.isEmpty()) {
                Runnable t = victim.steal();
                if (t != null) {
                    try {
                        stats.addStealAttempts(looks);
                        stats.incSteals();
                        if (!victim.isEmpty()) { // tasks left behind: spread (Sleep)
                            scheduler.sleep.spread();
                        }
                    } catch (Throwable lost) {
                        // t is only here: out of stack, only a count or a spare wake-up is lost.
                    }
                    return t;
                }
            }
        }
        stats.addStealAttempts(looks); // one write per sweep, not one per victim
        return null;
    }

    /** Xorshift32 (Marsaglia), bounded without division (Lemire). */
    private int nextVictim(int n) {
        int x = seed;
        x ^= x << 13;
        x ^= x >>> 17;
        x ^= x << 5;
        seed = x;
        return (int) (((x & 0xFFFF_FFFFL) * n) >>> 32);
    }

    /** The idle protocol; returns a task, or null when the worker must exit. */
    private Runnable awaitWork() {
        final Scheduler s = scheduler;
        searching = s.sleep.tryStartSearching();
        long jec = 0;
        boolean keptAliveInVain = false; // a spare's last sleep ran out of time
        // A worker refused as a searcher goes straight to the announcement, after one search.
        for (int round = searching ? 0 : searchRounds; ; round++) {
            if (s.isStopping()) {
                leaveSearch();
                return null;
            }
            Runnable t = scan();
            if (t != null) {
                try {
                    leaveSearch();
                } catch (Throwable wakeUpLost) {
                    // t is only here: an Error in the wake-up passed on costs that wake-up only.
                }
                return t;
            }
            // While the timer holds the pool no worker retires: skip tryRetire's lock then.
            if (s.isShutdown() && !s.delayHold && s.life.tryRetire(this)) {
                leaveSearch();
                return null;
            }
            if (round < spinRounds) {
                idleSpin();
            } else if (round < searchRounds) {
                idleYield();
            } else if (round == searchRounds) {
                leaveSearch();
                // A spare idle for its whole keep-alive, and searched once since (Sleep's
                // proof asks that of a sleeper that took itself off), leaves if the workers it
                // stood in for are back.
                if (keptAliveInVain && s.spares.retire(this)) {
                    return null;
                }
                jec = s.sleep.announceSleepy(); // the next round's scan is the one Sleep relies on
            } else {
                // A stripe this round's search found locked is covered by its holder's notice
                // once it unlocks (InjectionQueue, "Tasks left behind a lock").
                s.aboutToPark(this);
                int woken = spare ? s.sleep.sleepAtMost(index, jec, s.spares.keepAliveNanos)
                        : s.sleep.sleep(index, jec);
                if (woken == Sleep.HANDED_OFF) {
                    // Woken with a task in hand: ours to run, whatever the run state
                    // (ShutdownSweep, "Nothing lost", rule 1). Counted as a searcher by the waker.
                    Runnable handed = s.sleep.takeHandOff(index);
                    leaveHandOffSearch();
                    return handed;
                }
                keptAliveInVain = woken == Sleep.TIMED_OUT;
                // Woken for new work: search from the first round. Woken otherwise (shutdown),
                // backed out because a job was posted, or out of time: search once, then
                // announce again.
                searching = woken == Sleep.WOKEN_TO_SEARCH;
                round = searching ? -1 : searchRounds - 1;
            }
        }
    }

    /**
     * Stops searching, if this worker searches: it found work, gives up, or leaves the idle
     * loop. If it was the last searcher while others sleep, and it sees work queued anywhere, it
     * wakes the next searcher. Sleep's proof needs this look, made after the searcher count
     * dropped, for the jobs whose posters woke nobody because we searched: even a searcher that
     * gives up may find another job in its last search and never sleep. The count drops before
     * the flag clears, so nothing in between can leave the count raised.
     */
    private void leaveSearch() {
        if (searching) {
            Scheduler s = scheduler;
            boolean handOn = s.sleep.stopSearching();
            searching = false;
            if (handOn && s.hasQueuedWork()) {
                s.sleep.wakeSearcher();
            }
        }
    }

    /**
     * As {@link #leaveSearch}, for a worker woken with a task in hand, which its waker counted
     * as searching: it looks at the queues only if a post may have counted on it since its
     * hand-off (Sleep, "Handing a job to the worker woken for it").
     */
    private void leaveHandOffSearch() {
        Scheduler s = scheduler;
        if (s.sleep.stopSearchingAfterHandOff(index) && s.hasQueuedWork()) {
            s.sleep.wakeSearcher();
        }
    }

    private void idleSpin() {
        stats.incSpinRounds();
        spinPause();
    }

    private void idleYield() {
        stats.incYieldRounds();
        Thread.yield();
    }

    /** A short busy wait between two searches: {@link #SPINS_PER_ROUND} spin-wait hints. */
    private static void spinPause() {
        for (int i = 0; i < SPINS_PER_ROUND; i++) {
            Thread.onSpinWait();
        }
    }

    /**
     * Called on this worker's thread by the task it runs ({@code Task.helpQuiesce()}): runs
     * tasks as {@link #awaitLatch} does (the running task's own forks first, then this worker's
     * older tasks, then the injection queue, then stolen ones) until the pool looks quiescent
     * ({@link Quiescence#isQuiescent}). Unlike a join it steals past {@link #MAX_HELP_DEPTH}
     * too: quiescence may need every queued task, and nobody else may be left to run them (a
     * one-worker pool; another worker itself waiting past the bound). That cannot pile stolen
     * tasks without bound: each runs on top of this frame, and its own waits stop stealing
     * past the bound; only nested helpQuiesce calls add up. With nothing to run it counts
     * itself idle ({@link Quiescence#quietEnter}, so
     * that two callers see each other as idle), pauses ({@link Quiescence#pause}) and looks
     * again, instead of sleeping in {@link Sleep}, since quiescence wakes nobody; it uncounts
     * itself before it takes a task. Returns as soon as the pool is stopping: what is queued
     * then will not run. The task's interrupt status is kept, not acted on.
     */
    public void helpQuiesce() {
        helpQuiesce(-1L);
    }

    /**
     * As {@link #helpQuiesce()}, giving up once {@code nanos} have passed (checked between two
     * tasks: a task is never abandoned halfway), as JDK 19's {@code ForkJoinTask.helpQuiesce}
     * with a timeout does.
     *
     * @param nanos the longest wait, or a negative value for no limit
     * @return true if the pool looked quiescent; false if the time ran out or the pool is stopping
     */
    public boolean helpQuiesce(long nanos) {
        final Scheduler s = scheduler;
        final long deadline = nanos < 0 ? 0L : System.nanoTime() + nanos;
        boolean interrupted = false;
        boolean quiet = false;
        helpDepth++;
        try {
            for (int idle = 0; !s.isStopping(); ) {
                if (nanos >= 0 && System.nanoTime() - deadline >= 0) {
                    return false;
                }
                if (quiet) {
                    if (!s.hasQueuedWork()) { // a look that takes nothing: stay counted
                        if (s.quiescence.isQuiescent()) {
                            return true;
                        }
                        interrupted |= Quiescence.pause(idle);
                        idle = Quiescence.nextRound(idle);
                        continue;
                    }
                    s.quiescence.quietLeave(); // before taking a task (isQuiescent's second read)
                    quiet = false;
                }
                Runnable t;
                if (deque.bottomIndex() > taskFloor) {
                    t = deque.pop();
                } else {
                    t = takeOwn();
                }
                if (t == null) {
                    t = scan(); // at any depth: see above
                }
                if (t != null) {
                    runNested(t);
                    stats.incCompleted();
                    idle = 0;
                    continue;
                }
                s.quiescence.quietEnter();
                quiet = true;
                if (s.quiescence.isQuiescent()) {
                    return true;
                }
                interrupted |= Quiescence.pause(idle);
                idle = Quiescence.nextRound(idle);
            }
            return false; // stopping: what is queued will not run
        } finally {
            if (quiet) {
                s.quiescence.quietLeave();
            }
            helpDepth--;
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String toString() {
        return "Worker[" + index + ", queued=" + deque.size() + "]";
    }
}

/**
 * Padding in front of {@link Worker}'s fields, by inheritance as in ChaseLevDeque: the JVM lays
 * out a superclass's fields first, so no object that a collection copies in front of a worker
 * (another worker, whose thread writes its own fields on every task) shares a cache line with
 * them. The int fills the gap after the object header, where the JVM would otherwise put one of
 * the worker's own fields.
 */
abstract class WorkerPad {
    int p00;
    long p01, p02, p03, p04, p05, p06, p07, p08;
    long p09, p0a, p0b, p0c, p0d, p0e, p0f, p10;
}
