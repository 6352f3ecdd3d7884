package io.github.stealpool;

import static io.github.stealpool.Rethrown.assertRethrown;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@link Scope#spawn(java.util.concurrent.Callable)}: a spawned function and its handle. */
class ScopeSpawnValueTest {

    private static final long HANG = 30; // seconds: a hang detector, not a speed claim

    private final WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build();

    @AfterEach
    void close() throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(HANG, TimeUnit.SECONDS));
    }

    private static final AtomicInteger SIDE_EFFECTS = new AtomicInteger();

    private static int square(int i) {
        return i * i;
    }

    private static void record(int i) {
        SIDE_EFFECTS.addAndGet(i);
    }

    @Test
    void eachSpawnedFunctionGivesItsResultThroughItsHandle() {
        List<Task<Integer>> handles = new ArrayList<>();
        pool.scope(scope -> {
            for (int i = 0; i < 100; i++) {
                int k = i;
                handles.add(scope.spawn(() -> square(k))); // a value: spawn(Callable)
            }
        });
        for (int i = 0; i < 100; i++) {
            Task<Integer> h = handles.get(i);
            assertTrue(h.isDone(), "the scope returned before its spawned function was done");
            assertEquals(i * i, h.getRawResult());
            assertEquals(i * i, h.join());
        }
    }

    /** The overload each lambda picks, checked by the compiler: see Scope.spawn(Runnable). */
    @Test
    void aValueLambdaPicksTheCallableFormAndAVoidOneTheRunnableForm() {
        SIDE_EFFECTS.set(0);
        List<Task<Object>> throwing = new ArrayList<>();
        IllegalStateException x = assertThrows(IllegalStateException.class, () -> pool.scope(scope -> {
            Task<Integer> value = scope.spawn(() -> square(3)); // compiles only as spawn(Callable)
            scope.spawn(() -> record(4));                      // a void method: spawn(Runnable)
            throwing.add(scope.spawn(() -> {                   // a block that only throws fits both:
                throw new IllegalStateException("x");          // spawn(Callable), as submit() does
            }));
            assertEquals(9, value.join(), "joined inside the body: the worker works meanwhile");
        }));
        assertEquals(4, SIDE_EFFECTS.get());
        Throwable original = throwing.get(0).getException(); // only the Callable form gives a handle
        assertTrue(original instanceof IllegalStateException, String.valueOf(original));
        assertRethrown(original, x); // the scope reported what the handle holds
    }

    @Test
    void aFailureIsReportedByTheScopeAndByTheHandle() {
        IllegalStateException boom = new IllegalStateException("boom");
        List<Task<Integer>> handle = new ArrayList<>();
        AtomicBoolean otherFinished = new AtomicBoolean();
        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> pool.scope(scope -> {
            handle.add(scope.spawn(() -> {
                throw boom;
            }));
            scope.spawn(() -> {
                Thread.sleep(50);
                otherFinished.set(true);
                return null;
            });
        }));
        assertRethrown(boom, thrown);
        assertTrue(otherFinished.get(), "the scope rethrew before its other task was done");
        Task<Integer> h = handle.get(0);
        assertSame(boom, h.getException());
        assertRethrown(boom, assertThrows(IllegalStateException.class, h::join));

        IOException io = new IOException("disk");
        List<Task<String>> checked = new ArrayList<>();
        CompletionException wrapped = assertThrows(CompletionException.class, () -> pool.scope(scope ->
                checked.add(scope.spawn(() -> {
                    throw io;
                }))));
        assertSame(io, wrapped.getCause(), "a checked failure reaches the scope's caller wrapped");
        assertSame(io, assertThrows(ExecutionException.class, checked.get(0)::get).getCause());
        assertSame(io, assertThrows(CompletionException.class, checked.get(0)::join).getCause());
    }

    @Test
    void handlesCanBeJoinedByOtherSpawnedTasksAndAreClaimedByTheScope() {
        List<Task<Integer>> results = new ArrayList<>();
        pool.scope(scope -> {
            Task<Integer> a = scope.spawn(() -> square(5));
            Task<Integer> b = scope.spawn(() -> a.join() + 1);
            results.add(b);
            assertThrows(IllegalStateException.class, a::fork, "the scope runs it");
            assertThrows(IllegalStateException.class, a::invoke);
            assertThrows(IllegalStateException.class, () -> pool.submit(a));
        });
        assertEquals(26, results.get(0).join());
    }

    @Test
    void aHandleCancelledBeforeItStartsNeverRunsAndIsNoFailureOfTheScope() {
        WorkStealingPool one = WorkStealingPool.builder().parallelism(1).build(); // the body holds the only worker
        try {
            AtomicBoolean ran = new AtomicBoolean();
            List<Task<String>> handle = new ArrayList<>();
            one.scope(scope -> {
                Task<String> h = scope.spawn(() -> {
                    ran.set(true);
                    return "ran";
                });
                assertTrue(h.cancel(false), "still queued behind the body");
                handle.add(h);
            });
            assertFalse(ran.get());
            assertTrue(handle.get(0).isCancelled());
            assertThrows(CancellationException.class, handle.get(0)::join);
        } finally {
            one.shutdown();
        }
    }

    @Test
    void aSpawnedFunctionLeftQueuedByShutdownNowIsCancelledAndReported() throws Exception {
        WorkStealingPool one = WorkStealingPool.builder().parallelism(1).build();
        CountDownLatch spawned = new CountDownLatch(1);
        CountDownLatch shutDown = new CountDownLatch(1);
        List<Task<String>> handle = new ArrayList<>();
        Task<Void> scopeTask = one.submit(Task.adapt(() -> one.scope(scope -> {
            handle.add(scope.spawn(() -> "never"));
            spawned.countDown();
            try {
                shutDown.await(HANG, TimeUnit.SECONDS); // holds the only worker: the spawn stays queued
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // shutdownNow interrupts the running body
            }
        })));
        assertTrue(spawned.await(HANG, TimeUnit.SECONDS));
        one.shutdownNow();
        shutDown.countDown();
        assertThrows(CancellationException.class, scopeTask::join, "the scope reports the cancelled spawn");
        assertTrue(handle.get(0).isCancelled());
        assertTrue(one.awaitTermination(HANG, TimeUnit.SECONDS));
    }
}
