package io.github.stealpool.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A set-once outcome that threads wait for: the base of the pool's internal fork/join jobs
 * ({@link Signal}, {@code Join.Job}, {@code RangeLoop.Participant}). It holds the two fields of
 * the latch algorithm, which {@link LatchAlgorithm} runs (its class comment carries the
 * invariants and the memory orderings), and reaches them through {@link #ALGORITHM}, an
 * accessor over these fields. {@code io.github.stealpool.Task} is a latch too, but not this
 * class: it declares the same two fields and its own accessor (see LatchAlgorithm).
 *
 * <p>Every operation is package-private, one call into the algorithm: the jobs (same package)
 * call them directly. No operation is public or protected, so no subclass outside this
 * package could complete a latch with a value of the wrong type.
 */
public abstract class Latch {

    /** The algorithm over this class's fields; static final, so its calls inline. */
    static final LatchAlgorithm ALGORITHM = new Fields();

    private static final VarHandle OUTCOME;
    private static final VarHandle WAITERS;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            OUTCOME = l.findVarHandle(Latch.class, "outcome", Object.class);
            WAITERS = l.findVarHandle(Latch.class, "waiters", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** See LatchAlgorithm, "State"; only through the accessors below. */
    @SuppressWarnings("unused") // through OUTCOME
    private volatile Object outcome;
    /** A {@code LatchAlgorithm.Waiter} or null; only through the accessors below. */
    @SuppressWarnings("unused") // through WAITERS
    private volatile Object waiters;

    /** The accessors of {@link Latch}'s fields: access mode in the name, raw VarHandle calls only here. */
    private static final class Fields extends LatchAlgorithm {
        @Override
        protected Object lvOutcome(Object latch) {
            return OUTCOME.getVolatile((Latch) latch);
        }

        @Override
        protected boolean casOutcome(Object latch, Object expect, Object update) {
            return OUTCOME.compareAndSet((Latch) latch, expect, update);
        }

        @Override
        protected void svOutcome(Object latch, Object value) {
            OUTCOME.setVolatile((Latch) latch, value);
        }

        @Override
        protected Object lvWaiters(Object latch) {
            return WAITERS.getVolatile((Latch) latch);
        }

        @Override
        protected boolean casWaiters(Object latch, Object expect, Object update) {
            return WAITERS.compareAndSet((Latch) latch, expect, update);
        }

        @Override
        protected void svWaiters(Object latch, Object value) {
            WAITERS.setVolatile((Latch) latch, value);
        }

        @Override
        protected boolean holds(Object o) {
            return o instanceof Latch;
        }
    }

    protected Latch() {
    }

    /** See {@link LatchAlgorithm#isSet}. */
    final boolean isSet() {
        return ALGORITHM.isSet(this);
    }

    /** See {@link LatchAlgorithm#result}. */
    final Object result() {
        return ALGORITHM.result(this);
    }

    /** See {@link LatchAlgorithm#failure}. */
    final Throwable failure() {
        return ALGORITHM.failure(this);
    }

    /** See {@link LatchAlgorithm#failureForThisThread}. */
    final Throwable failureForThisThread() {
        return ALGORITHM.failureForThisThread(this);
    }

    /** See {@link LatchAlgorithm#trySetResult}. */
    final boolean trySetResult(Object value) {
        return ALGORITHM.trySetResult(this, value);
    }

    /** See {@link LatchAlgorithm#trySetFailure}. */
    final boolean trySetFailure(Throwable failure) {
        return ALGORITHM.trySetFailure(this, failure);
    }

    /** See {@link LatchAlgorithm#tryCancel}. */
    final boolean tryCancel() {
        return ALGORITHM.tryCancel(this);
    }

    /** See {@link LatchAlgorithm#addWaiter}. */
    final boolean addWaiter(LatchAlgorithm.Waiter w) {
        return ALGORITHM.addWaiter(this, w);
    }

    /** See {@link LatchAlgorithm#awaitUninterruptibly}. */
    final void awaitUninterruptibly() {
        ALGORITHM.awaitUninterruptibly(this);
    }

    /** See {@link LatchAlgorithm#await}. */
    final boolean await(long nanos) throws InterruptedException {
        return ALGORITHM.await(this, nanos);
    }

    /** See {@link LatchAlgorithm#parkUntilSet}. */
    final void parkUntilSet(boolean interruptible, Scheduler scheduler) throws InterruptedException {
        ALGORITHM.parkUntilSet(this, interruptible, scheduler);
    }

    /** See {@link LatchAlgorithm#waiterCount}. */
    final int waiterCount() {
        return ALGORITHM.waiterCount(this);
    }
}
