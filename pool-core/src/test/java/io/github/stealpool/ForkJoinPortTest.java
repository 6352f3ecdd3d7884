package io.github.stealpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What code written for {@code ForkJoinPool} and {@code RecursiveTask} uses beyond fork and join,
 * with its meaning there: the queued and surplus task counts, {@code reinitialize()}, the pool's
 * quiescence queries and {@code isTerminating()}.
 */
class ForkJoinPortTest {

    private static final long HANG = 30; // seconds: a hang detector, not a speed claim

    private final List<WorkStealingPool> pools = new ArrayList<>();

    private WorkStealingPool pool(int parallelism) {
        WorkStealingPool p = WorkStealingPool.builder().parallelism(parallelism).build();
        pools.add(p);
        return p;
    }

    @AfterEach
    void close() throws InterruptedException {
        for (WorkStealingPool p : pools) {
            p.shutdownNow();
            assertTrue(p.awaitTermination(HANG, TimeUnit.SECONDS));
        }
    }

    private static Task<Integer> constant(int value) {
        return Task.adapt(() -> value);
    }

    // ------------------------------------------------------------------ queued and surplus counts

    @Test
    void queuedTaskCountCountsTheCallersForksNotYetTaken() {
        WorkStealingPool one = pool(1); // nobody to steal them
        List<Integer> seen = one.invoke(Task.adapt(() -> {
            List<Integer> counts = new ArrayList<>();
            counts.add(Task.getQueuedTaskCount());
            Task<Integer> a = constant(1).fork();
            Task<Integer> b = constant(2).fork();
            Task<Integer> c = constant(3).fork();
            counts.add(Task.getQueuedTaskCount());
            counts.add(Task.getSurplusQueuedTaskCount()); // one worker, awake: no reserve
            c.join();
            counts.add(Task.getQueuedTaskCount());
            b.join();
            a.join();
            counts.add(Task.getQueuedTaskCount());
            return counts;
        }));
        assertEquals(List.of(0, 3, 3, 2, 0), seen);
        // Off any pool there is no deque: 0, as ForkJoinTask answers off a ForkJoinPool.
        assertEquals(0, Task.getQueuedTaskCount());
        assertEquals(0, Task.getSurplusQueuedTaskCount());
    }

    @Test
    void theSurplusKeepsAReserveForSleepingWorkers() throws Exception {
        // Four workers, three of them parked while one task looks: the task keeps a reserve of 2
        // (awake 1 of 4: not more than a quarter, more than an eighth), as ForkJoinPool does.
        WorkStealingPool four = pool(4);
        CountDownLatch measured = new CountDownLatch(1);
        AtomicInteger surplus = new AtomicInteger(Integer.MIN_VALUE);
        CountDownLatch inTask = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        four.execute(() -> {
            inTask.countDown();
            awaitQuietly(go);
            surplus.set(Task.getSurplusQueuedTaskCount()); // nothing queued: 0 - 2
            measured.countDown();
        });
        assertTrue(inTask.await(HANG, TimeUnit.SECONDS));
        await().atMost(Duration.ofSeconds(HANG)).until(() -> four.stats().parkedWorkers() == 3);
        go.countDown();
        assertTrue(measured.await(HANG, TimeUnit.SECONDS));
        assertEquals(-2, surplus.get());
    }

    @Test
    void aRecursionSplitByTheSurplusComputesTheSameSum() {
        WorkStealingPool p = pool(2);
        long n = 1_000_000;
        assertEquals(n * (n - 1) / 2, (long) p.invoke(new SurplusSum(0, n)));
    }

    /** The idiom getSurplusQueuedTaskCount exists for: split while the surplus is small. */
    private static final class SurplusSum extends Task<Long> {
        private final long lo;
        private final long hi;

        SurplusSum(long lo, long hi) {
            this.lo = lo;
            this.hi = hi;
        }

        @Override
        protected Long compute() {
            if (hi - lo > 1_000 && getSurplusQueuedTaskCount() <= 3) {
                long mid = (lo + hi) >>> 1;
                SurplusSum left = new SurplusSum(lo, mid);
                left.fork();
                return new SurplusSum(mid, hi).compute() + left.join();
            }
            long s = 0;
            for (long i = lo; i < hi; i++) {
                s += i;
            }
            return s;
        }
    }

    // ------------------------------------------------------------------ reinitialize

    @Test
    void aReinitializedTaskRunsAgainAndGivesItsNewResult() {
        WorkStealingPool p = pool(2);
        AtomicInteger runs = new AtomicInteger();
        Task<Integer> t = Task.adapt(runs::incrementAndGet);
        assertEquals(1, p.invoke(t));
        assertThrows(IllegalStateException.class, () -> p.invoke(t)); // a Task runs once...
        t.reinitialize(); // ...until reinitialized, as ForkJoinTask
        assertFalse(t.isDone());
        assertEquals(2, p.invoke(t));
        // Inside a task, forked and joined again, as iterative ForkJoinTask code reuses tasks.
        int last = p.invoke(Task.adapt(() -> {
            int r = 0;
            for (int i = 0; i < 3; i++) {
                t.reinitialize();
                t.fork();
                r = t.join();
            }
            return r;
        }));
        assertEquals(5, last);
        assertEquals(5, runs.get());
        // A cancelled or failed task comes back as new too.
        t.reinitialize();
        assertTrue(t.cancel(false));
        t.reinitialize();
        assertFalse(t.isCancelled());
        assertEquals(6, p.invoke(t));
    }

