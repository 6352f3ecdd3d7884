package io.github.stealpool.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

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
public final class PoolFutureTask<V> extends FutureTask<V> {

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
     * Set by {@code cancel(true)} before it interrupts the runner: tells {@link Worker#runNested}
     * that an interrupt arriving while the worker ran a nested task on top of this one was aimed
     * at this one. Volatile: the worker reads it after the nested task returns, and a canceller
     * whose interrupt landed then wrote it before (program order, then the interrupt's
     * synchronizes-with; or the volatile order if the worker reads it first).
     */
    private volatile boolean interruptRequested;

    public PoolFutureTask(Callable<V> callable) {
        super(callable);
    }

    public PoolFutureTask(Runnable runnable, V result) {
        super(runnable, result);
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
     * Whether {@code task} (a submitted task, or its timed wrapper) was cancelled with an
     * interrupt: its runner owes it one.
     */
    static boolean interruptRequested(Runnable task) {
        Runnable r = task instanceof TimedTask ? ((TimedTask) task).task : task;
        return r instanceof PoolFutureTask && ((PoolFutureTask<?>) r).interruptRequested;
    }

    @Override
    protected void done() {
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
