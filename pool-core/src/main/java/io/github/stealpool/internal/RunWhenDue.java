package io.github.stealpool.internal;

/**
 * A delayed task handed to a worker ahead of its deadline (DelayScheduler, "Handing over
 * ahead", a lab switch): the worker spins until {@code time} ({@code System.nanoTime()}), then
 * runs the task, so it never starts before its delay. The spin is what the worker's wake-up
 * did not already take; it ignores the run state, as a task handed to a worker is that worker's
 * to run whatever the run state (ShutdownSweep, "Nothing lost", rule 1).
 */
final class RunWhenDue implements Runnable, TaskWrapper {

    private final Runnable task;
    private final long time;

    RunWhenDue(Runnable task, long time) {
        this.task = task;
        this.time = time;
    }

    @Override
    public void run() {
        while (System.nanoTime() - time < 0L) {
            Thread.onSpinWait();
        }
        task.run();
    }

    @Override
    public Class<?> taskClass() {
        return TaskWrapper.classOf(task);
    }

    @Override
    public String toString() {
        return task.toString();
    }
}
