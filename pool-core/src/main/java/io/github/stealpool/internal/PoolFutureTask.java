package io.github.stealpool.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The future behind {@code submit}: a {@link FutureTask} (so cancel-with-interrupt and the rest
 * of its contract are the JDK's) whose untimed {@link #get()} works instead of blocking when a
 * pool worker calls it. A task that submits another and waits for it therefore cannot deadlock a
 * pool whose workers are all waiting: the waiter runs the awaited task itself, or other work.
 *
 * <p>The worker waits on a {@link Signal} created on demand and set by {@link #done()}. The
 * worker publishes the signal (CAS) and then re-reads {@code isDone()}; {@code done()} runs after
 * the state became final (a volatile write) and then reads the signal: one of them sees the
 * other.
 */
public final class PoolFutureTask<V> extends FutureTask<V> implements TaskWrapper {

    private static final VarHandle SIGNAL;

    static {
        try {
            SIGNAL = MethodHandles.lookup().findVarHandle(PoolFutureTask.class, "signal", Signal.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile Signal signal;
    /**
     * Set by {@code cancel(true)} before it cancels: the interrupt it sends is aimed at this
     * task. Read by {@link Worker#runNested} once the task is seen cancelled, which the cancel's
     * CAS makes visible after this write (volatile order).
     */
    private volatile boolean interruptRequested;
    /**
     * Set first thing in {@link #done()}: a cancel has finished, its interrupt (if any) delivered
     * ({@code FutureTask.cancel} interrupts the runner, then completes).
     */
    private volatile boolean completed;

    /**
     * The class of the Callable or Runnable given to {@code submit}, for the JFR events
     * ({@link TaskWrapper}): FutureTask keeps the task private. The class only, so that a done
     * future keeps nothing of the task alive (FutureTask drops the task once done).
     */
    private final Class<?> submittedClass;

    public PoolFutureTask(Callable<V> callable) {
        super(callable);
        this.submittedClass = TaskWrapper.classOf(callable);
    }

    public PoolFutureTask(Runnable runnable, V result) {
        super(runnable, result);
        this.submittedClass = TaskWrapper.classOf(runnable);
    }

    @Override
    public Class<?> taskClass() {
        return submittedClass;
    }

    /**
     * Counts the failure (on a worker) before the future completes with it; not when the future
     * was cancelled first (invokeAny's losers, interrupted by the cancel), whose failure goes
     * nowhere. Cancel sets the state before it interrupts, so the check sees it.
     */
    @Override
    protected void setException(Throwable t) {
        try {
            if (!isCancelled()) {
                Worker.taskFailed();
            }
        } finally { // even out of stack entering it: the future must complete
            super.setException(t);
        }
    }

    /**
     * As {@link FutureTask#cancel}; with {@code mayInterruptIfRunning}, records first that an
     * interrupt is meant for this task, so that it reaches the task even if the worker running it
     * is busy with a nested task when it lands ({@link Worker#runNested}).
     */
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        if (mayInterruptIfRunning && !isDone()) {
            interruptRequested = true;
        }
        return super.cancel(mayInterruptIfRunning);
    }

    /**
     * Runs the task with this worker knowing it as the innermost submitted task on its stack, so
     * that an interrupt aimed at it while the worker runs something nested reaches it. A task
     * run inside another submitted one (an {@code invokeAny} wrapper) is found all the same.
     */
    @Override
    public void run() {
        Worker w = Worker.current();
        if (w == null) {
            super.run();
            return;
        }
        PoolFutureTask<?> outer = w.enterFuture(this);
        try {
            super.run();
        } finally {
            w.leaveFuture(outer);
        }
    }

    /**
     * For a worker about to run a nested task on top of this one: whether this task is already
     * cancelled; if so, returns only once the cancel has delivered its interrupt (if any), so
     * that the interrupt is in the status the worker reads next or was seen by the task. The
     * wait is the few steps between the cancel's CAS and its end, as {@code FutureTask.run}
     * waits them out too.
     */
    boolean cancelledAndSettled() {
        if (!isCancelled()) {
            return false;
        }
        // Bounded: a canceller that died between its CAS and done() must not hang the worker;
        // then the cancel counts as not settled, which costs at most one extra interrupt.
        for (int i = 0; !completed; i++) {
            if (i == SETTLE_YIELDS) {
                return false;
            }
            Thread.yield();
        }
        return true;
    }

    /** Yields {@link #cancelledAndSettled} waits at most: far more than a live cancel needs. */
    private static final int SETTLE_YIELDS = 1 << 16;

    /** Whether this task was cancelled with an interrupt: its runner owes it one. */
    boolean interruptOwed() {
        return isCancelled() && interruptRequested;
    }

    @Override
    protected void done() {
        completed = true;
        Signal s = signal;
        if (s != null) {
            s.set();
        }
    }

    /**
     * As {@link FutureTask#get()}; on a pool worker it runs the task itself if it is still at
     * the bottom of the worker's deque, else other tasks while it waits.
     *
     * @throws InterruptedException also when the waiting worker's pool is stopped by shutdownNow
     */
    @Override
    public V get() throws InterruptedException, ExecutionException {
        if (!isDone()) {
            Worker w = Worker.current();
            if (w != null) {
                helpUntilDone(w);
            }
        }
        return super.get();
    }

    /**
     * As {@link FutureTask#get(long, TimeUnit)}; on a pool worker, which takes no task while it
     * waits, it first publishes the forks in its deque (Worker.publishForks), so thieves come
     * for them.
     */
    @Override
    public V get(long timeout, TimeUnit unit)
            throws InterruptedException, ExecutionException, TimeoutException {
        if (!isDone()) {
            Worker.publishForksOfCurrent();
        }
        return super.get(timeout, unit);
    }

    private void helpUntilDone(Worker w) throws InterruptedException {
        Runnable queued = w.tryUnforkSubmitted(this); // this, or its timed wrapper
        if (queued != null) {
            w.runNested(queued); // keeps a cancel(true) interrupt off the caller's own status
            return;
        }
        Signal s = signal;
        if (s == null) {
            Signal mine = new Signal();
            s = SIGNAL.compareAndSet(this, null, mine) ? mine : signal;
        }
        if (!isDone()) {
            w.awaitLatchInterruptibly(s);
        }
    }
}
