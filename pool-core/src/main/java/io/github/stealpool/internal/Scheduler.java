package io.github.stealpool.internal;

import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import io.github.stealpool.PoolStats;
import io.github.stealpool.TaskTimingListener;
import io.github.stealpool.internal.jfr.SubmissionRefusedEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine behind {@code WorkStealingPool}: the workers, the injection queue and the idle
 * protocol, and the submission paths into them ({@link LifeCycle} has the life cycle).
 *
 * <h2>Where a task goes</h2>
 * A task submitted by one of this pool's workers is pushed on that worker's deque; any other
 * thread's task goes to the {@link InjectionQueue}. Either way the submitter then calls
 * {@link Sleep#notifyNewJob()}, after a sequentially consistent publication (the queue's CAS, or
 * a full fence after the deque's release store), as the sleep protocol requires. (A worker's
 * fork, which does not come through here, is fenced only onto an empty deque or inside a
 * blocking call: Sleep, "Forks onto a deque that holds work".) One exception:
 * a task from outside that finds nobody searching and an idle worker parked is handed to that
 * worker as it is woken ({@link Sleep#tryHandOff}), and never queued.
 *
 * <h2>Life cycle</h2>
 * {@link LifeCycle} holds the run states and their rules, shutdown, the workers' ways out,
 * termination, and the timer's hold on the pool; the fields it changes stay here, where the
 * submit path and the worker loop read them with no indirection.
 *
 * <h2>Nothing lost</h2>
 * Every accepted task runs, or is returned by {@link #shutdownNow()}, exactly once, even when
 * its submission races with shutdown: {@link ShutdownSweep} holds the rules and the proof, with
 * the sweeps that take tasks without running them. The submitters' side is here: each checks
 * the run state before it publishes and, after a full fence, again after; one that sees the
 * pool leave RUNNING settles under {@code mainLock} ({@link #settleLate}). The workers' ways
 * out keep the same rules: see {@link LifeCycle}.
 *
 * <h2>Blocking calls</h2>
 * Workers inside {@code WorkStealingPool.blocking} calls are stood in for by spare threads, in
 * slots past {@code parallelism}: see {@link SpareThreads}, which holds the rules and their
 * proof, and which changes the life-cycle fields below together with its own, under
 * {@code mainLock}.
 */
public final class Scheduler {

    private static final Logger LOG = LoggerFactory.getLogger(Scheduler.class);

    static final int RUNNING = 0;
    static final int SHUTDOWN = 1;
    static final int STOP = 2;
    static final int TERMINATED = 3;

    /** The configured number of workers: the slots below it, each with a thread from start. */
    final int parallelism;
    /**
     * Every worker slot: {@link #parallelism} workers, then room for {@code maxSpares} spare
     * threads that stand in for workers blocked in {@code WorkStealingPool.blocking}. Spare
     * slots are created on first use, under mainLock, and reused; {@link #slots} counts the
     * created ones, always a prefix. Readers without the lock read {@code slots} (volatile)
     * first: an element written before the count was raised is then visible.
     */
    final Worker[] workers;
    /**
     * The workers' deques, in worker order, filled like {@link #workers}. Thieves read this
     * array, never the Worker objects, whose fields their owners write on every task (no false
     * sharing on the steal path).
     */
    final ChaseLevDeque<Runnable>[] deques;
    /** Created slots, a prefix of {@link #workers}; raised under mainLock, never lowered. */
    private volatile int slots;
    final InjectionQueue injection;
    /**
     * The bound on queued outside submissions ({@code Builder.maxQueuedSubmissions}), or null
     * for an unbounded pool, whose submit path then pays this one null check.
     */
    final SubmissionBound bound;
    /** Workers take their own tasks oldest first: see {@link SchedulerConfig#fifo}. */
    final boolean fifo;
    final Sleep sleep;

    private final String name;
    private final ThreadFactory threadFactory; // null: WorkerThreads named after the pool
    private final boolean daemon;
    private final Thread.UncaughtExceptionHandler failureHandler; // null: the thread's own

    /** Read, and under mainLock written, by {@link LifeCycle} and {@link SpareThreads} too. */
    volatile int runState;
    /**
     * Null while no {@link TaskTimingListener} listens (then a submission costs this one
     * volatile read more); else the listeners and samplers (TaskTimer). Replaced only by
     * {@link #timing}, under its lock.
     */
    volatile TaskTimer taskTimer;
    /** Adds and removes the timing listeners; reached only when a listener comes or goes. */
    private final TimingListeners timing = new TimingListeners(this);

    /**
     * The timer of the delayed tasks, started by the first one ({@link #delays()}); null until
     * then. See {@link DelayScheduler}, which holds its shutdown rules and their proof.
     */
    volatile DelayScheduler delays; // read by StatisticsAssembly
    /**
     * True from the timer's start (under mainLock, while RUNNING) until it lets go after
     * shutdown: while it holds, no worker retires, idle workers sleep instead of leaving, and
     * the pool does not terminate (DelayScheduler, rule 2). Written under mainLock, by
     * {@link LifeCycle}.
     */
    volatile boolean delayHold;
    /** Test seam ({@link ShutdownProbe}); set only before {@link #start()}. */
    ShutdownProbe probe = ShutdownProbe.NONE;

    final ReentrantLock mainLock = new ReentrantLock();
    /**
     * Shutdown, the workers' ways out, termination, and the timer's hold. Reached through this
     * final field only off a task's path; made after {@link #mainLock}, whose condition it owns.
     */
    final LifeCycle life = new LifeCycle(this);
    /**
     * Written under mainLock (by {@link LifeCycle} and {@link SpareThreads} too); volatile so
     * statistics can read it without the lock.
     */
    volatile int liveWorkers;
    /**
     * Spare threads for workers in blocking calls. Its own class, reached through this final
     * field only off a task's path: blocking calls, a spare's retirement, shutdown.
     */
    final SpareThreads spares;
    /**
     * The count of workers idle outside Sleep, and the quiescence check. Reached through this
     * final field only by helpQuiesce, a join parked past the help-depth bound, and quiescence
     * checks: none on a task's path.
     */
    final Quiescence quiescence = new Quiescence(this);
    final int spinRounds;
    final int yieldRounds;
    /**
     * The statistics and their counts kept here (refusals, offers that were no submissions).
     * Reached through this final field only off the accepting path: a refusal, a late
     * submitter's settling, a dead worker's hand-on, and statistics readers.
     */
    final StatisticsAssembly statistics;
    /**
     * The sweeps that take tasks without running them, and the proof that nothing is lost.
     * Reached through this final field only by shutdownNow ({@link LifeCycle}) and a submitter
     * that raced with it.
     */
    final ShutdownSweep sweep = new ShutdownSweep(this);

    /** Builds the workers and queues; {@link #start()} starts the threads. */
    public Scheduler(SchedulerConfig config) {
        // The flight-recorder events are loaded now, on the thread building the pool, or found
        // missing and logged once; the pool runs without them then (FlightEventSupport).
        FlightEventSupport.decide();
        int parallelism = config.parallelism();
        int maxSpares = config.maxSpares();
        this.spares = new SpareThreads(this, maxSpares, config.spareKeepAliveNanos());
        int spinRounds = config.spinRounds();
        int yieldRounds = config.yieldRounds();
        this.parallelism = parallelism;
        this.spinRounds = spinRounds;
        this.yieldRounds = yieldRounds;
        this.fifo = config.fifo();
        this.name = config.name();
        this.threadFactory = config.threadFactory();
        this.daemon = config.daemon();
        this.failureHandler = config.failureHandler();
        this.statistics = new StatisticsAssembly(this);
        int total = parallelism + maxSpares;
        // After shutdown an idle worker retires rather than sleeps, unless it is the last one
        // free to run what blocked workers fork (SpareThreads, "After shutdown"): then it sleeps.
        // The spares are reached only once the pool is shut down, so Sleep's path while it runs
        // reads the run state alone, as before.
        this.sleep = new Sleep(parallelism, total,
                () -> runState >= STOP
                        || runState >= SHUTDOWN && !delayHold && spares.leavingKeepsAFreeThread());
        this.bound = config.maxQueuedSubmissions() == 0 ? null
                : new SubmissionBound(config.maxQueuedSubmissions(), config.saturationPolicy());
        // Two stripes per worker: concurrent submitters seldom share one (InjectionQueue).
        this.injection = new InjectionQueue(2 * parallelism, sleep::notifyNewJob, bound);
        this.workers = new Worker[total];
        @SuppressWarnings({"unchecked", "rawtypes"}) // no generic array creation in Java
        ChaseLevDeque<Runnable>[] ds = new ChaseLevDeque[total];
        for (int i = 0; i < parallelism; i++) {
            workers[i] = new Worker(this, i, spinRounds, yieldRounds, false);
            ds[i] = workers[i].deque;
        }
        this.deques = ds;
        this.slots = parallelism;
    }

    /** Number of created worker slots: read it before reading {@link #workers} or {@link #deques}. */
    int slots() {
        return slots;
    }

    /** Under mainLock: counts a new spare slot, stored before (a volatile write). */
    void publishSlots(int n) {
        slots = n;
    }

    // ------------------------------------------------------------------ start

    /**
     * Creates and starts every worker thread. If a thread cannot be created, none is started;
     * if one cannot be started, those already running are stopped. Either way the exception
     * propagates and the scheduler is left terminated or stopping.
     */
    public void start() {
        int n = parallelism;
        Thread[] threads = new Thread[n];
        try {
            for (int i = 0; i < n; i++) {
                threads[i] = newThread(workers[i]);
            }
        } catch (RuntimeException | Error e) {
            runState = TERMINATED; // nothing was started
            life.fireTermination();
            throw e;
        }
        mainLock.lock();
        try {
            liveWorkers = n;
            for (int i = 0; i < n; i++) {
                workers[i].thread = threads[i];
                try {
                    threads[i].start();
                } catch (Throwable e) {
                    liveWorkers -= n - i;
                    runState = STOP;
                    if (liveWorkers == 0) {
                        life.terminate();
                    }
                    sleep.wakeAll();
                    if (e instanceof IllegalThreadStateException) {
                        throw new IllegalStateException(
                                "threadFactory returned a thread that was already started", e);
                    }
                    throw e;
                }
            }
        } finally {
            mainLock.unlock();
            life.fireTermination();
        }
    }

    Thread newThread(Worker w) {
        if (threadFactory == null) {
            WorkerThread t = new WorkerThread(w, name + "-worker-" + w.index, daemon);
            t.setPriority(Thread.NORM_PRIORITY);
            return t;
        }
        Thread t;
        try {
            t = threadFactory.newThread(w);
        } catch (RuntimeException e) {
            throw new IllegalStateException("threadFactory threw while creating worker " + w.index, e);
        }
        if (t == null) {
            throw new IllegalStateException("threadFactory returned null for worker " + w.index);
        }
        return t;
    }

    // ------------------------------------------------------------------ submit

    /** Starts timing a sample of submitted tasks for {@code listener} (see TaskTimingListener). */
    public void addTaskTimingListener(TaskTimingListener listener) {
        timing.add(listener);
    }

    /** Stops telling {@code listener}; true if it was listening. Timing stops with the last one. */
    public boolean removeTaskTimingListener(TaskTimingListener listener) {
        return timing.remove(listener);
    }

    /** Worker {@code w}, idle, is about to park: see {@link TaskTimer#aboutToPark}. */
    void aboutToPark(Worker w) {
        TaskTimer t = taskTimer;
        if (t != null) {
            t.aboutToPark(w.submitSampler);
        }
    }

    /** The calling thread's worker if it is one of this scheduler's, else null. */
    public Worker currentWorker() {
        Thread t = Thread.currentThread();
        Worker w;
        if (t instanceof WorkerThread) {
            w = ((WorkerThread) t).worker;
        } else if (threadFactory != null) {
            w = Worker.CURRENT.get();
        } else {
            return null;
        }
        return w != null && w.scheduler == this ? w : null;
    }

    /** Accepts {@code task} (not null) for execution, or throws RejectedExecutionException. */
    public void execute(Runnable task) {
        Worker w = currentWorker();
        if (w != null) {
            pushLocal(w, task);
        } else {
            pushExternal(task);
        }
    }

    private void pushLocal(Worker w, Runnable submitted) {
        if (runState != RUNNING) {
            throw rejected(submitted);
        }
        TaskTimer timer = taskTimer;
        Runnable task = timer == null ? submitted : timer.forWorker(submitted, w.submitSampler);
        boolean alone;
        try {
            alone = w.deque.push(task);
        } catch (IllegalStateException full) {
            statistics.rejectedSubmissions.increment();
            if (FlightEventSupport.AVAILABLE) {
                FlightEvents.refused(this, submitted, SubmissionRefusedEvent.DEQUE_FULL);
            }
            throw new RejectedExecutionException(name + ": " + full.getMessage(), full);
        }
        VarHandle.fullFence(); // order the deque's release store before the reads below (Sleep)
        if (runState != RUNNING) {
            settleLate(task, false);
        }
        w.stats.incSubmitted();
        sleep.notifyNewJob();
        if (alone) {
            sleep.spread(); // as a fork's (Sleep, "Spreading a computation")
        }
    }

    /**
     * A worker moved queued tasks into its own deque. While it held them (polled from the
     * injection queue, not yet pushed) they were visible nowhere, so a worker could fall asleep
     * in between: announce them like a fresh push. One notice covers the batch: it wakes one
     * searcher, and searchers that find work wake the next while work is left (Sleep).
     */
    void announceLocalJobs() {
        VarHandle.fullFence();
        sleep.notifyNewJob();
    }

    /**
     * Whether any task is queued: the injection queue or any deque, each read once (volatile
     * reads). A searcher that stops calls this after its searcher count dropped (Sleep's proof).
     */
    boolean hasQueuedWork() {
        if (!injection.isEmpty()) {
            return true;
        }
        for (int i = 0, n = slots; i < n; i++) {
            if (!deques[i].isEmpty()) {
                return true;
            }
        }
        return false;
    }

    private void pushExternal(Runnable task) {
        if (runState != RUNNING) {
            throw rejected(task);
        }
        TaskTimer timer = taskTimer;
        Runnable queued = timer == null ? task : injection.forTiming(task, timer);
        // With nobody searching and an idle worker asleep, the task goes straight to the worker
        // woken for it, which runs it whatever the run state (ShutdownSweep, "Nothing lost": a
        // hand-off moves it into that worker's hands; Sleep, "Handing a job to the worker woken
        // for it").
        if (sleep.tryHandOff(queued)) {
            return;
        }
        SubmissionBound b = bound; // null unless bounded: the unbounded path's only extra branch
        if (b != null && !b.tryAcquire() && !b.atBound(this, task)) {
            return; // the caller ran it
        }
        try {
            injection.offer(queued); // a CAS: sequentially consistent
        } catch (Throwable e) {
            if (b != null) {
                b.release(); // not queued
            }
            throw e;
        }
        // The CAS may be the odd one of a chunk link, whose release stores follow it: order them
        // too before the re-check, so that a sweep that gives up on a link sees STOP here.
        VarHandle.fullFence();
        if (runState != RUNNING) {
            settleLate(queued, true);
        }
        sleep.notifyNewJob();
    }

    /**
     * The timer hands a due delayed task to the workers: as a submission from outside, but
     * accepted after {@code shutdown} too (refused only from STOP on), since the timer holds
     * the pool while it has tasks to hand over (DelayScheduler, rule 2). Never refused by the
     * submission bound, since the timer must not wait: its permit is taken by force, as a
     * requeued task's ({@link SubmissionBound}).
     *
     * <p>The first half of a post: hands {@code task} to a sleeper if {@code mayHandOff} and
     * all sleep (then it returns null, and nothing more is owed), or queues it and returns what
     * it queued. For what it queued the caller owes {@link #leftRunningAfterQueuing} and a
     * notice: a batch of due tasks shares one fence and one notice (DelayScheduler, "Handing
     * over in batches").
     *
     * @throws RejectedExecutionException from STOP on
     */
    Runnable queueDelayed(Runnable task, boolean mayHandOff) {
        if (runState >= STOP) {
            throw rejected(task);
        }
        TaskTimer timer = taskTimer;
        Runnable queued = timer == null ? task : injection.forTiming(task, timer);
        if (mayHandOff && sleep.tryHandOff(queued)) {
            return null;
        }
        injection.requeue(queued); // never refused by the bound: a permit taken by force
        return queued;
    }

    /**
     * "Handing over ahead" (DelayScheduler, lab switch {@code stealpool.lab.timerHandAheadNanos}):
     * hands a delayed task that falls due at {@code time} to a sleeping worker now, as
     * {@link #queueDelayed} hands one to a sleeper, wrapped so that the worker spins until
     * {@code time} before it runs it; false, with nothing published, if no worker sleeps.
     *
     * @throws RejectedExecutionException from STOP on
     */
    boolean handOffAhead(Runnable task, long time) {
        if (runState >= STOP) {
            throw rejected(task);
        }
        TaskTimer timer = taskTimer;
        Runnable job = timer == null ? task : injection.forTiming(task, timer);
        return sleep.tryHandOff(new RunWhenDue(job, time));
    }

    /**
     * The rest of the timer's post, after {@link #queueDelayed} queued a batch, as
     * {@link #pushExternal}'s for one task: the queuing before the reads below (a full fence),
     * then whether the pool left RUNNING meanwhile. If it did, the caller settles each task it
     * queued ({@link #settleLate}: accepted under SHUTDOWN, refused from STOP on if still
     * queued); then it gives one notice ({@code sleep.notifyNewJob()}), which Sleep's proof
     * lets stand for every task queued before this fence.
     */
    boolean leftRunningAfterQueuing() {
        VarHandle.fullFence();
        return runState != RUNNING;
    }

    /** The timer, started on first use (under mainLock, once, and only while RUNNING). */
    public DelayScheduler delays() {
        DelayScheduler d = delays;
        return d != null ? d : life.startDelays();
    }

    /** Builder's {@code cancelDelayedTasksOnShutdown}; called once, before {@link #start()}. */
    public void setCancelDelayedTasksOnShutdown(boolean cancel) {
        life.setCancelDelayedTasksOnShutdown(cancel);
    }

    /** Reports a failure of a task nobody waits for, as {@code execute}'s tasks are. */
    public void reportFailure(Runnable task, Throwable failure) {
        Failures.reportUncaught(LOG, name, failureHandler, task, failure);
    }

    /**
     * A submitter saw the pool leave RUNNING after publishing {@code task}: accepts it, or
     * rejects it if it is still queued ({@link ShutdownSweep#settleLate}). Package-private for
     * ShutdownRaceTest.
     */
    void settleLate(Runnable task, boolean external) {
        sweep.settleLate(task, external);
    }

    /** Counts a refused submission and makes its exception; for the sweep too. */
    RejectedExecutionException rejected() {
        return rejected(null);
    }

    /** As {@link #rejected()}, for a submission of {@code task} (named in its SubmissionRefused event). */
    RejectedExecutionException rejected(Object task) {
        statistics.rejectedSubmissions.increment();
        if (FlightEventSupport.AVAILABLE) {
            FlightEvents.refused(this, task, SubmissionRefusedEvent.SHUT_DOWN);
        }
        return new RejectedExecutionException(name + " is shut down; task rejected");
    }

    // ------------------------------------------------------------------ workers' side

    public boolean isShutdown() {
        return runState >= SHUTDOWN;
    }

    /** Worker threads alive, spares included. */
    int liveWorkers() {
        return liveWorkers;
    }

    public boolean isStopping() {
        return runState >= STOP;
    }

    public boolean isTerminated() {
        return runState == TERMINATED;
    }

    void runTask(Runnable task) {
        // Nothing more than folded constants until JFR instruments the event (FlightEvents), or
        // where the events could not be loaded (FlightEventSupport).
        if (FlightEventSupport.AVAILABLE && FlightEvents.TASK_RUN.isEnabled()) {
            FlightEvents.runRecorded(this, task);
            return;
        }
        // runUnrecorded's body, repeated: the hot path keeps its depth of inlined calls.
        try {
            task.run();
        } catch (Throwable ex) {
            try {
                Worker.taskFailed();
            } finally { // even out of stack entering it: the failure must still be reported
                Failures.reportUncaught(LOG, name, failureHandler, task, ex); // off the hot path
            }
        }
    }

    /** As {@link #runTask}, without the TaskRun event: {@link FlightEvents#runRecorded} times it. */
    void runUnrecorded(Runnable task) {
        try {
            task.run();
        } catch (Throwable ex) {
            try {
                Worker.taskFailed();
            } finally { // even out of stack entering it: the failure must still be reported
                Failures.reportUncaught(LOG, name, failureHandler, task, ex); // off the hot path
            }
        }
    }

    // ------------------------------------------------------------------ life cycle: see LifeCycle

    public void shutdown() {
        life.shutdown();
    }

    public List<Runnable> shutdownNow() {
        return life.shutdownNow();
    }

    /** See {@link LifeCycle#awaitTermination}. */
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return life.awaitTermination(timeout, unit);
    }

    /** See {@link LifeCycle#terminationFuture()}. */
    public CompletableFuture<Void> terminationFuture() {
        return life.terminationFuture();
    }

    // ------------------------------------------------------------------ introspection

    public int parallelism() {
        return parallelism;
    }

    /** Approximate: the injection queue plus every deque, read without a lock. */
    public long queuedTasks() {
        long q = injection.size();
        for (int i = 0, n = slots; i < n; i++) {
            q += deques[i].size();
        }
        return q;
    }

    public int sleepingWorkers() {
        return sleep.sleepingWorkers();
    }

    /** See {@link StatisticsAssembly#idleRounds()}. */
    public long[] idleRounds() {
        return statistics.idleRounds();
    }

    /** See {@link StatisticsAssembly#snapshot()}. */
    public PoolStats statistics() {
        return statistics.snapshot();
    }

    public String runStateName() {
        switch (runState) {
            case RUNNING: return "Running";
            case SHUTDOWN: return "Shutting down";
            case STOP: return "Stopping";
            default: return "Terminated";
        }
    }

    public String name() {
        return name;
    }

    // ------------------------------------------------------------------ the pool, quiescence

    /**
     * The public pool this scheduler runs, for {@code Task.getPool()}, as an opaque handle: this
     * package does not depend on the API's classes, so the pool keeps itself here as an Object
     * and {@code Task.getPool()} casts it back. Null for a scheduler built without one (tests).
     * Written once, before {@link #start()}: {@code Thread.start} publishes it to the worker
     * threads, the only ones that read it.
     */
    private Object owner;

    /** Sets {@link #owner()}; called once, before {@link #start()}. */
    public void setOwner(Object owner) {
        this.owner = owner;
    }

    /** The pool this scheduler runs, or null: see {@link #setOwner}. */
    public Object owner() {
        return owner;
    }

    /**
     * Whether the pool looks quiescent: see {@link Quiescence#isQuiescent()}, which holds the
     * argument.
     */
    public boolean isQuiescent() {
        return quiescence.isQuiescent();
    }
}
