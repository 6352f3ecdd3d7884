package io.github.stealpool;

import static io.github.stealpool.Rethrown.assertRethrown;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link WorkStealingPool#common()}, where fork, invoke and invokeAll run off the pool, and the
 * questions a task asks about where it runs: {@link Task#getPool()} and
 * {@link Task#inWorkStealingPool()}.
 */
class CommonPoolTest {

    private static final long HANG = 30; // seconds: a hang detector, not a speed claim
    private static final String COMMON_THREAD = "stealpool-common-worker-";

    private final WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build();

    @AfterEach
    void close() throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(HANG, TimeUnit.SECONDS));
    }

    /** Where a task ran: its thread's name and the pool it saw. */
    private static final class Where extends Task<String> {
        volatile WorkStealingPool pool;

        @Override
        protected String compute() {
            pool = Task.getPool();
            return Thread.currentThread().getName();
        }
    }

    // ------------------------------------------------------------------ the common pool itself

    @Test
    void theCommonPoolIsOneDaemonPoolOfDefaultSize() {
        WorkStealingPool common = WorkStealingPool.common();
        assertSame(common, WorkStealingPool.common());
        assertEquals(Runtime.getRuntime().availableProcessors(), common.parallelism());
        Thread[] thread = new Thread[1];
        assertEquals(Boolean.TRUE, common.invoke(Task.adapt(() -> {
            thread[0] = Thread.currentThread();
            return Thread.currentThread().isDaemon();
        })));
        assertTrue(thread[0].getName().startsWith(COMMON_THREAD), thread[0].getName());
        assertTrue(common.toString().contains("stealpool-common"), common.toString());
    }

    @Test
    void theCommonPoolSurvivesShutdownAndClose() throws Exception {
        WorkStealingPool common = WorkStealingPool.common();
        common.shutdown();
        List<Runnable> never = common.shutdownNow();
        assertTrue(never.isEmpty());
        common.close();
        try (WorkStealingPool same = WorkStealingPool.common()) {
            assertEquals(1, same.submit(() -> 1).get(HANG, TimeUnit.SECONDS));
        }
        assertFalse(common.isShutdown());
        assertFalse(common.isTerminated());
        assertFalse(common.terminationFuture().toCompletableFuture().isDone());
        assertFalse(common.awaitTermination(10, TimeUnit.MILLISECONDS), "the common pool never terminates");
        assertEquals(2, common.submit(() -> 2).get(HANG, TimeUnit.SECONDS), "still serving");
        assertTrue(new Where().fork().join().startsWith(COMMON_THREAD), "forks off the pool still go there");
    }

    @Test
    void awaitTerminationOfTheCommonPoolWaitsForQuiescenceThenAnswersFalse() throws Exception {
        WorkStealingPool common = WorkStealingPool.common();
        CountDownLatch release = new CountDownLatch(1);
        Task<Boolean> busy = common.submit(Task.adapt(() -> release.await(HANG, TimeUnit.SECONDS)));
        long start = System.nanoTime();
        assertFalse(common.awaitTermination(100, TimeUnit.MILLISECONDS));
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(100),
                "a busy pool is not quiescent: the wait lasts the timeout");
        assertFalse(busy.isDone());
        release.countDown();
        assertFalse(common.awaitTermination(HANG, TimeUnit.SECONDS));
        assertTrue(busy.isDone(), "returned before the pool was quiescent");

        CountDownLatch releaseAgain = new CountDownLatch(1);
        Task<Boolean> busyAgain = common.submit(Task.adapt(() -> releaseAgain.await(HANG, TimeUnit.SECONDS)));
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> common.awaitTermination(HANG, TimeUnit.SECONDS),
                "interrupted while waiting");
        assertFalse(Thread.interrupted(), "the status is cleared, as InterruptedException says");
        releaseAgain.countDown();
        assertTrue(busyAgain.join());
    }

    // ------------------------------------------------------------------ off the pool: fork, invoke, invokeAll

    @Test
    void offThePoolForkInvokeAndInvokeAllRunInTheCommonPool() {
        Where forked = new Where();
        assertTrue(forked.fork().join().startsWith(COMMON_THREAD));
        assertSame(WorkStealingPool.common(), forked.pool);
        Where invoked = new Where();
        assertTrue(invoked.invoke().startsWith(COMMON_THREAD));
        Where a = new Where();
        Where b = new Where();
        Where c = new Where();
        Task.invokeAll(a, b, c);
        for (Where w : List.of(a, b, c)) {
            assertTrue(w.join().startsWith(COMMON_THREAD), w.join());
            assertSame(WorkStealingPool.common(), w.pool);
        }
        Where single = new Where();
        Task.invokeAll(List.of(single));
        assertTrue(single.join().startsWith(COMMON_THREAD), "one task too: " + single.join());
    }

    @Test
    void offThePoolTheOneRunPerTaskStillHolds() {
        Where t = new Where();
        t.fork();
        assertThrows(IllegalStateException.class, t::fork);
        assertThrows(IllegalStateException.class, t::invoke);
        assertThrows(IllegalStateException.class, () -> Task.invokeAll(new Where(), t));
        t.join();
        Where twice = new Where();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Task.invokeAll(twice, new Where(), twice));
        assertTrue(e.getMessage().contains("tasks[2]"), e.getMessage());
        assertFalse(twice.isDone());
        assertTrue(twice.invoke().startsWith(COMMON_THREAD), "nothing was claimed: it can still run");
    }

    @Test
    void offThePoolInvokeAllWaitsForAllAndReportsTheFirstFailure() {
        RuntimeException first = new RuntimeException("first");
        RuntimeException second = new RuntimeException("second");
        Task<Boolean> slow = Task.adapt(() -> {
            Thread.sleep(50);
            return true;
        });
        Task<Void> failsFirst = Task.adapt((Runnable) () -> {
            throw first;
        });
        Task<Void> failsSecond = Task.adapt((Runnable) () -> {
            throw second;
        });
        RuntimeException thrown = assertThrows(RuntimeException.class,
                () -> Task.invokeAll(slow, failsFirst, failsSecond));
        assertRethrown(first, thrown);
        assertTrue(slow.isDone(), "returned before every task was done");
        assertEquals(List.of(second), Arrays.asList(first.getSuppressed()));
    }

    @Test
    void joinAndGetFromOutsideStillNeedTheTaskStarted() {
        // Unchanged by the common pool: nothing forked it, so nothing will run it.
        Where never = new Where();
        assertThrows(IllegalStateException.class, never::join);
        assertThrows(IllegalStateException.class, never::get);
        assertFalse(never.isDone());
    }

    // ------------------------------------------------------------------ getPool, inWorkStealingPool

    @Test
    void getPoolAndInWorkStealingPoolAnswerForTheCallingThread() throws Exception {
        assertNull(Task.getPool(), "off any pool");
        assertFalse(Task.inWorkStealingPool());

        assertSame(pool, pool.invoke(Task.adapt(() -> Task.getPool())));
        assertEquals(Boolean.TRUE, pool.invoke(Task.adapt(() -> Task.inWorkStealingPool())));
        assertSame(pool, pool.submit(() -> Task.getPool()).get(HANG, TimeUnit.SECONDS), "in any task kind");

        WorkStealingPool other = WorkStealingPool.builder().parallelism(1).build();
        try {
            // A task of this pool that waits for one of the other pool: each sees its own.
            AtomicReference<WorkStealingPool> seenInOther = new AtomicReference<>();
            WorkStealingPool seenHere = pool.invoke(Task.adapt(() -> {
                other.invoke(Task.adapt(() -> {
                    seenInOther.set(Task.getPool());
                    return null;
                }));
                return Task.getPool();
            }));
            assertSame(pool, seenHere);
            assertSame(other, seenInOther.get());
        } finally {
            other.shutdown();
        }
        assertSame(WorkStealingPool.common(), WorkStealingPool.common().invoke(Task.adapt(() -> Task.getPool())));

        // Workers on threads of a user's ThreadFactory know their pool too.
        RecordingThreadFactory threads = new RecordingThreadFactory();
        WorkStealingPool custom = WorkStealingPool.builder().parallelism(1).threadFactory(threads).build();
        try {
            assertSame(custom, custom.invoke(Task.adapt(() -> Task.getPool())));
            assertEquals(Boolean.TRUE, custom.invoke(Task.adapt(() -> Task.inWorkStealingPool())));
        } finally {
            custom.shutdown();
        }
    }
}
