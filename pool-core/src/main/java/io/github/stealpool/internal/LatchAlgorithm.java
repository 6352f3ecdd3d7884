package io.github.stealpool.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CancellationException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The latch algorithm: a set-once outcome that threads wait for, run on two fields that some
 * other class declares. A worker that waits keeps working ({@link Worker#awaitLatch}); any other
 * thread parks. Two classes hold such fields: {@link Latch}, the base of the pool's internal
 * fork/join jobs, and {@code io.github.stealpool.Task}, which extends no internal class (so
 * that no internal type sits in the public hierarchy) and still keeps its outcome in itself
 * (one object per forked task, no second allocation). Each declares the fields, private, and a
 * subclass of this class that reaches them with its own VarHandles: the mode-named accessors
 * below, the only abstract methods. Every operation takes the latch object and runs here.
 *
 * <p>So that the accessors inline: each holder keeps its accessor object in a static final
 * field, where the JIT sees the exact class and binds the calls (a Task's run, join and
 * complete are monomorphic); the worker's join loop, which takes the accessor as an argument,
 * meets two classes (bimorphic). A third implementation in the same JVM (the jcstress gates
 * do so) costs those shared call sites their inlining, not their correctness. Each accessor is
 * one raw VarHandle call on a static final VarHandle of the class that declares the field.
 *
 * <h2>State</h2>
 * The outcome is null until the latch is set, then never changes: a CAS from null decides
 * which of several completers (the run, {@code cancel}, {@code complete}) wins, and publishes the
 * result object with it. A null result is stored as a private sentinel, a failure wrapped in a
 * private class, so no user value can be mistaken for either. Both fields are read and written
 * only through the accessors, whose modes are those of a volatile field: volatile reads and
 * writes, and CASes.
 *
 * <h2>Waiters, and why none is missed</h2>
 * The waiters field holds a Treiber stack of {@link Waiter}s. A waiter pushes itself (CAS),
 * then re-reads the outcome; a completer CASes the outcome, then reads the stack and, if there
 * are any waiters, CASes the stack it read to {@link #CLOSED} (reading it again after a failed
 * CAS) and wakes everyone it took. All these accesses are sequentially consistent, so either
 * the waiter sees the outcome, or the completer sees the waiter (Dekker). A push onto a closed
 * stack fails and the waiter knows the latch is set. The completer closes the stack only while
 * the outcome is still its own: after {@link #reset} (a task run again) a completer of the old
 * run that is late leaves the new run's stack alone.
 *
 * <h2>Waiters that leave</h2>
 * Every waiter whose push succeeded takes its node off the stack as it returns
 * ({@link #removeWaiter}), as {@code FutureTask.removeWaiter} does: one that gives up before the
 * latch is set (timeout, interrupt, its pool stopping), so that polling a latch that is never
 * set keeps memory flat; and one that returns because it is set, so that a node pushed after
 * the completer read an empty stack (the completer then leaves the stack open) does not stay
 * on a set latch. On a closed stack the call is one read. So once a latch is set and its
 * waiters have returned, its stack holds no node. Invariants:
 * <ul>
 *   <li>A node's {@code gone} flag goes false to true once, set only by its own waiter as it
 *       returns; after that the waiter never parks or sleeps for this latch again. So a
 *       completer may skip a gone node (it wakes only waiters still waiting), and waking one
 *       that is leaving (it read the flag before it was set) is a spurious wake-up, which every
 *       waiter tolerates as it tolerates any.</li>
 *   <li>Only gone nodes are ever unlinked: a sweep writes {@code pred.next = s} or CASes the
 *       head from {@code q} to {@code s} only where {@code q} is gone and {@code s} was read
 *       from {@code q.next}. A node's {@code next} only ever points to nodes pushed before it,
 *       and a write replaces it with a node that followed it, with only gone nodes between, so
 *       no node still waiting ever becomes unreachable from the head, even through a stale
 *       {@code s} or a write into a node unlinked meanwhile.</li>
 *   <li>The Dekker argument above is unchanged: a sweep moves the head only from a gone node
 *       to its successor, so it never takes a waiting node off, and never puts back a node the
 *       completer took (its head CAS fails once the head is CLOSED, and it stops on reading
 *       CLOSED). A sweep that runs on in a stack the completer took only rewires gone nodes
 *       there. CLOSED is never gone, never unlinked, and only ever the head. Nodes are never
 *       reused, so the head CAS has no ABA.</li>
 *   <li>A waiter counted idle ({@code quietIn}) is uncounted exactly once whether or not it
 *       leaves: whoever moves {@code counted} out of COUNTED (its own exit, which uncounts before
 *       it marks the node gone, or a completer that did not see it gone) uncounts it, and the
 *       waiter returns only once it is LEFT.</li>
 * </ul>
 * Memory orderings. Every node a sweep or a completer meets was pushed by a CAS on the
 * waiters field before the volatile read (or CAS) of the head that led there (a
 * volatile write synchronizes-with every later read of the same variable), so its fields as
 * pushed are visible. In a sweep, the writes and reads of {@code next} and of
 * {@code gone} are volatile, for a second Dekker pair: a sweep that unlinks through
 * {@code pred} writes {@code pred.next}, then re-reads {@code pred.gone}; a waiter leaving marks
 * its own node {@code gone}, then its sweep reads {@code next} on its way past it. Either the
 * first sweep sees {@code pred} gone and starts again, or the second reads the new
 * {@code next} and skips the node the first unlinked too; so no gone node stays linked behind a
 * write into a node that was unlinked meanwhile (weaker modes could leave it there until the
 * latch is set, the leak this removes). The completer's walk reads {@code next} and
 * {@code gone} plainly: any value it can read is a node still worth walking (see above) or a
 * flag whose staleness costs only a spurious wake-up.
 *
 * <h2>Why this is public, and takes Objects</h2>
 * Task, in another package, calls the operations here on itself, with its own accessor object;
 * a subclass of Task inherits none of them (Task does not extend this class or Latch: it holds
 * an instance of a private nested subclass). This package is not exported by the module; on
 * the class path any code can reach an accessor it is handed, as any public class of an
 * internal package: it is no API, and completing a {@code Task<Long>} with a String through it
 * breaks that task's joiner. An accessor used on an object of another class fails with a
 * ClassCastException in its cast.
 */
public abstract class LatchAlgorithm {

    /** For subclasses: the accessor of one class of latch objects. */
    protected LatchAlgorithm() {
    }

    // --- accessors: one per access mode, each one raw VarHandle call on the holder's field ---

    /** The outcome, volatile read. */
    protected abstract Object lvOutcome(Object latch);

    /** The outcome, CAS. */
    protected abstract boolean casOutcome(Object latch, Object expect, Object update);

    /** The outcome, volatile write. */
    protected abstract void svOutcome(Object latch, Object value);

    /** The waiter stack's head (a {@link Waiter} or null), volatile read. */
    protected abstract Object lvWaiters(Object latch);

    /** The waiter stack's head, CAS. */
    protected abstract boolean casWaiters(Object latch, Object expect, Object update);

    /** The waiter stack's head, volatile write. */
    protected abstract void svWaiters(Object latch, Object value);

    /** True if {@code o} is a latch of this accessor's class (an instanceof test). */
    protected abstract boolean holds(Object o);

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
        final Quiescence quietIn;
        /**
         * {@link #COUNTED} while counted idle, {@link #LEAVING} while the setter or the waiter
         * itself uncounts it (once: whoever moves it out of COUNTED), {@link #LEFT} after. The
         * waiter returns only once it is LEFT, so it never goes back to work still counted idle.
         */
        private final AtomicInteger counted;
        private static final int COUNTED = 0;
        private static final int LEAVING = 1;
        private static final int LEFT = 2;
        /** The node pushed before this one, or null; accessed only through the accessors below. */
        @SuppressWarnings("unused") // through NEXT
        private Waiter next;
        /** Set once, by the waiter itself as it gives up (see the class comment). */
        @SuppressWarnings("unused") // through GONE
        private boolean gone;

        private static final VarHandle NEXT;
        private static final VarHandle GONE;

        static {
            try {
                MethodHandles.Lookup l = MethodHandles.lookup();
                NEXT = l.findVarHandle(Waiter.class, "next", Waiter.class);
                GONE = l.findVarHandle(Waiter.class, "gone", boolean.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        // --- accessors: access mode in the name, raw VarHandle calls only here ---

        /** Before the push: the push's CAS publishes it. */
        private void spNext(Waiter n) {
            NEXT.set(this, n);
        }

        /** The completer's walk: any value is safe to follow (class comment). */
        private Waiter lpNext() {
            return (Waiter) NEXT.get(this);
        }

        /** A sweep: one side of the unlink Dekker pair (class comment). */
        private Waiter lvNext() {
            return (Waiter) NEXT.getVolatile(this);
        }

        /** A sweep's unlink: one side of the unlink Dekker pair (class comment). */
        private void svNext(Waiter n) {
            NEXT.setVolatile(this, n);
        }

        /** The waiter gives up: the other side of the unlink Dekker pair (class comment). */
        private void svGone() {
            GONE.setVolatile(this, true);
        }

        /** A sweep: the unlink Dekker pair (class comment). */
        private boolean lvGone() {
            return (boolean) GONE.getVolatile(this);
        }

        /** The completer: a stale false costs a spurious wake-up only (class comment). */
        private boolean lpGone() {
            return (boolean) GONE.get(this);
        }

        Waiter(Thread thread, Worker worker) {
            this(thread, worker, null);
        }

        Waiter(Thread thread, Worker worker, Quiescence quietIn) {
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

    /** The waiter stack's head: what {@link #lvWaiters} read, as a node. */
    private Waiter waiters(Object latch) {
        return (Waiter) lvWaiters(latch);
    }

    /** True once the latch is set (normally, exceptionally or cancelled). */
    public final boolean isSet(Object latch) {
        return lvOutcome(latch) != null;
    }

    /** The result if set normally, else null. */
    public final Object result(Object latch) {
        Object o = lvOutcome(latch);
        return o == NIL || o instanceof Failure ? null : o;
    }

    /** The failure if set exceptionally or cancelled, else null. */
    public final Throwable failure(Object latch) {
        Object o = lvOutcome(latch);
        return o instanceof Failure ? ((Failure) o).failure : null;
    }

    /**
     * The failure as the calling thread should throw it: if it was recorded in another thread,
     * a new throwable of the same class built here, with the original as its cause, so that the
     * stack trace shows where this thread waited ({@link Failures#forThisThread}); else the
     * original. Null if the latch is not set exceptionally.
     */
    public final Throwable failureForThisThread(Object latch) {
        Object o = lvOutcome(latch);
        if (!(o instanceof Failure)) {
            return null;
        }
        return ((Failure) o).forThisThread();
    }

    /** Sets a normal outcome ({@code value} may be null) unless set already; true if this call did. */
    public final boolean trySetResult(Object latch, Object value) {
        return trySet(latch, value == null ? NIL : value);
    }

    /** Sets a failed outcome unless set already; true if this call did. */
    public final boolean trySetFailure(Object latch, Throwable failure) {
        return trySet(latch, new Failure(failure));
    }

    /** Fails the latch with a CancellationException unless set already; true if this call did. */
    public final boolean tryCancel(Object latch) {
        return trySetFailure(latch, new CancellationException());
    }

    private boolean trySet(Object latch, Object value) {
        if (!casOutcome(latch, null, value)) {
            return false;
        }
        // Most latches are never waited on: skip the second atomic then. A volatile read after
        // the CAS is enough for the Dekker argument; a waiter that pushes after this read sees
        // the outcome when it re-reads it, and unlinks its node from the open stack itself.
        // The stack is closed with a CAS from the head just read, not a blind swap, and only
        // while the outcome is still ours: a completer delayed here past a reset (a joiner that
        // saw the outcome, then Task.reinitialize and a new run) must not close the next run's
        // stack. A failed CAS means a push or an unlink moved the head: read it again. Nodes are
        // never reused, so a head seen again is the same waiter (no ABA); an empty stack is left
        // open, as before (a later waiter sees the outcome when it re-reads it). "Its own" is
        // by identity: a new run that set the same object (NIL for null) is set too, so closing
        // its stack is right.
        for (Waiter h; (h = waiters(latch)) != null && h != CLOSED && lvOutcome(latch) == value; ) {
            if (casWaiters(latch, h, CLOSED)) {
                for (Waiter w = h; w != null; w = w.lpNext()) {
                    if (!w.lpGone()) { // a waiter that left wants no wake-up
                        w.wake();
                    }
                }
                break;
            }
        }
        return true;
    }

    /** Registers {@code w}; false if the latch is already set (then no wake-up will come). */
    final boolean addWaiter(Object latch, Waiter w) {
        for (;;) {
            Waiter head = waiters(latch);
            if (head == CLOSED) {
                return false;
            }
            w.spNext(head);
            if (casWaiters(latch, head, w)) {
                return true; // the caller re-reads isSet() before it blocks
            }
        }
    }

    /**
     * Takes {@code node}, whose waiter returns, off the stack: marks it gone, then sweeps the
     * stack from the head, unlinking every gone node it meets; starts again when a CAS on the
     * head fails or the node it unlinked through turned out gone itself (its write may have
     * been lost). Stops at once on a closed stack: the completer took it. The caller must not
     * wait for this latch through {@code node} again.
     */
    final void removeWaiter(Object latch, Waiter node) {
        node.svGone();
        retry:
        for (;;) {
            Waiter q = waiters(latch);
            if (q == CLOSED) {
                return; // set: the completer owns the nodes now and skips gone ones
            }
            Waiter pred = null;
            while (q != null) {
                Waiter s = q.lvNext();
                if (!q.lvGone()) {
                    pred = q;
                } else if (pred != null) {
                    pred.svNext(s);
                    if (pred.lvGone()) {
                        continue retry; // pred unlinked meanwhile: this write may not count
                    }
                } else if (!casWaiters(latch, q, s)) {
                    continue retry; // a push, another sweep or the completer moved the head
                }
                q = s;
            }
            return;
        }
    }

    /**
     * Waits until set: a worker of any pool helps ({@link Worker#awaitLatch}); another thread
     * parks, ignoring interrupts (and restoring the interrupt status after).
     */
    public final void awaitUninterruptibly(Object latch) {
        if (isSet(latch)) {
            return;
        }
        Worker w = Worker.current();
        if (w != null) {
            w.awaitLatch(this, latch);
            return;
        }
        boolean interrupted = false;
        Waiter me = new Waiter(Thread.currentThread(), null);
        if (addWaiter(latch, me)) {
            try {
                while (!isSet(latch)) {
                    LockSupport.park(latch);
                    interrupted |= Thread.interrupted();
                }
            } finally {
                removeWaiter(latch, me); // set: one read if closed; else our node is on the open stack
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Waits until set or the timeout passes. Untimed ({@code nanos < 0}), a worker of any pool
     * helps as {@link Worker#awaitLatchInterruptibly} does, and another thread parks. Timed
     * ({@code nanos >= 0}), every thread parks, a worker too: it runs no other task meanwhile
     * (one it had started could not be abandoned when the time is up), so the timeout holds,
     * and it stays counted as busy (neither in Sleep nor counted idle). A waiter that gives up
     * takes its node off the waiter stack.
     *
     * @param nanos the timeout, or a negative value to wait for ever
     * @return true if set, false on timeout
     * @throws InterruptedException if the thread is interrupted while waiting, or, for an
     *                              untimed wait on a worker, if its pool is stopping
     */
    public final boolean await(Object latch, long nanos) throws InterruptedException {
        if (isSet(latch)) {
            return true;
        }
        if (Thread.interrupted()) {
            throw new InterruptedException();
        }
        Worker w = Worker.current();
        if (w != null) {
            if (nanos < 0) {
                w.awaitLatchInterruptibly(this, latch);
                return true;
            }
            Worker.publishForksOfCurrent(); // it takes no task while it waits (Worker.publishForks)
        }
        long deadline = nanos < 0 ? 0 : System.nanoTime() + nanos;
        Waiter me = new Waiter(Thread.currentThread(), null);
        if (!addWaiter(latch, me)) {
            return true;
        }
        try {
            while (!isSet(latch)) {
                if (nanos < 0) {
                    LockSupport.park(latch);
                } else {
                    long left = deadline - System.nanoTime();
                    if (left <= 0L) {
                        return isSet(latch);
                    }
                    LockSupport.parkNanos(latch, left);
                }
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            }
            return true;
        } finally {
            removeWaiter(latch, me); // gave up (or polling would pile nodes up), or set: see the class comment
        }
    }

    /**
     * For a worker that may not help any more (help depth bound): parks until set, counted as
     * idle in {@code scheduler} meanwhile ({@link Quiescence#isQuiescent}).
     */
    final void parkUntilSet(Object latch, boolean interruptible, Scheduler scheduler)
            throws InterruptedException {
        Waiter me = new Waiter(Thread.currentThread(), null, scheduler.quiescence);
        scheduler.quiescence.quietEnter(); // before anyone can wake it, so the setter's uncount follows
        try {
            if (!addWaiter(latch, me)) {
                return;
            }
            boolean interrupted = false;
            while (!isSet(latch)) {
                LockSupport.park(latch);
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
            removeWaiter(latch, me); // after the uncount, which the task waits for; see the class comment
        }
    }

    /** For tests: the nodes still linked on the waiter stack (0 once set). */
    final int waiterCount(Object latch) {
        int n = 0;
        for (Waiter w = waiters(latch); w != null && w != CLOSED; w = w.lvNext()) {
            n++;
        }
        return n;
    }

    /**
     * Registers a worker that will sleep in the pool's Sleep until this latch is set: its node,
     * to pass to {@link #removeWaiter} if it gives up first, or null if the latch is set already.
     */
    final Waiter addSleepingWorker(Object latch, Worker w) {
        Waiter me = new Waiter(Thread.currentThread(), w);
        return addWaiter(latch, me) ? me : null;
    }

    /**
     * Unsets the latch, with no waiters, for a task to be run again ({@code Task.reinitialize}).
     * Only once nobody waits for it (the caller's contract, as that of
     * {@code ForkJoinTask.reinitialize}): a waiter of the old run still parked would wait for
     * the new one. A completer of the old run still closing the stack is harmless: it closes
     * only while the outcome is its own ({@link #trySet}). The stack is emptied before the
     * outcome is cleared, so an unset latch never shows the closed stack; the next fork's or
     * submission's release publishes both writes to its runner.
     */
    public final void reset(Object latch) {
        svWaiters(latch, null);
        svOutcome(latch, null);
    }
}
