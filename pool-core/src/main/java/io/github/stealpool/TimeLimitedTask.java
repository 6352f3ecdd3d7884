package io.github.stealpool;

import io.github.stealpool.internal.Failures;
import io.github.stealpool.internal.Scheduler;
import io.github.stealpool.internal.TaskWrapper;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/**
 * What {@link WorkStealingPool#submitWithTimeout} returns: a task calling a {@link Callable},
 * with a timer entry ({@link #timeout}) that calls {@link #timedOut} when the time is up, and
 * that the task removes as its call ends, or as its queued entry comes out if it was completed
 * before it ran ({@link #completedBeforeRun}): so the entry of a done task never holds the
 * pool's termination longer than its queued entry does. Without an action the entry runs on the
 * timer thread (a cancel and an interrupt); with one, on a worker.
 *
 * <p>Interrupting on timeout without hitting another task: {@link #runner} is null before the
 * call, the running thread during it, {@link #FINISHED} after. The call's end CASes it from its
 * thread to FINISHED; a timeout that cancels CASes it from that thread to {@link #INTERRUPTING}
 * and only then interrupts. So the interrupt lands only while the call runs: if the end's CAS
 * fails, the timeout is interrupting, and the end waits for it to finish ({@link #settled}),
 * then clears the interrupt, which was this task's, before its worker runs anything else. The
 * call re-checks {@link #isDone()} after publishing its thread: a timeout that cancelled before
 * it read the runner (and so interrupted nothing) is then seen, and the call never starts. If
 * the scheduler is stopping when the interrupt is cleared, it is set again: {@code shutdownNow}'s
 * interrupt may have come in the same window, and must not be swallowed.
 *
 * <p>The limit: the interrupt is aimed at the thread, not at the call. If the call joins
 * another task, its worker may run unrelated tasks on top of it while it waits; an interrupt
 * landing then hits whichever of them runs, and the call's end clears it afterwards (unless
 * stopping). {@link Task#cancel} never interrupts for this reason; here the caller asked for
 * it, and {@link WorkStealingPool#submitWithTimeout} says so.
 *
 * <p>In a pool with a task decorator ({@link WorkStealingPool.Builder#taskDecorator}) the
 * callable is a {@code DecoratedCall}, which runs the call inside
 * its decorated form: the task itself stays the queue entry (a {@code Task} is a fork/join
 * piece, which the pool must recognise), and the runner's bookkeeping above stays around the
 * decorated run, so the interrupt rules hold whatever the decorator does.
 */
final class TimeLimitedTask<T> extends Task<T> implements TaskWrapper {

    private static final Object INTERRUPTING = new Object();
    private static final Object FINISHED = new Object();
    private static final VarHandle RUNNER;

    static {
        try {
            RUNNER = MethodHandles.lookup().findVarHandle(TimeLimitedTask.class, "runner", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Callable<? extends T> callable;
    private final Consumer<? super Task<T>> timeoutAction; // null: cancel with interrupt
    private final Scheduler scheduler;
    /** The timer entry; set before the task is submitted, which publishes it. */
    Future<?> timeout;
    @SuppressWarnings("unused") // through RUNNER
    private volatile Object runner;
    /** Set by the timeout once its interrupt is delivered. */
    private volatile boolean settled;

    TimeLimitedTask(Callable<? extends T> callable, Consumer<? super Task<T>> timeoutAction, Scheduler scheduler) {
        this.callable = callable;
        this.timeoutAction = timeoutAction;
        this.scheduler = scheduler;
    }

    @Override
    protected T compute() {
        Thread self = Thread.currentThread();
        RUNNER.setVolatile(this, self);
        try {
            if (isDone()) {
                return null; // timed out (or completed) before the runner was published: dropped anyway
            }
            return callable.call();
        } catch (Exception e) {
            throw Failures.throwAsIs(e);
        } finally {
            if (!RUNNER.compareAndSet(this, self, FINISHED)) {
                while (!settled) {
                    Thread.onSpinWait(); // the few steps of the timeout's interrupt
                }
                Thread.interrupted(); // that interrupt was this task's
                if (scheduler.isStopping()) {
                    self.interrupt(); // shutdownNow's may have come meanwhile: not to be swallowed
                }
            }
            timeout.cancel(false); // done in time or not: the timer entry goes
        }
    }

    /** Completed before it ran (cancelled, completed, or out of time): the timer entry goes. */
    @Override
    void completedBeforeRun() {
        timeout.cancel(false);
    }

    /**
     * The timer's entry ran: the task is out of time. Without an action, on the timer thread:
     * a cancel and an interrupt, no user code.
     */
    void timedOut() {
        if (isDone()) {
            return;
        }
        if (timeoutAction != null) {
            timeoutAction.accept(this);
            return;
        }
        if (cancel(true)) {
            Object r = runner;
            if (r instanceof Thread && RUNNER.compareAndSet(this, r, INTERRUPTING)) {
                try {
                    ((Thread) r).interrupt();
                } finally {
                    settled = true;
                }
            }
        }
    }

    /** The class of the callable as submitted: the flight-recorder events name it, not this task. */
    @Override
    public Class<?> taskClass() {
        return TaskWrapper.classOf(callable);
    }

    @Override
    public String toString() {
        return super.toString() + "[callable " + callable + ", with a timeout]";
    }
}
