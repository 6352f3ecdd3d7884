package io.github.stealpool.metrics;

import io.github.stealpool.Task;
import io.github.stealpool.WorkStealingPool;
import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The {@code ExecutorService} that {@link WorkStealingPoolMetrics#timed} returns: every call goes
 * to the pool, and a sample of the tasks given to it, one in {@link #sampleEvery} (all of them
 * when 1), is wrapped to record the {@code executor.idle} timer (time from submission to start)
 * and the {@code executor} timer (run time), as Micrometer's {@code TimedExecutorService} does.
 *
 * <p>Why its own class rather than Micrometer's: timing every task (three clock reads, two timer
 * records, one object) costs more than a small task, so only a sample is timed, and a task not
 * sampled is passed on as it is, with no wrapper. And every call reaches the pool's own methods,
 * so {@code submit} returns the pool's future, whose {@code get()} on a worker runs other tasks
 * instead of blocking it.
 *
 * <p>A {@link Task} submitted here goes to the pool as it is, never timed, as forks are not.
 *
 * <p>Which tasks are sampled is drawn from the submitting thread's {@link ThreadLocalRandom}: no
 * shared counter is written, and a periodic workload cannot alias with a fixed stride.
 */
final class TimedPoolExecutor implements ExecutorService {

    private final WorkStealingPool pool;
    private final Timer executionTimer;
    private final Timer idleTimer;
    private final int sampleEvery;

    TimedPoolExecutor(WorkStealingPool pool, Timer executionTimer, Timer idleTimer, int sampleEvery) {
        this.pool = pool;
        this.executionTimer = executionTimer;
        this.idleTimer = idleTimer;
        this.sampleEvery = sampleEvery;
    }

    private boolean sampled() {
        return sampleEvery == 1 || ThreadLocalRandom.current().nextInt(sampleEvery) == 0;
    }

    private Runnable wrap(Runnable task) {
        // A null task goes on unwrapped, so the pool throws its own NullPointerException. A Task
        // too: the pool treats it as a fork/join piece (claimed once, its own future, cancelled
        // by shutdownNow), which a wrapper would hide; like forks, Tasks are never timed.
        return task != null && !(task instanceof Task) && sampled()
                ? new TimedRunnable(task, System.nanoTime()) : task;
    }

    private <T> Callable<T> wrap(Callable<T> task) {
        return task != null && sampled() ? new TimedCallable<>(task, System.nanoTime()) : task;
    }

    private <T> Collection<Callable<T>> wrapAll(Collection<? extends Callable<T>> tasks) {
        if (tasks == null) {
            return null; // the pool's NullPointerException
        }
        List<Callable<T>> wrapped = new ArrayList<>(tasks.size());
        for (Callable<T> t : tasks) {
            wrapped.add(wrap(t));
        }
        return wrapped;
    }

    /** Records the time queued; returns the start time for the run timer. */
    private long started(long submittedAt) {
        long start = System.nanoTime();
        idleTimer.record(start - submittedAt, TimeUnit.NANOSECONDS);
        return start;
    }

    private void finished(long start) {
        executionTimer.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
    }

    private final class TimedRunnable implements Runnable {
        private final Runnable task;
        private final long submittedAt;

        TimedRunnable(Runnable task, long submittedAt) {
            this.task = task;
            this.submittedAt = submittedAt;
        }

        @Override
        public void run() {
            long start = started(submittedAt);
            try {
                task.run();
            } finally {
                finished(start);
            }
        }

        @Override
        public String toString() {
            return task.toString(); // shutdownNow hands these back: keep them recognisable
        }
    }

    private final class TimedCallable<T> implements Callable<T> {
        private final Callable<T> task;
        private final long submittedAt;

        TimedCallable(Callable<T> task, long submittedAt) {
            this.task = task;
            this.submittedAt = submittedAt;
        }

        @Override
        public T call() throws Exception {
            long start = started(submittedAt);
            try {
                return task.call();
            } finally {
                finished(start);
            }
        }

        @Override
        public String toString() {
            return task.toString();
        }
    }

    @Override
    public void execute(Runnable command) {
        pool.execute(wrap(command));
    }

    @Override
    public Future<?> submit(Runnable task) {
        return pool.submit(wrap(task));
    }

    @Override
    public <T> Future<T> submit(Runnable task, T result) {
        return pool.submit(wrap(task), result);
    }

    @Override
    public <T> Future<T> submit(Callable<T> task) {
        return pool.submit(wrap(task));
    }

    @Override
    public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> tasks) throws InterruptedException {
        return pool.invokeAll(wrapAll(tasks));
    }

    @Override
    public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
            throws InterruptedException {
        return pool.invokeAll(wrapAll(tasks), timeout, unit);
    }

    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks) throws InterruptedException, ExecutionException {
        return pool.invokeAny(wrapAll(tasks));
    }

    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
            throws InterruptedException, ExecutionException, TimeoutException {
        return pool.invokeAny(wrapAll(tasks), timeout, unit);
    }

    @Override
    public void shutdown() {
        pool.shutdown();
    }

    /** As the pool's, with sampled tasks handed back as they were given, not wrapped. */
    @Override
    public List<Runnable> shutdownNow() {
        List<Runnable> left = pool.shutdownNow();
        left.replaceAll(r -> r instanceof TimedRunnable t ? t.task : r);
        return left;
    }

    /**
     * As {@link WorkStealingPool#close()} (which, called on one of the pool's own workers, does
     * not wait for itself). Declared here because {@code ExecutorService.close()}, on JDK 19 and
     * later, would wait.
     */
    public void close() {
        pool.close();
    }

    @Override
    public boolean isShutdown() {
        return pool.isShutdown();
    }

    @Override
    public boolean isTerminated() {
        return pool.isTerminated();
    }

    @Override
    public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
        return pool.awaitTermination(timeout, unit);
    }

    @Override
    public String toString() {
        return "timed(1 in " + sampleEvery + ") " + pool;
    }
}
