package io.github.stealpool.internal;

/**
 * A queue entry that the pool made around a task it was given: the future of {@code submit}
 * ({@link PoolFutureTask}), a delayed task ({@link DelayedTask}), a task picked for timing
 * ({@link TimedTask}), a decorated task ({@link DecoratedTask}), {@code submitWithTimeout}'s
 * task and its decorated call ({@link DecoratedCall}). {@link #classOf} looks through them, so
 * that a flight-recorder event names the class the user wrote, not the pool's wrapper.
 *
 * <p>Public only for {@code submitWithTimeout}'s task, a class of the API package; not an API,
 * and not exported by the module.
 */
public interface TaskWrapper {

    /**
     * The class of the task as it was given to the pool (a {@code Runnable} or a
     * {@code Callable}), never a wrapper's. A class, not the task: a future the user keeps after
     * it completed must not keep the task and what it captured alive.
     */
    Class<?> taskClass();

    /** The class of {@code task} as it was given to the pool: a wrapper looked through; null for null. */
    static Class<?> classOf(Object task) {
        if (task instanceof TaskWrapper) {
            return ((TaskWrapper) task).taskClass();
        }
        return task == null ? null : task.getClass();
    }
}
