package io.github.stealpool.internal;

import java.util.concurrent.Future;

/**
 * A submitted task picked for timing ({@link TaskTimer}): runs it and reports how long it
 * waited since its submission and how long it ran. Queued in its place; {@code shutdownNow}
 * hands back the task itself ({@link TaskTimer#unwrap}). What the task throws passes through
 * unchanged, after the timing is reported, so the pool reports the failure as it would
 * without timing.
 */
final class TimedTask implements Runnable, TaskWrapper {

    final Runnable task;
    private final long submittedAt;
    private final TaskTimer timer;

    TimedTask(Runnable task, long submittedAt, TaskTimer timer) {
        this.task = task;
        this.submittedAt = submittedAt;
        this.timer = timer;
    }

    @Override
    public void run() {
        Runnable submitted = DecoratedTask.submitted(task);
        if (submitted instanceof Future && ((Future<?>) submitted).isDone()) {
            // Cancelled before it ran (a submit's future, or any FutureTask given to execute):
            // nothing to time, and running it does nothing. invokeAny's losers are not seen
            // here: the JDK's ExecutorCompletionService queues them inside a future of its own,
            // which their cancellation does not complete.
            task.run();
            return;
        }
        long start = System.nanoTime();
        try {
            task.run();
        } finally {
            timer.record(start - submittedAt, System.nanoTime() - start);
        }
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
