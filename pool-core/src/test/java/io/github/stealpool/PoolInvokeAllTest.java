package io.github.stealpool;

import static io.github.stealpool.Rethrown.assertRethrown;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.stealpool.ForkJoinTest.Fib;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code pool.invokeAll(tasks)} for a list of {@link Task}s, next to ExecutorService's
 * {@code invokeAll(Collection<? extends Callable<T>>)}: both compile, each call picks the same
 * method as before, and the tasks run in this pool wherever the call comes from.
 */
class PoolInvokeAllTest {

    private static final long HANG = 30; // seconds: a hang detector, not a speed claim
    private static final String PREFIX = "invoke-all";

    private final WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).threadNamePrefix(PREFIX).build();

    @AfterEach
    void close() throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(HANG, TimeUnit.SECONDS));
    }

    /** Where it ran. */
    private static final class Where extends Task<String> {
        @Override
        protected String compute() {
            return Thread.currentThread().getName();
        }
    }

    /**
     * Compiled, not just run: these lines are the test. The calls that fit ExecutorService's
     * method keep it (the type of each result says which one was picked), including the ones
     * that would be ambiguous with a {@code List<? extends Task<?>>} overload (null, an empty
     * {@code List.of()}, a list of lambdas); a list of Tasks goes to the new one.
     */
    @Test
    void callablesKeepExecutorServicesInvokeAllAndTasksGetTheirOwn() throws Exception {
        List<Callable<Integer>> calls = List.of(() -> 1, () -> 2);
        List<Future<Integer>> futures = pool.invokeAll(calls);
        assertEquals(2, futures.get(1).get());
        List<Future<Integer>> ofLambdas = pool.invokeAll(List.of(() -> 3));
        assertEquals(3, ofLambdas.get(0).get());
        List<Future<Object>> none = pool.invokeAll(List.of());
        assertTrue(none.isEmpty());
        assertThrows(NullPointerException.class, () -> pool.invokeAll(null));
        assertThrows(NullPointerException.class, () -> pool.invokeAll(Arrays.asList(() -> 1, null)));

        List<Fib> fibs = List.of(new Fib(10), new Fib(11), new Fib(12));
        List<Fib> same = pool.invokeAll(fibs);
        assertSame(fibs, same, "returns its argument, as ForkJoinTask.invokeAll(Collection)");
        assertEquals(55 + 89 + 144, fibs.stream().mapToLong(Fib::join).sum());
        List<Task<Long>> asTasks = List.of(new Fib(13), new Fib(14));
        for (Task<Long> t : pool.invokeAll(asTasks)) {
            assertTrue(t.isCompletedNormally());
        }
        Set<Fib> set = new LinkedHashSet<>(List.of(new Fib(5), new Fib(6)));
        assertEquals(5 + 8, pool.invokeAll(set).stream().mapToLong(Fib::join).sum(), "any Iterable");
    }

    @Test
    void fromOutsideEveryTaskRunsInThisPoolAndIsDoneOnReturn() {
        List<Where> tasks = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            tasks.add(new Where());
        }
        pool.invokeAll(tasks);
        for (Where w : tasks) {
            assertTrue(w.isDone());
            assertTrue(w.join().startsWith(PREFIX + "-worker-"), w.join());
        }
        assertTrue(pool.invokeAll(List.<Where>of()).isEmpty());
    }

    @Test
    void fromInsideThisPoolAndFromAnotherPoolsWorkerTheyRunInThisPool() {
        List<Where> inside = List.of(new Where(), new Where(), new Where());
        String caller = pool.invoke(Task.adapt(() -> {
            pool.invokeAll(inside);
            return Thread.currentThread().getName();
        }));
        assertEquals(caller, inside.get(0).join(), "on a worker of this pool the first runs in the caller");
        for (Where w : inside) {
            assertTrue(w.join().startsWith(PREFIX + "-worker-"), w.join());
        }

        WorkStealingPool other = WorkStealingPool.builder().parallelism(1).threadNamePrefix("other").build();
        try {
            List<Where> fromOther = List.of(new Where(), new Where());
            other.invoke(Task.adapt(() -> pool.invokeAll(fromOther)));
            for (Where w : fromOther) {
                assertTrue(w.join().startsWith(PREFIX + "-worker-"), "ran in " + w.join());
            }
        } finally {
            other.shutdown();
        }
    }

    @Test
    void theFirstFailureIsThrownAfterAllAreDoneWithTheOthersSuppressed() {
        RuntimeException first = new RuntimeException("first");
        IllegalStateException second = new IllegalStateException("second");
        AtomicBoolean slowDone = new AtomicBoolean();
        List<Task<?>> tasks = List.of(
                Task.adapt(() -> {
                    Thread.sleep(50);
                    slowDone.set(true);
                    return null;
                }),
                Task.adapt((Runnable) () -> {
                    throw first;
                }),
                Task.adapt((Runnable) () -> {
                    throw second;
                }));
        RuntimeException thrown = assertThrows(RuntimeException.class, () -> pool.invokeAll(tasks));
        assertRethrown(first, thrown);
        assertTrue(slowDone.get(), "returned before every task was done");
        assertEquals(List.of(second), Arrays.asList(first.getSuppressed()));
    }

    @Test
    void badElementsAreRefusedBeforeAnythingRuns() {
        Where before = new Where();
        List<Object> mixed = List.of(before, "not a task");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> pool.invokeAll(mixed));
        assertTrue(e.getMessage().startsWith("tasks[1] is a java.lang.String, not a Task"), e.getMessage());
        List<Object> callables = List.of((Callable<Integer>) () -> 1); // typed as objects: no Callable overload
        assertThrows(IllegalArgumentException.class, () -> pool.invokeAll(callables));

        Where twice = new Where();
        IllegalStateException dup = assertThrows(IllegalStateException.class,
                () -> pool.invokeAll(List.of(twice, before, twice)));
        assertTrue(dup.getMessage().contains("tasks[2]"), dup.getMessage());
        assertFalse(before.isDone());
        assertFalse(twice.isDone());
        pool.invokeAll(List.of(before, twice)); // nothing was claimed: both still run
        assertTrue(before.isDone() && twice.isDone());
    }

    @Test
    void afterShutdownTheTasksAreRejectedAndLeftFree() {
        WorkStealingPool closed = WorkStealingPool.builder().parallelism(1).build();
        closed.shutdown();
        List<Where> tasks = List.of(new Where(), new Where());
        assertThrows(RejectedExecutionException.class, () -> closed.invokeAll(tasks));
        pool.invokeAll(tasks); // unclaimed: they can run elsewhere
        assertTrue(tasks.get(1).join().startsWith(PREFIX));
    }
}
