package io.github.stealpool.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.Callable;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.UnaryOperator;

/**
 * A delayed task and its future: {@code ScheduledThreadPoolExecutor}'s
 * {@code ScheduledFutureTask}, kept by a {@link DelayScheduler}. A {@link FutureTask}, so
 * running, cancelling and waiting are the JDK's: a cancelled or finished task drops its
 * callable ({@code FutureTask.finishCompletion}), and a cancel also asks the timer to take the
 * entry out of its heap, so nothing cancelled stays referenced.
 *
 * <p>Size, for the goal of ~100 bytes per pending task: {@code FutureTask}'s 32 bytes (header
 * and five fields), then {@link #timer}, {@link #heapIndex}, {@link #time} and {@link #seq}:
 * 56 bytes, 64 with the class of the task as scheduled (for the flight-recorder events, which
 * name it: the class, not the task, which a done future drops) and the inbox's link
 * {@link #inboxNext}. A periodic task's period is in its own subclass ({@link Periodic}, 80
 * bytes with its decorated form: periodic tasks are few), so a one-shot task carries none. The
 * callable adapter of a {@code Runnable} (24) and the heap's slot (4 bytes with compressed
 * oops, a little more while the array has room to grow) come on top: about 90 bytes per
 * pending one-shot task, as {@code ScheduledTest} measures.
 *
 * <p>Fields and their owners: {@link #time} is written by the submitter before the entry is
 * handed to the timer (the inbox's offer publishes it), and for a periodic task by the worker
 * that ran it, before it hands the entry back the same way; other threads read it only in
 * {@link #getDelay} and {@link #compareTo} (volatile, as in the JDK). {@link #heapIndex} is
 * written by the timer thread (or whoever takes over from a dead one, under {@code mainLock}),
 * and by a periodic task's runner as it hands the entry back
 * ({@link #NOT_TAKEN}, before the offer that publishes it); a cancel reads it, volatile, to
 * learn whether the timer has taken the entry in ({@link DelayScheduler}, "A cancel before the
 * timer takes the entry in").
 *
 * <p>This class is a one-shot task. Three subclasses: {@link Periodic}, a task run at a fixed
 * rate or with a fixed delay (decorated or not); {@link OnTimer}, an entry that the timer runs
 * itself when it is due instead of handing it to the workers (see {@link DelayScheduler},
 * "Entries run on the timer"); and {@link Decorated}, a one-shot entry of a pool with a task
 * decorator, which hands the workers its decorated form.
 */
