package io.github.stealpool.internal;

/**
 * A queue entry that the pool made around a task it was given: the future of {@code submit}
 * ({@link PoolFutureTask}), a delayed task ({@link DelayedTask}), a task picked for timing
 * ({@link TimedTask}), a decorated task ({@link DecoratedTask}). {@link FlightEvents#taskClass} looks through them, so that an event names
 * the class the user wrote, not the pool's wrapper.
 */
interface TaskWrapper {

    /** The task as it was given to the pool: a {@code Runnable} or a {@code Callable}. */
    Object wrappedTask();
}
