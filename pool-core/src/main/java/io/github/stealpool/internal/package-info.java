/**
 * The engine behind {@code io.github.stealpool.WorkStealingPool}: not an API; public only for
 * that package's sake.
 *
 * <p>The dependency goes one way (issue 36): the API package uses this one, and this one uses
 * only the API's interfaces and value types ({@code PoolStats}, {@code RangeChunk},
 * {@code TaskTimingListener}), never its classes: where it meets a {@code Task} it knows it as
 * a {@code RunnableFuture} with a {@link io.github.stealpool.internal.LatchAlgorithm} accessor,
 * and the pool as an opaque owner ({@link io.github.stealpool.internal.Scheduler#owner()}).
 * No API class extends or implements a type of this package. {@code PackageRulesTest} checks
 * both.
 *
 * <h2>Implementation overview</h2>
 * Each worker owns a deque that it pushes and pops at one end while other workers steal from the
 * other; threads outside the pool submit to a striped global queue. An idle worker searches
 * (spins, then yields), then parks in a protocol that loses no wake-up and wakes one worker per
 * burst of new work. A worker waiting for a result never just blocks while there is work: it runs
 * its own forks first, then whatever it can find. The classes' comments carry the rules and their
 * proofs; this overview says where each piece lives and how a task moves through them.
 *
 * <h3>The files, in groups</h3>
 * <ul>
 *   <li><b>Queues.</b> {@link io.github.stealpool.internal.ChaseLevDeque} (a worker's own deque:
 *       owner at the bottom, thieves at the top); {@link io.github.stealpool.internal.InjectionQueue}
 *       (outside submissions: striped lock-free queues, polled in batches that land in the
 *       poller's deque).</li>
 *   <li><b>Idle protocol.</b> {@link io.github.stealpool.internal.Sleep} (searchers, the sleepers'
 *       stack, the jobs-event counter, hand-offs to a woken worker: no lost wake-ups);
 *       {@link io.github.stealpool.internal.Quiescence} (the count of workers idle outside Sleep,
 *       the quiescence check, and waiting for it).</li>
 *   <li><b>Workers and the scheduler.</b> {@link io.github.stealpool.internal.Scheduler}
 *       (submission), built from a
 *       {@link io.github.stealpool.internal.SchedulerConfig}; {@code LifeCycle} (the run
 *       states, shutdown, the workers' ways out, termination, and the timer's hold on the pool);
 *       {@code ShutdownSweep} (the sweeps of shutdown and of late submitters; its comment proves
 *       that no accepted task is lost); {@code SubmissionBound} (the optional bound on queued
 *       outside submissions: a permit per task in the injection queue, and where each is given
 *       back);
 *       {@link io.github.stealpool.internal.Worker} (the loop a worker thread runs: its search
 *       order, the idle rounds, forks, helping joins); {@code WorkerThread} (the pool's own
 *       thread, which finds its Worker without a ThreadLocal); {@code SpareThreads} (stand-ins
 *       for workers blocked in {@code blocking} calls); {@code ShutdownProbe} (a test seam).</li>
 *   <li><b>Latches and tasks.</b> {@link io.github.stealpool.internal.LatchAlgorithm} (a set-once
 *       outcome that workers wait for by working and other threads by parking: the algorithm,
 *       its invariants and orderings, run on two fields that a holder class declares and
 *       reaches through its own accessor); {@link io.github.stealpool.internal.Latch} (the
 *       holder that the internal jobs extend), with {@link io.github.stealpool.internal.Signal};
 *       {@code Task} is the other holder, and registers its accessor in
 *       {@link io.github.stealpool.internal.TaskSecrets} for the sweeps that meet it as a queue
 *       entry; {@link io.github.stealpool.internal.Join}
 *       (a join of two halves); {@link io.github.stealpool.internal.ForkedJob} (a fork/join piece,
 *       which shutdown cancels rather than hands back);
 *       {@link io.github.stealpool.internal.PoolFutureTask} (the future behind {@code submit});
 *       {@link io.github.stealpool.internal.DecoratedTask} (a submitted task in the form the
 *       pool's task decorator gave it, queued in its place; the task itself stays reachable for
 *       {@code shutdownNow} and a worker waiting on its future);
 *       {@link io.github.stealpool.internal.Failures} (rethrowing a failure in another
 *       thread, and reporting one that nobody waits for: a task run by {@code execute}).</li>
 *   <li><b>Range loops.</b> {@link io.github.stealpool.internal.RangeLoop} (a loop balanced by
 *       work-stealing ranges), {@link io.github.stealpool.internal.RangeLoops} (its kinds), and
 *       {@link io.github.stealpool.internal.StealableRange} (a range its owner consumes from the
 *       low end while thieves split off the high end).</li>
 *   <li><b>Delayed tasks.</b> {@link io.github.stealpool.internal.DelayScheduler} (the timer
 *       thread, started by the first {@code schedule}, fed through a lock-free inbox; the
 *       wake-up protocol and the shutdown rules with their proof);
 *       {@link io.github.stealpool.internal.DelayWheel} (its queue, only it touches: a wheel
 *       of ticks for the next few milliseconds between two 4-ary heaps,
 *       {@link io.github.stealpool.internal.DelayHeap}); {@link io.github.stealpool.internal.DelayedTask} (a delayed task and its
 *       {@code ScheduledFuture}, a {@code FutureTask}; periodic ones a subclass).</li>
 *   <li><b>Timing and statistics.</b> {@link io.github.stealpool.internal.TaskTimer},
 *       {@link io.github.stealpool.internal.TaskSampler} and {@code TimedTask} (timing a sample
 *       of submitted tasks while a listener listens); {@code TimingListeners} (adding and
 *       removing listeners, which turns the timing on and off);
 *       {@link io.github.stealpool.internal.WorkerStats} (one worker's counters);
 *       {@code StatisticsAssembly} (the public {@code PoolStats}, built from them).</li>
 *   <li><b>Flight Recorder.</b> {@code FlightEvents} (fills and commits the JFR events, each
 *       only while a recording enables it; the task path's check folds away while JFR is off);
 *       {@code FlightEventSupport} (whether the events could be loaded: without
 *       {@code jdk.jfr} the pool runs without them);
 *       {@code TaskWrapper} (the pool's wrappers around a user's task, looked through for the
 *       events' task class); the event classes themselves in the subpackage
 *       {@code internal.jfr}, not exported either.</li>
 * </ul>
 *
 * <h3>A submit</h3>
 * {@code WorkStealingPool.execute} calls {@link io.github.stealpool.internal.Scheduler#execute},
 * which asks {@link io.github.stealpool.internal.Scheduler#currentWorker()} whether the caller is
 * one of the pool's workers. A worker's task goes to its own deque ({@code pushLocal}): a check of
 * the run state, the push, a full fence, the check again, and
 * {@link io.github.stealpool.internal.Sleep#notifyNewJob()}. Any other thread's task
 * ({@code pushExternal}) goes straight to a parked worker if nobody is searching
 * ({@link io.github.stealpool.internal.Sleep#tryHandOff}); otherwise, in a bounded pool, it
 * takes a permit ({@code SubmissionBound}; at the bound the saturation policy applies), and it
 * is offered to the
 * {@code InjectionQueue}, fenced, the run state checked again (a submitter that raced with
 * shutdown settles in {@code settleLate}, under the pool's lock, with {@code ShutdownSweep}'s
 * sweep), and announced with {@code notifyNewJob}, which wakes a sleeper only when no worker is
 * searching already.
 *
 * <h3>A fork</h3>
 * {@code Task.fork()} on a worker claims the task and calls
 * {@link io.github.stealpool.internal.Worker#forkTask} (a join's second half goes through
 * {@code Worker.fork(ForkedJob)}, the same path): the piece is pushed on the
 * worker's deque; onto an empty deque (or inside a blocking call) a full fence orders the push
 * before the read of the run state (after {@code shutdownNow} the worker takes the piece back
 * and cancels it) and {@code notifyNewJob} publishes it to the idle workers; onto a deque that
 * holds work there is no fence, and the notice is a hint (Sleep, "Forks onto a deque that
 * holds work"). No lock, and no allocation beyond the task itself. Off the
 * pool, {@code fork()} submits the task to the common pool instead.
 *
 * <h3>A join</h3>
 * {@link io.github.stealpool.internal.Join#join} forks the second half as a job (a
 * {@code Latch} that is also a {@code ForkedJob}), runs the first half, then takes the second
 * back with {@link io.github.stealpool.internal.Worker#tryUnfork} if nobody stole it, and runs it
 * too. If a thief took it, {@link io.github.stealpool.internal.Worker#awaitLatch} helps until the
 * latch is set: the task's own forks first, then older tasks, the injection queue and steals
 * (below a help-depth bound); with nothing to run it sleeps in {@code Sleep}, registered on the
 * latch so that its completer wakes it ({@link io.github.stealpool.internal.Sleep#wakeWorker});
 * past the bound it parks ({@code LatchAlgorithm.parkUntilSet}), counted idle in
 * {@code Quiescence}. {@code Task.join()} on a worker takes the same path ({@code tryUnfork},
 * then {@code Worker.awaitLatch(LatchAlgorithm, Object)} with the task's own accessor); off the
 * pool it parks on the task ({@code LatchAlgorithm.awaitUninterruptibly}). No allocation on
 * the fast path: the accessor is a constant, the latch is the task itself.
 *
 * <h3>A park</h3>
 * A worker's loop ({@code Worker.runNext}) takes its own tasks, then scans: the injection queue,
 * then the other deques from a random victim. With nothing found it enters the idle protocol
 * ({@code Worker.awaitWork}): it becomes a searcher
 * ({@link io.github.stealpool.internal.Sleep#tryStartSearching()}), searches through spin and
 * yield rounds, stops searching, takes a snapshot of the jobs-event counter
 * ({@link io.github.stealpool.internal.Sleep#announceSleepy()}), searches once more, and parks
 * with {@link io.github.stealpool.internal.Sleep#sleep(int, long)}, which returns at once if a
 * job was announced since the snapshot. It wakes when {@code notifyNewJob} picks it, when a
 * submitter hands it a task, or at shutdown; a spare thread parks for at most its keep-alive
 * ({@link io.github.stealpool.internal.Sleep#sleepAtMost}) and then may retire. After shutdown an
 * idle worker retires instead ({@code LifeCycle.tryRetire}) once every queue is empty.
 */
package io.github.stealpool.internal;
