package io.github.stealpool;

/**
 * Hears how long a sample of the tasks submitted to a pool waited in its queues and ran: the
 * figures behind Micrometer's {@code executor.idle} and {@code executor} timers, which
 * {@code WorkStealingPoolMetrics.timeTasks} records from it. Registered with
 * {@link WorkStealingPool#addTaskTimingListener}.
 *
 * <h2>Which tasks</h2>
 * Tasks given to {@code execute}, {@code submit}, {@code invokeAll} and {@code invokeAny}, from
 * outside the pool or from its workers. Fork/join pieces ({@link Task}s, forks, scopes) and
 * range loops never are, as Micrometer's timers never see a {@code ForkJoinPool}'s forks.
 *
 * <h2>How many</h2>
 * The pool times a sample, spread over time rather than over tasks: each submitting thread
 * (outside threads sharing one of the pool's queue stripes count as one) and each worker has
 * about one task timed every {@value #SAMPLE_GAP_MICROS} microseconds while it submits faster
 * than that, and every task when it submits slower. The sampler counts submissions and reads
 * the clock only when it picks one, so it learns of a slowdown at its next pick, or when a
 * worker parks, which makes the next submission a pick: a burst after a quiet spell has its
 * first task timed. A thread that slows down while no worker parks may
 * submit up to twice its last count (about twice as many tasks as it submitted in the last
 * 50 microseconds of its fast spell) before its next sample. Within a steady stream every task
 * is equally likely to be timed (the count between two samples is drawn at random, so a
 * periodic workload cannot alias with it). So a pool running a few tasks a second has them all
 * timed, and one running millions of tiny tasks a second times one task (three clock reads, one
 * small object and this call) per 50 microseconds of submitting. Counts come from the pool's
 * statistics, not from here.
 *
 * <h2>Contract</h2>
 * Called on the worker that ran the task, right after it ran, whether it completed or threw
 * (a {@code submit}ted task cancelled before it ran is not timed; one of {@code invokeAny}'s
 * losers may be, with next to no run time, as it reaches the pool inside the JDK's
 * {@code ExecutorCompletionService} wrapper, which is not cancelled with it). It runs on the task's thread, so it must be quick and thread-safe, as a
 * Micrometer timer's {@code record} is. What it throws, {@code Error}s included, is logged
 * (SLF4J: the first at once, then about one warning a minute) and dropped: it does not reach the task's future or the
 * failure handler, and the task's own outcome is reported as if no listener were there.
 */
@FunctionalInterface
public interface TaskTimingListener {

    /** About this often, per submitting thread or worker, a task is timed (microseconds). */
    long SAMPLE_GAP_MICROS = 50;

    /**
     * One timed task.
     *
     * @param queuedNanos time from its submission to the start of its run, in nanoseconds
     * @param runNanos    time it ran, in nanoseconds
     */
    void taskTimed(long queuedNanos, long runNanos);
}