public sealed class DelayedTask<V> extends FutureTask<V> implements RunnableScheduledFuture<V>, TaskWrapper
        permits DelayedTask.Periodic, DelayedTask.OnTimer, DelayedTask.Decorated {

    /** The timer that keeps this entry. */
    final DelayScheduler timer;
    /**
     * Submission order ({@code TimerInbox}): ties between equal deadlines go to the earlier
     * submission of one thread (FIFO per thread).
     */
    final long seq;
    /** The deadline, a {@link System#nanoTime()} value. */
    volatile long time;
    /** {@link #heapIndex} of an entry offered to the timer and not yet polled by it. */
    static final int NOT_TAKEN = -2;
    /** {@link #heapIndex} of an entry the timer has polled and that is not in its heap. */
    static final int OUT = -1;

    private static final VarHandle HEAP_INDEX;

    static {
        try {
            HEAP_INDEX = MethodHandles.lookup().findVarHandle(DelayedTask.class, "heapIndex", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * The entry's place in the timer's queue ({@link DelayWheel}, invariant 4: a slot of one of
     * its heaps, or a bucket and slot of its wheel), or {@link #NOT_TAKEN} while it waits in the inbox,
     * or {@link #OUT} once the timer has polled it and it is not in the heap (handed to the
     * workers, dropped, or between its poll and its place in the heap). Plain accesses but two:
     * the timer's write of {@code OUT} as it polls the entry, and a cancel's read.
     */
    int heapIndex = NOT_TAKEN;

    /**
     * The inbox node offered before this entry ({@code DelayScheduler}, "The inbox"): written
     * by the offering thread before the CAS that publishes it, cleared by the timer as it takes
     * the entry.
     */
    Object inboxNext;

    /**
     * The class of the Callable or Runnable given to {@code schedule}, for the JFR events
     * ({@link TaskWrapper}); the class only, so that a done or cancelled future keeps nothing of
     * the task alive.
     */
    private final Class<?> scheduledClass;

    DelayedTask(DelayScheduler timer, Callable<V> callable, long time, long seq) {
        super(callable);
        this.scheduledClass = TaskWrapper.classOf(callable);
        this.timer = timer;
        this.time = time;
        this.seq = seq;
    }

    DelayedTask(DelayScheduler timer, Runnable runnable, V result, long time, long seq) {
        super(runnable, result);
        this.scheduledClass = TaskWrapper.classOf(runnable);
        this.timer = timer;
        this.time = time;
        this.seq = seq;
    }

    /**
     * The timer, as it polls this entry and before it looks whether the entry is done: the
     * write half of the Dekker pair with {@link #heapIndexVolatile} after a cancel's CAS of the
     * state (volatile, so that one of the two sees the other).
     */
    void setHeapIndexVolatile(int i) {
        HEAP_INDEX.setVolatile(this, i);
    }

    /** A cancel, after its CAS of the state: whether the timer has polled this entry yet. */
    int heapIndexVolatile() {
        return (int) HEAP_INDEX.getVolatile(this);
    }

    @Override
    public Class<?> taskClass() {
        return scheduledClass;
    }

    @Override
    public long getDelay(TimeUnit unit) {
        return unit.convert(time - System.nanoTime(), TimeUnit.NANOSECONDS);
    }

    /** As {@code ScheduledFutureTask.compareTo}: by deadline, then by sequence number ({@link #seq}). */
    @Override
    public int compareTo(Delayed other) {
        if (other == this) {
            return 0;
        }
        if (other instanceof DelayedTask) {
            DelayedTask<?> x = (DelayedTask<?>) other;
            long diff = time - x.time;
            if (diff < 0) {
                return -1;
            } else if (diff > 0) {
                return 1;
            }
            return seq < x.seq ? -1 : 1;
        }
        long diff = getDelay(TimeUnit.NANOSECONDS) - other.getDelay(TimeUnit.NANOSECONDS);
        return diff < 0 ? -1 : diff > 0 ? 1 : 0;
    }

    /** Heap order, for the timer thread: the fields it compares it reads once each. */
    boolean before(DelayedTask<?> x) {
        long diff = time - x.time;
        return diff < 0 || diff == 0 && seq < x.seq;
    }

    /** What the timer hands to the workers when this task is due: the task itself. */
    Runnable entry() {
        return this;
    }

    /** False: a one-shot task ({@link Periodic} says true). */
    @Override
    public boolean isPeriodic() {
        return false;
    }

    /**
     * Counts the failure on a worker, as {@link PoolFutureTask#setException} does, unless the
     * task was cancelled first.
     */
    @Override
    protected void setException(Throwable t) {
        try {
            if (!isCancelled()) {
                Worker.taskFailed();
            }
        } finally {
            super.setException(t);
        }
    }

    /**
     * As {@link FutureTask#get()}; a pool worker, which takes no task while it waits, first
     * publishes the forks in its deque (Worker.publishForks), so thieves come for them.
     */
    @Override
    public V get() throws InterruptedException, ExecutionException {
        if (!isDone()) {
            Worker.publishForksOfCurrent();
        }
        return super.get();
    }

    /** As {@link #get()}, with a timeout. */
    @Override
    public V get(long timeout, TimeUnit unit)
            throws InterruptedException, ExecutionException, TimeoutException {
        if (!isDone()) {
            Worker.publishForksOfCurrent();
        }
        return super.get(timeout, unit);
    }

    /**
     * As {@link FutureTask#cancel}; a successful cancel also asks the timer to remove the
     * entry from its heap if the timer has taken it in, so that it is not kept until its
     * deadline (one still in the inbox the timer drops as it polls it).
     */
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        boolean cancelled = super.cancel(mayInterruptIfRunning);
        if (cancelled) {
            timer.cancelled(this);
        }
        return cancelled;
    }

    /**
     * A one-shot delayed task of a pool with a task decorator ({@code Builder.taskDecorator}):
     * decorated once, in the thread that scheduled it, as Spring's
     * {@code ThreadPoolTaskScheduler} does, and handed to the workers in that form
     * ({@link DecoratedTask}) when it is due. The decorator gets the task itself (this future)
     * to wrap. One reference more than an undecorated entry, and only in a pool that
     * decorates. A periodic task is decorated the same way ({@link Periodic}).
     */
    static final class Decorated<V> extends DelayedTask<V> {

        /**
         * The decorated queue entry; written once by the scheduling thread before the entry
         * is handed to the timer, whose inbox offer publishes it.
         */
        private Runnable entry;

        Decorated(DelayScheduler timer, Callable<V> callable, long time, long seq) {
            super(timer, callable, time, seq);
        }

        Decorated(DelayScheduler timer, Runnable runnable, V result, long time, long seq) {
            super(timer, runnable, result, time, seq);
        }

        /** Decorates this task; what the decorator throws reaches the scheduling thread. */
        Decorated<V> decorate(UnaryOperator<Runnable> decorator) {
            entry = DecoratedTask.entry(decorator, this);
            return this;
        }

        @Override
        Runnable entry() {
            return entry;
        }
    }

    /**
     * A periodic task ({@code scheduleAtFixedRate}, {@code scheduleWithFixedDelay}): it stops
     * at shutdown (cancelled, as {@code ScheduledThreadPoolExecutor} does by default), and
     * otherwise runs without completing, then goes back to the timer with its next deadline:
     * from the previous one at a fixed rate, from now with a fixed delay. One that throws
     * completes with the failure and is not rescheduled. In a pool with a task decorator it is
     * decorated once, as {@link Decorated} is, and runs every period inside that form.
     */
    static final class Periodic extends DelayedTask<Void> {

        /**
         * Positive: fixed rate, the period; negative: fixed delay, minus the delay (as in
         * {@code ScheduledFutureTask}). In nanoseconds, never 0.
         */
        final long period;
        /**
         * The decorated queue entry, or null in a pool without a decorator; written once by
         * the scheduling thread before the entry is handed to the timer, whose inbox offer
         * publishes it.
         */
        private Runnable decorated;

        Periodic(DelayScheduler timer, Runnable runnable, long time, long period, long seq) {
            super(timer, runnable, null, time, seq);
            if (period == 0L) {
                throw new IllegalArgumentException("period 0: a periodic task needs one");
            }
            this.period = period;
        }

        /** Decorates this task; what the decorator throws reaches the scheduling thread. */
        Periodic decorate(UnaryOperator<Runnable> decorator) {
            decorated = DecoratedTask.entry(decorator, this);
            return this;
        }

        @Override
        Runnable entry() {
            return decorated != null ? decorated : this;
        }

        @Override
        public boolean isPeriodic() {
            return true;
        }

        @Override
        public void run() {
            if (timer.pool.runState != Scheduler.RUNNING) {
                cancel(false);
            } else if (runAndReset()) {
                time = period > 0 ? time + period : DelayScheduler.deadline(-period);
                timer.rearm(this);
            }
        }
    }

    /**
     * An entry the timer thread runs itself when it is due, as JDK 25's {@code ForkJoinPool}
     * runs its timeout actions ("immediate" tasks): {@code submitWithTimeout}'s timeout without
     * an action, which cancels its task and interrupts the runner, a few steps and no user
     * code, so that the time limit holds while every worker is busy. Not counted as scheduled,
     * never periodic. What its action throws is logged (it runs where nobody waits for it).
     */
    static final class OnTimer extends DelayedTask<Void> {

        OnTimer(DelayScheduler timer, Runnable action, long time, long seq) {
            super(timer, action, null, time, seq);
        }

        @Override
        protected void setException(Throwable t) {
            try {
                DelayScheduler.LOG.error("{}: a timer action failed", timer.pool.name(), t);
            } catch (Throwable ignored) {
                // the failure stays recorded in the entry
            } finally {
                super.setException(t);
            }
        }
    }
}