    @Test
    void aTaskCancelledWhileQueuedIsReinitializedOnlyOnceItsEntryIsGone() throws Exception {
        WorkStealingPool p = pool(1);
        AtomicInteger runs = new AtomicInteger();
        Task<Integer> t = Task.adapt(runs::incrementAndGet);
        // On a worker, its own fork still at the bottom of the deque is taken back.
        int r = p.invoke(Task.adapt(() -> {
            t.fork();
            t.cancel(false);
            t.reinitialize(); // takes the entry back
            t.fork();
            return t.join();
        }));
        assertEquals(1, r);
        // From outside, its entry is in the pool's queue behind a blocked task: refused.
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(1);
        p.execute(() -> {
            started.countDown();
            awaitQuietly(release);
        });
        assertTrue(started.await(HANG, TimeUnit.SECONDS));
        t.reinitialize();
        p.submit(t);
        assertTrue(t.cancel(false));
        IllegalStateException e = assertThrows(IllegalStateException.class, t::reinitialize);
        assertTrue(e.getMessage().contains("still queued"), e.getMessage());
        release.countDown();
        assertTrue(p.awaitQuiescence(HANG, TimeUnit.SECONDS)); // the entry came out, did nothing
        assertEquals(1, runs.get());
        t.reinitialize();
        assertEquals(2, p.invoke(t));
        assertEquals(2, runs.get());
    }

    @Test
    void reinitializingAPendingTaskIsRefused() throws Exception {
        WorkStealingPool p = pool(1);
        CountDownLatch release = new CountDownLatch(1);
        Task<Integer> blocked = Task.adapt(() -> {
            awaitQuietly(release);
            return 1;
        });
        p.submit(blocked);
        IllegalStateException e = assertThrows(IllegalStateException.class, blocked::reinitialize);
        assertTrue(e.getMessage().contains("reinitialize()"), e.getMessage());
        release.countDown();
        assertEquals(1, blocked.get(HANG, TimeUnit.SECONDS));
    }

    // ------------------------------------------------------------------ the pool's state

    @Test
    void isTerminatingHoldsFromShutdownUntilTermination() throws Exception {
        WorkStealingPool p = pool(1);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        assertFalse(p.isTerminating());
        p.execute(() -> {
            started.countDown();
            awaitQuietly(release);
        });
        assertTrue(started.await(HANG, TimeUnit.SECONDS));
        p.shutdown();
        assertTrue(p.isTerminating());
        assertFalse(p.isTerminated());
        release.countDown();
        assertTrue(p.awaitTermination(HANG, TimeUnit.SECONDS));
        assertFalse(p.isTerminating());
        assertTrue(p.isTerminated());
        assertFalse(WorkStealingPool.common().isTerminating());
    }

    @Test
    void aPoolWithARunningTaskIsNotQuiescentAndOneThatRanEverythingIs() throws Exception {
        WorkStealingPool p = pool(2);
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        p.execute(() -> {
            started.countDown();
            awaitQuietly(release);
        });
        assertTrue(started.await(HANG, TimeUnit.SECONDS));
        assertFalse(p.isQuiescent());
        // The task is blocked until released: the wait cannot end quiescent.
        assertFalse(p.awaitQuiescence(10, TimeUnit.MILLISECONDS));
        release.countDown();
        assertTrue(p.awaitQuiescence(HANG, TimeUnit.SECONDS));
        assertTrue(p.isQuiescent());
        assertEquals(1, p.stats().completedTasks());
        assertThrows(NullPointerException.class, () -> p.awaitQuiescence(1, null));
    }

    @Test
    void awaitQuiescenceInsideATaskRunsEveryForkFirst() {
        WorkStealingPool p = pool(2);
        AtomicInteger ran = new AtomicInteger();
        boolean quiescent = p.invoke(Task.adapt(() -> {
            for (int i = 0; i < 100; i++) {
                Task.adapt((Runnable) ran::incrementAndGet).fork(); // never joined
            }
            return p.awaitQuiescence(HANG, TimeUnit.SECONDS);
        }));
        assertTrue(quiescent);
        assertEquals(100, ran.get());
    }

    @Test
    void awaitQuiescenceInsideATaskGivesUpWhenTheTimeRunsOut() throws Exception {
        // As JDK 19's helpQuiesce(timeout): a worker busy for good (a server loop) must not
        // hold a timed call forever.
        WorkStealingPool p = pool(2);
        CountDownLatch busy = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        p.execute(() -> {
            busy.countDown();
            awaitQuietly(release);
        });
        assertTrue(busy.await(HANG, TimeUnit.SECONDS));
        boolean quiescent = p.invoke(Task.adapt(() -> p.awaitQuiescence(10, TimeUnit.MILLISECONDS)));
        assertFalse(quiescent);
        release.countDown();
        assertTrue(p.awaitQuiescence(HANG, TimeUnit.SECONDS));
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
