package io.github.stealpool;

import io.github.stealpool.internal.Failures;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/**
 * What {@link WorkStealingPool#submitWithTimeout} returns: a task calling a {@link Callable},
 * with a timer entry ({@link #timeout}) that calls {@link #timedOut} when the time is up, and
 * that the task removes as it completes by running.
 *
 * <p>Interrupting on timeout without hitting another task: {@link #runner} is null before the
 * call, the running thread during it, {@link #FINISHED} after. The call's end CASes it from its
 * thread to FINISHED; a timeout that cancels CASes it from that thread to {@link #INTERRUPTING}
 * and only then interrupts. So the interrupt lands only while the call runs: if the end's CAS
 * fails, the timeout is interrupting, and the end waits for it to finish ({@link #settled}),
 * then clears the interrupt, which was this task's, before its worker runs anything else.
 */
final class TimeLimitedTask<T> extends Task<T> {

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
    /** The timer entry; set before the task is submitted, which publishes it. */
    Future<?> timeout;
    @SuppressWarnings("unused") // through RUNNER
    private volatile Object runner;
    /** Set by the timeout once its interrupt is delivered. */
    private volatile boolean settled;

    TimeLimitedTask(Callable<? extends T> callable, Consumer<? super Task<T>> timeoutAction) {
        this.callable = callable;
        this.timeoutAction = timeoutAction;
    }

    @Override
    protected T compute() {
        Thread self = Thread.currentThread();
        RUNNER.setVolatile(this, self);
        try {
            return callable.call();
        } catch (Exception e) {
            throw Failures.throwAsIs(e);
        } finally {
            if (!RUNNER.compareAndSet(this, self, FINISHED)) {
                while (!settled) {
                    Thread.onSpinWait(); // the few steps of the timeout's interrupt
                }
                Thread.interrupted(); // that interrupt was this task's
            }
            timeout.cancel(false); // done in time or not: the timer entry goes
        }
    }

    /** The timer's entry ran: the task is out of time. */
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

    @Override
    public String toString() {
        return super.toString() + "[callable " + callable + ", with a timeout]";
    }
}
