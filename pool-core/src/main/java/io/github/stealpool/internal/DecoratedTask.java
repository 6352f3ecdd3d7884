package io.github.stealpool.internal;

import java.util.function.UnaryOperator;

/**
 * A submitted task and what the pool's task decorator ({@code Builder.taskDecorator}) made of
 * it: queued in the task's place, it runs the decorated {@code Runnable}, which runs the task.
 * The task as submitted stays reachable, for the places that must see it rather than its
 * wrapper: {@code shutdownNow} hands it back ({@link TaskTimer#unwrap}), a worker waiting on
 * its own submission's future takes it back from its deque ({@code Worker.tryUnforkSubmitted}),
 * and a failure is logged under its class. Fork/join pieces are never decorated, so a wrapper
 * is never one of them (shutdownNow's sweep and the bound's CALLER_RUNS tell them apart by
 * class).
 *
 * <p>Made only when a decorator is set: no pool without one ever creates an instance.
 */
public final class DecoratedTask implements Runnable, TaskWrapper {

    /** The task as submitted. */
    final Runnable task;
    private final Runnable decorated;

    private DecoratedTask(Runnable task, Runnable decorated) {
        this.task = task;
        this.decorated = decorated;
    }

    /**
     * What {@code decorator} makes of {@code task}, called in the submitting thread (so that it
     * can capture what that thread holds). What the decorator throws goes to the caller as it
     * is, before anything was queued or counted.
     *
     * @throws NullPointerException if the decorator returned null
     */
    public static Runnable decorated(UnaryOperator<Runnable> decorator, Runnable task) {
        Runnable d = decorator.apply(task);
        if (d == null) {
            throw new NullPointerException("taskDecorator returned null for a task of "
                    + task.getClass().getName() + "; it must return the Runnable to run in its place");
        }
        return d;
    }

    /**
     * The queue entry for {@code task} decorated by {@code decorator}: a wrapper that runs the
     * decorated {@code Runnable}, or {@code task} itself if the decorator returned it unchanged.
     *
     * @throws NullPointerException if the decorator returned null
     */
    public static Runnable entry(UnaryOperator<Runnable> decorator, Runnable task) {
        Runnable d = decorated(decorator, task);
        return d == task ? task : new DecoratedTask(task, d);
    }

    /** The task as submitted: {@code entry} itself unless it is a decorated wrapper. */
    static Runnable submitted(Runnable entry) {
        return entry instanceof DecoratedTask ? ((DecoratedTask) entry).task : entry;
    }

    @Override
    public void run() {
        decorated.run();
    }

    /** The class of the task as submitted, so that the flight-recorder events name it, not this wrapper. */
    @Override
    public Class<?> taskClass() {
        return TaskWrapper.classOf(task);
    }

    @Override
    public String toString() {
        return task.toString();
    }
}
