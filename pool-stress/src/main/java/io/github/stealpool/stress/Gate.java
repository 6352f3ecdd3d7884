package io.github.stealpool.stress;

import io.github.stealpool.internal.LatchAlgorithm;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A latch built as {@code io.github.stealpool.Task} is (issue 36): it declares the latch's two
 * fields itself, outside the internal package, and runs {@link LatchAlgorithm} on them through
 * a private accessor of its own VarHandles; the Latch tests here race the algorithm through
 * it, so they take the path that Task's get, complete and run take. (Task itself cannot stand
 * in: a task that nothing was going to run may not be waited on from outside, it throws.)
 */
final class Gate {

    private static final VarHandle OUTCOME;
    private static final VarHandle WAITERS;
    private static final Fields LATCH;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            OUTCOME = l.findVarHandle(Gate.class, "outcome", Object.class);
            WAITERS = l.findVarHandle(Gate.class, "waiters", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
        LATCH = new Fields();
    }

    @SuppressWarnings("unused") // through OUTCOME
    private volatile Object outcome;
    @SuppressWarnings("unused") // through WAITERS
    private volatile Object waiters;

    /** The accessors, as Task's: access mode in the name, raw VarHandle calls only here. */
    private static final class Fields extends LatchAlgorithm {
        @Override
        protected Object lvOutcome(Object gate) {
            return OUTCOME.getVolatile((Gate) gate);
        }

        @Override
        protected boolean casOutcome(Object gate, Object expect, Object update) {
            return OUTCOME.compareAndSet((Gate) gate, expect, update);
        }

        @Override
        protected void svOutcome(Object gate, Object value) {
            OUTCOME.setVolatile((Gate) gate, value);
        }

        @Override
        protected Object lvWaiters(Object gate) {
            return WAITERS.getVolatile((Gate) gate);
        }

        @Override
        protected boolean casWaiters(Object gate, Object expect, Object update) {
            return WAITERS.compareAndSet((Gate) gate, expect, update);
        }

        @Override
        protected void svWaiters(Object gate, Object value) {
            WAITERS.setVolatile((Gate) gate, value);
        }

        @Override
        protected boolean holds(Object o) {
            return o instanceof Gate;
        }
    }

    /**
     * The wait behind {@code Task.get()} ({@code nanos < 0}, interruptible, so jcstress can
     * reclaim a STALE run's thread) and {@code Task.get(timeout)}; true if set.
     */
    boolean await(long nanos) throws InterruptedException {
        return LATCH.await(this, nanos);
    }

    /** The completion behind {@code Task.complete()} and a task's run. */
    boolean set(Object value) {
        return LATCH.trySetResult(this, value);
    }
}
