package io.github.stealpool.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A set-once outcome that threads wait for: the base of {@code Task} and of the pool's internal
 * fork/join jobs. A worker that waits keeps working ({@link Worker#awaitLatch}); any other
 * thread parks.
 *
 * <h2>State</h2>
 * {@link #outcome} is null until the latch is set, then never changes: a CAS from null decides
 * which of several completers (the run, {@code cancel}, {@code complete}) wins, and publishes the
 * result object with it. A null result is stored as a private sentinel, a failure wrapped in a
 * private class, so no user value can be mistaken for either.
 *
 * <h2>Waiters, and why none is missed</h2>
 * {@link #waiters} is a Treiber stack of {@link Waiter}s. A waiter pushes itself (CAS), then
 * re-reads {@code outcome}; a completer CASes {@code outcome}, then reads {@code waiters} and, if
 * there are any, swaps the stack to {@link #CLOSED} and wakes everyone it took. All four accesses
 * are sequentially consistent, so either the waiter sees the outcome, or the completer sees the
 * waiter (Dekker). A push onto a closed stack fails and the waiter knows the latch is set.
 *
 * <h2>Why nothing here is public or protected</h2>
 * {@code io.github.stealpool.Task} extends this class, and every user subclass of Task would
 * inherit any public or protected member as API: a {@code trySetResult(Object)} would let a
 * {@code Task<Long>} be completed with a String, and its joiner get a ClassCastException. So
 * every operation is package-private, the internal jobs (same package) call them directly, and
 * Task, in another package, goes through {@link LatchAccess}, which the module does not export.
 */
public abstract class Latch {

    /** Stands for a null result. */
    private static final Object NIL = new Object();

    /**
     * A failed outcome (a CancellationException if cancelled), and where it was thrown (or the
     * task cancelled or completed exceptionally), for rethrowing it in another thread.
     */
    private static final class Failure extends Failures.Thrown {
        Failure(Throwable cause) {
            super(cause);
        }
    }

    /** A thread waiting for a latch: a parked thread, or a worker asleep in the pool's Sleep. */
    static final class Waiter {
        final Thread thread;
        final Worker worker; // null for a thread outside any pool
        /** A worker parked past the help-depth bound, counted idle there; else null. */
        final Scheduler quietIn;
        /**
         * {@link #COUNTED} while counted idle, {@link #LEAVING} while the setter or the waiter
         * itself uncounts it (once: whoever moves it out of COUNTED), {@link #LEFT} after. The
         * waiter returns only once it is LEFT, so it never goes back to work still counted idle.
         */
        private final AtomicInteger counted;
        private static final int COUNTED = 0;
        private static final int LEAVING = 1;
        private static final int LEFT = 2;
        Waiter next;

        Waiter(Thread thread, Worker worker) {
            this(thread, worker, null);
        }

        Waiter(Thread thread, Worker worker, Scheduler quietIn) {
            this.thread = thread;
            this.worker = worker;
            this.quietIn = quietIn;
            this.counted = quietIn != null ? new AtomicInteger(COUNTED) : null;
        }

        void wake() {
            if (worker != null) {
                worker.scheduler.sleep.wakeWorker(worker.index);
            }
            uncount(); // before the setter goes on: its next quiescence check sees it awake
            LockSupport.unpark(thread); // a worker blocked in park (help depth bound) uses this
        }

        /** Uncounts the waiter, unless someone else does or did (the setter's wake). */
        void uncount() {
            if (counted != null && counted.compareAndSet(COUNTED, LEAVING)) {
                try {
                    quietIn.quietLeave();
                } finally {
                    counted.set(LEFT);
                }
            }
        }

        /** The waiter, before it goes back to work: uncounted, by whichever thread did it. */
        void uncountAndWait() {
            uncount();
            for (int spins = 0; counted != null && counted.get() != LEFT; spins++) {
                // The setter is between its two steps, one atomic add apart; if it was
                // descheduled there, let it run.
                if (spins < 256) {
                    Thread.onSpinWait();
                } else {
                    Thread.yield();
                }
            }
        }
    }

    private static final Waiter CLOSED = new Waiter(null, null);

    private static final VarHandle OUTCOME;
    private static final VarHandle WAITERS;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            OUTCOME = l.findVarHandle(Latch.class, "outcome", Object.class);
            WAITERS = l.findVarHandle(Latch.class, "waiters", Waiter.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile Object outcome;
    private volatile Waiter waiters;

    protected Latch() {
    }

    /** True once the latch is set (normally, exceptionally or cancelled). */
    final boolean isSet() {
        return outcome != null;
    }

    /** The result if set normally, else null. */
    final Object result() {
        Object o = outcome;
        return o == NIL || o instanceof Failure ? null : o;
    }

    /** The failure if set exceptionally or cancelled, else null. */
    final Throwable failure() {
        Object o = outcome;
        return o instanceof Failure ? ((Failure) o).failure : null;
    }

    /**
     * The failure as the calling thread should throw it: if it was recorded in another thread,
     * a new throwable of the same class built here, with the original as its cause, so that the
     * stack trace shows where this thread waited ({@link Failures#forThisThread}); else the
     * original. Null if the latch is not set exceptionally.
     */
    final Throwable failureForThisThread() {
        Object o = outcome;
        if (!(o instanceof Failure)) {
            return null;
        }
        return ((Failure) o).forThisThread();
    }

    /** Sets a normal outcome ({@code value} may be null) unless set already; true if this call did. */
    final boolean trySetResult(Object value) {
        return trySet(value == null ? NIL : value);
    }

    /** Sets a failed outcome unless set already; true if this call did. */
    final boolean trySetFailure(Throwable failure) {
        return trySet(new Failure(failure));
    }

    /** Fails the latch with a CancellationException unless set already; true if this call did. */
    final boolean tryCancel() {
        return trySetFailure(new CancellationException());
    }

    private boolean trySet(Object value) {
        if (!OUTCOME.compareAndSet(this, null, value)) {
            return false;
        }
        // Most latches are never waited on: skip the second atomic then. A volatile read after
        // the CAS is enough for the Dekker argument; a waiter that pushes after this read sees
        // the outcome when it re-reads it, and its node stays on the open stack, harmlessly.
        if (waiters != null) {
            Waiter w = (Waiter) WAITERS.getAndSet(this, CLOSED);
            for (; w != null; w = w.next) {
                w.wake();
            }
        }
        return true;
    }

    /**
     * The pool will never run this latch as a job (shutdownNow swept it from a queue): cancel
     * it, so that whoever waits for it stops waiting. A fork/join job that must do more
     * overrides it (see {@link ForkedJob#abandonPiece}).
     */
    void abandon() {
        tryCancel();
    }

    /** Registers {@code w}; false if the latch is already set (then no wake-up will come). */
    final boolean addWaiter(Waiter w) {
        for (;;) {
            Waiter head = waiters;
            if (head == CLOSED) {
                return false;
            }
            w.next = head;
            if (WAITERS.compareAndSet(this, head, w)) {
                return true; // the caller re-reads isSet() before it blocks
            }
        }
    }

    /**
     * Waits until set: a worker of any pool helps ({@link Worker#awaitLatch}); another thread
     * parks, ignoring interrupts (and restoring the interrupt status after).
     */
    final void awaitUninterruptibly() {
        if (isSet()) {
            return;
        }
        Worker w = Worker.current();
        if (w != null) {
            w.awaitLatch(this);
            return;
        }
        boolean interrupted = false;
        Waiter me = new Waiter(Thread.currentThread(), null);
        if (addWaiter(me)) {
            while (!isSet()) {
                LockSupport.park(this);
                interrupted |= Thread.interrupted();
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Waits until set or the timeout passes; a worker helps and ignores the timeout only while it
     * is running a task (a task cannot be abandoned halfway).
     *
     * @param nanos the timeout, or a negative value to wait for ever
     * @return true if set, false on timeout
     * @throws InterruptedException if a thread outside the pool is interrupted while waiting
     */
    final boolean await(long nanos) throws InterruptedException {
        if (isSet()) {
            return true;
        }
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        Worker w = Worker.current();
        if (w != null && nanos < 0) {
            w.awaitLatchInterruptibly(this);
            return true;
        }
        long deadline = nanos < 0 ? 0 : System.nanoTime() + nanos;
        Waiter me = new Waiter(Thread.currentThread(), null);
        if (!addWaiter(me)) {
            return true;
        }
        while (!isSet()) {
            if (nanos < 0) {
                LockSupport.park(this);
            } else {
                long left = deadline - System.nanoTime();
                if (left <= 0L) {
                    return isSet();
                }
                LockSupport.parkNanos(this, left);
            }
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
        return true;
    }

    /**
     * For a worker that may not help any more (help depth bound): parks until set, counted as
     * idle in {@code scheduler} meanwhile ({@code Scheduler.isQuiescent}).
     */
    final void parkUntilSet(boolean interruptible, Scheduler scheduler) throws InterruptedException {
        Waiter me = new Waiter(Thread.currentThread(), null, scheduler);
        scheduler.quietEnter(); // before anyone can wake it, so the setter's uncount follows
        try {
            if (!addWaiter(me)) {
                return;
            }
            boolean interrupted = false;
            while (!isSet()) {
                LockSupport.park(this);
                if (Thread.interrupted()) {
                    if (interruptible) {
                        throw new InterruptedException();
                    }
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        } finally {
            me.uncountAndWait(); // unless the setter did; either way done before going on
        }
    }

    /** Registers a worker that will sleep in the pool's Sleep until this latch is set. */
    final boolean addSleepingWorker(Worker w) {
        return addWaiter(new Waiter(Thread.currentThread(), w));
    }

    /**
     * Unsets the latch, with no waiters, for a task to be run again ({@code Task.reinitialize}).
     * Only while nobody waits for it or sets it (the caller's contract, as that of
     * {@code ForkJoinTask.reinitialize}): a stale waiter or setter would race the new run. The
     * stack is emptied before the outcome is cleared, so an unset latch never shows the closed
     * stack; the next fork's or submission's release publishes both writes to its runner.
     */
    final void reset() {
        WAITERS.setVolatile(this, null);
        OUTCOME.setVolatile(this, null);
    }
}
