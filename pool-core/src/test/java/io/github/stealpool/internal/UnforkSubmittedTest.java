package io.github.stealpool.internal;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.stealpool.WorkStealingPool;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code Worker.tryUnforkSubmitted}: a worker waiting on a task it submitted takes that task back
 * from the bottom of its deque whatever it is queued as: itself, its timed wrapper
 * ({@link TimedTask}), its decorated wrapper ({@link DecoratedTask}), or a timed wrapper of the
 * decorated one; and leaves another task's wrapper where it is. Checked on the deque directly:
 * through the public API a missed take-back goes unseen, as the waiting worker then runs the
 * entry anyway, as the next task of its deque (TaskDecoratorTest).
 */
class UnforkSubmittedTest {

    private static final long HANG = 30;

    private final WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).build();

    @AfterEach
    void tearDown() throws Exception {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(HANG, TimeUnit.SECONDS));
    }

    @Test
    void aWorkerTakesBackItsSubmissionQueuedAsItselfOrInItsWrappers() throws Throwable {
        onTheWorker(w -> {
            Runnable task = () -> { };
            UnaryOperator<Runnable> decorator = t -> t::run; // a new Runnable: a wrapper is made
            Runnable decorated = DecoratedTask.entry(decorator, task);
            assertTrue(decorated instanceof DecoratedTask);
            TaskTimer timer = new TaskTimer((queued, ran) -> { }, 1);
            List<Runnable> entries = List.of(task, new TimedTask(task, 0L, timer), decorated,
                    new TimedTask(decorated, 0L, timer));
            for (Runnable entry : entries) {
                w.deque.push(entry);
                assertSame(entry, w.tryUnforkSubmitted(task), entry.getClass().getSimpleName());
                assertTrue(w.deque.isEmpty(), entry.getClass().getSimpleName());
            }

            Runnable other = DecoratedTask.entry(decorator, () -> { });
            w.deque.push(other);
            assertNull(w.tryUnforkSubmitted(task), "another task's wrapper stays queued");
            assertSame(other, w.deque.pop());
        });
    }

    /** Runs {@code check} on the pool's one worker, with nothing else in its deque. */
    private void onTheWorker(WorkerCheck check) throws Throwable {
        try {
            pool.submit(() -> {
                Worker w = Worker.current();
                assertTrue(w.deque.isEmpty());
                check.run(w);
                return null;
            }).get(HANG, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause(); // the assertion that failed on the worker
        }
    }

    @FunctionalInterface
    private interface WorkerCheck {
        void run(Worker w) throws Exception;
    }
}
