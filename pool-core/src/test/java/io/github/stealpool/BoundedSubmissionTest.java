package io.github.stealpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code Builder.maxQueuedSubmissions} and {@code saturationPolicy}: each policy at the bound
 * (filled deterministically: every worker held by a task blocked on a latch, then exactly
 * {@code max} tasks queued behind them), submissions from inside never refused, the permits back
 * to the bound after shutdown, shutdownNow and cancellation, bad input, and a stress test.
 * Awaitility only detects hangs; nothing here asserts a speed.
 */
class BoundedSubmissionTest {

    private static final Duration HANG = Duration.ofSeconds(30);
    private static final int BOUND = 3;

    private static WorkStealingPool pool(int parallelism, int bound, SaturationPolicy policy) {
        return WorkStealingPool.builder().parallelism(parallelism).maxQueuedSubmissions(bound)
                .saturationPolicy(policy).build();
    }

    /**
     * Holds every worker of {@code pool} on a task blocked until {@code release} opens, then
     * queues {@code BOUND} tasks that count {@code ran} (each first waiting for {@code queuedGate}),
     * so that the next outside submission meets the bound.
     */
    private static void fill(WorkStealingPool pool, CountDownLatch release, CountDownLatch queuedGate,
                             AtomicInteger ran) throws InterruptedException {
        int p = pool.parallelism();
        CountDownLatch holding = new CountDownLatch(p);
        for (int i = 0; i < p; i++) {
            pool.execute(() -> {
                holding.countDown();
                awaitQuietly(release);
            });
        }
        assertTrue(holding.await(HANG.toSeconds(), TimeUnit.SECONDS));
        for (int i = 0; i < BOUND; i++) {
            pool.execute(() -> {
                awaitQuietly(queuedGate);
                ran.incrementAndGet();
            });
        }
        assertEquals(0, pool.stats().queueRemaining(), () -> pool.stats().toString());
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            if (!latch.await(HANG.toSeconds(), TimeUnit.SECONDS)) {
                throw new AssertionError("latch never opened");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static CountDownLatch open() {
        return new CountDownLatch(0);
    }

    @Test
    void unboundedIsTheDefaultAndReportsNoBound() {
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).build()) {
            PoolStats s = pool.stats();
            assertEquals(Long.MAX_VALUE, s.queueRemaining());
            assertEquals(0, s.callerRunSubmissions());
            assertEquals(0, s.blockedSubmissions());
            assertFalse(s.toString().contains("bound:"), s::toString);
        }
    }

    @Test
    void abortRejectsAtTheBoundNamingItAndCountsTheRejection() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        AtomicInteger refusedRan = new AtomicInteger();
        try (WorkStealingPool pool = pool(2, BOUND, SaturationPolicy.ABORT)) {
            fill(pool, release, open(), ran);
            RejectedExecutionException e = assertThrows(RejectedExecutionException.class,
                    () -> pool.execute(refusedRan::incrementAndGet));
            assertTrue(e.getMessage().contains("maxQueuedSubmissions")
                    && e.getMessage().contains(String.valueOf(BOUND)), e.getMessage());
            assertThrows(RejectedExecutionException.class, () -> pool.submit(() -> 1));
            assertEquals(2, pool.stats().rejectedSubmissions());
            assertTrue(pool.stats().toString().contains("bound: remaining=0"), pool.stats()::toString);
            release.countDown();
            await().atMost(HANG).until(() -> ran.get() == BOUND);
            await().atMost(HANG).until(() -> pool.stats().queueRemaining() == BOUND);
            pool.execute(ran::incrementAndGet); // room again
            await().atMost(HANG).until(() -> ran.get() == BOUND + 1);
        }
        assertEquals(0, refusedRan.get());
    }

    @Test
    void callerRunsRunsTheTaskOnTheSubmittingThread() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        try (WorkStealingPool pool = pool(2, BOUND, SaturationPolicy.CALLER_RUNS)) {
            fill(pool, release, open(), ran);
            Thread me = Thread.currentThread();
            AtomicReference<Thread> runner = new AtomicReference<>();
            pool.execute(() -> runner.set(Thread.currentThread()));
            assertSame(me, runner.get()); // ran before execute returned
            Future<Thread> f = pool.submit(Thread::currentThread);
            assertTrue(f.isDone());
            assertSame(me, f.get());
            // A failure of an executed task reaches the caller, as with CallerRunsPolicy.
            IllegalStateException thrown = assertThrows(IllegalStateException.class,
                    () -> pool.execute(() -> {
                        throw new IllegalStateException("boom");
                    }));
            assertEquals("boom", thrown.getMessage());
            // A submitted one keeps it in its future.
            Future<?> failing = pool.submit(() -> {
                throw new IllegalStateException("kept");
            });
            assertInstanceOf(IllegalStateException.class,
                    assertThrows(ExecutionException.class, failing::get).getCause());
            PoolStats s = pool.stats();
            assertEquals(4, s.callerRunSubmissions(), s::toString);
            assertEquals(0, s.rejectedSubmissions(), s::toString);
            assertEquals(0, s.blockedSubmissions(), s::toString);
            release.countDown();
            await().atMost(HANG).until(() -> ran.get() == BOUND);
            await().atMost(HANG).until(() -> pool.stats().queueRemaining() == BOUND);
        }
    }

    @Test
    void callerRunsRejectsAfterShutdownInsteadOfRunning() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        AtomicInteger late = new AtomicInteger();
        try (WorkStealingPool pool = pool(1, BOUND, SaturationPolicy.CALLER_RUNS)) {
            fill(pool, release, open(), ran);
            pool.shutdown();
            assertThrows(RejectedExecutionException.class, () -> pool.execute(late::incrementAndGet));
            release.countDown();
            assertTrue(pool.awaitTermination(HANG.toSeconds(), TimeUnit.SECONDS));
            assertEquals(BOUND, ran.get());
            assertEquals(0, late.get());
            assertEquals(BOUND, pool.stats().queueRemaining()); // no permit leaked by shutdown
        }
    }

    @Test
    void callerRunsMakesATaskWaitForRoomAndRunOnAWorker() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        try (WorkStealingPool pool = pool(2, BOUND, SaturationPolicy.CALLER_RUNS)) {
            fill(pool, release, open(), ran);
            AtomicReference<Thread> runner = new AtomicReference<>();
            Task<Integer> task = new Task<>() {
                @Override
                protected Integer compute() {
                    runner.set(Thread.currentThread());
                    Task<Integer> child = Task.adapt(() -> 20);
                    child.fork();
                    return 22 + child.join();
                }
            };
            AtomicReference<Object> outcome = new AtomicReference<>();
            Thread submitter = new Thread(() -> outcome.set(pool.invoke(task)));
            submitter.start();
            await().atMost(HANG).until(() -> pool.stats().blockedSubmissions() == 1);
            assertTrue(submitter.isAlive());
            release.countDown();
            submitter.join(HANG.toMillis());
            assertFalse(submitter.isAlive());
            assertEquals(42, outcome.get());
            assertNotSame(submitter, runner.get());
            assertTrue(runner.get().getName().contains("worker"), runner.get().getName());
            assertEquals(0, pool.stats().callerRunSubmissions());
        }
    }

    @Test
    void blockWaitsForRoomAndGoesOnWhenAQueuedTaskStarts() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch queuedGate = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        try (WorkStealingPool pool = pool(1, BOUND, SaturationPolicy.BLOCK)) {
            fill(pool, release, queuedGate, ran);
            AtomicInteger blockedRan = new AtomicInteger();
            CountDownLatch submitted = new CountDownLatch(1);
            Thread submitter = new Thread(() -> {
                pool.execute(blockedRan::incrementAndGet);
                submitted.countDown();
            });
            submitter.start();
            await().atMost(HANG).until(() -> pool.stats().blockedSubmissions() == 1
                    && submitter.getState() == Thread.State.WAITING);
            assertEquals(1, submitted.getCount());
            // The worker finishes its task and takes the queued ones, the first of which starts
            // (and blocks on queuedGate): room frees up and the submitter goes on.
            release.countDown();
            assertTrue(submitted.await(HANG.toSeconds(), TimeUnit.SECONDS));
            assertEquals(0, ran.get());
            queuedGate.countDown();
            await().atMost(HANG).until(() -> ran.get() == BOUND && blockedRan.get() == 1);
            await().atMost(HANG).until(() -> pool.stats().queueRemaining() == BOUND);
            assertEquals(0, pool.stats().rejectedSubmissions());
        }
    }

    @Test
    void blockInterruptedWhileWaitingRejectsAndKeepsTheInterrupt() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        try (WorkStealingPool pool = pool(1, BOUND, SaturationPolicy.BLOCK)) {
            fill(pool, release, open(), ran);
            AtomicInteger refusedRan = new AtomicInteger();
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            AtomicReference<Boolean> interruptKept = new AtomicReference<>();
            Thread submitter = new Thread(() -> {
                try {
                    pool.execute(refusedRan::incrementAndGet);
                } catch (Throwable e) {
                    thrown.set(e);
                }
                interruptKept.set(Thread.currentThread().isInterrupted());
            });
            submitter.start();
            await().atMost(HANG).until(() -> submitter.getState() == Thread.State.WAITING
                    && pool.stats().blockedSubmissions() == 1);
            submitter.interrupt();
            submitter.join(HANG.toMillis());
            assertInstanceOf(RejectedExecutionException.class, thrown.get());
            assertInstanceOf(InterruptedException.class, thrown.get().getCause());
            assertTrue(interruptKept.get());
            assertEquals(1, pool.stats().rejectedSubmissions());

            // Interrupted before the call: still rejected at the bound, interrupt still set.
            Thread.currentThread().interrupt();
            try {
                assertThrows(RejectedExecutionException.class, () -> pool.execute(refusedRan::incrementAndGet));
                assertTrue(Thread.currentThread().isInterrupted());
            } finally {
                Thread.interrupted();
            }
            release.countDown();
            await().atMost(HANG).until(() -> ran.get() == BOUND);
            await().atMost(HANG).until(() -> pool.stats().queueRemaining() == BOUND);
            assertEquals(0, refusedRan.get());
        }
    }

    @Test
    void blockWithRoomQueuesEvenWhenInterrupted() throws Exception {
        try (WorkStealingPool pool = pool(1, BOUND, SaturationPolicy.BLOCK)) {
            Thread.currentThread().interrupt();
            Future<Integer> f;
            try {
                f = pool.submit(() -> 7); // room: no wait, so the interrupt does not refuse it
            } finally {
                assertTrue(Thread.interrupted());
            }
            assertEquals(7, f.get(HANG.toSeconds(), TimeUnit.SECONDS));
        }
    }

    @Test
    void aBlockedSubmitterIsRejectedByShutdownNowAndNoPermitLeaks() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        WorkStealingPool pool = pool(2, BOUND, SaturationPolicy.BLOCK);
        try {
            fill(pool, release, open(), ran);
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread submitter = new Thread(() -> {
                try {
                    pool.execute(() -> { });
                } catch (Throwable e) {
                    thrown.set(e);
                }
            });
            submitter.start();
            await().atMost(HANG).until(() -> submitter.getState() == Thread.State.WAITING);
            List<Runnable> never = pool.shutdownNow();
            submitter.join(HANG.toMillis());
            assertFalse(submitter.isAlive());
            assertInstanceOf(RejectedExecutionException.class, thrown.get());
            assertEquals(BOUND, never.size());
            assertTrue(pool.awaitTermination(HANG.toSeconds(), TimeUnit.SECONDS));
            assertEquals(BOUND, pool.stats().queueRemaining());
            assertEquals(0, ran.get());
        } finally {
            release.countDown();
            pool.shutdownNow();
        }
    }

    @Test
    void cancelledFuturesStillQueuedGiveTheirRoomBackWhenTaken() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        try (WorkStealingPool pool = pool(2, 2 * BOUND, SaturationPolicy.ABORT)) {
            int p = pool.parallelism();
            CountDownLatch holding = new CountDownLatch(p);
            for (int i = 0; i < p; i++) {
                pool.execute(() -> {
                    holding.countDown();
                    awaitQuietly(release);
                });
            }
            assertTrue(holding.await(HANG.toSeconds(), TimeUnit.SECONDS));
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < 2 * BOUND; i++) {
                futures.add(pool.submit(ran::incrementAndGet));
            }
            futures.forEach(f -> assertTrue(f.cancel(false)));
            // Still queued, so still counted, as in a ThreadPoolExecutor's queue.
            assertEquals(0, pool.stats().queueRemaining());
            release.countDown();
            await().atMost(HANG).until(() -> pool.stats().queueRemaining() == 2 * BOUND);
            assertEquals(0, ran.get());
        }
    }

    @Test
    void submissionsFromInsideThePoolAreNeverRefused() throws Exception {
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(1);
        AtomicInteger children = new AtomicInteger();
        AtomicInteger ran = new AtomicInteger();
        int n = 200;
        try (WorkStealingPool pool = pool(1, 1, SaturationPolicy.ABORT)) {
            Future<Long> parent = pool.submit(() -> {
                started.countDown();
                awaitQuietly(go);
                for (int i = 0; i < n; i++) {
                    pool.execute(children::incrementAndGet); // inside: never refused
                }
                List<Future<Integer>> futures = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    futures.add(pool.submit(() -> 1));
                }
                return fib(pool, 16) + futures.size(); // forks far beyond the bound
            });
            assertTrue(started.await(HANG.toSeconds(), TimeUnit.SECONDS));
            pool.execute(ran::incrementAndGet); // the one queued outside submission
            assertThrows(RejectedExecutionException.class, () -> pool.execute(ran::incrementAndGet));
            go.countDown();
            assertEquals(987 + n, parent.get(HANG.toSeconds(), TimeUnit.SECONDS));
            await().atMost(HANG).until(() -> children.get() == n && ran.get() == 1);
            assertEquals(1, pool.stats().rejectedSubmissions());
            await().atMost(HANG).until(() -> pool.stats().queueRemaining() == 1);
        }
    }

    private static long fib(WorkStealingPool pool, int n) {
        return pool.invoke(new Task<Long>() {
            @Override
            protected Long compute() {
                return fibTask(n);
            }
        });
    }

    private static long fibTask(int n) {
        if (n < 2) {
            return n;
        }
        Task<Long> left = Task.adapt(() -> fibTask(n - 1));
        left.fork();
        return fibTask(n - 2) + left.join();
    }

    @Test
    void invokeAllAndInvokeAnyFromOutsideWaitForRoomUnderBlock() throws Exception {
        try (WorkStealingPool pool = pool(1, 2, SaturationPolicy.BLOCK)) {
            List<Callable<Integer>> tasks = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                int v = i;
                tasks.add(() -> v);
            }
            List<Future<Integer>> futures = pool.invokeAll(tasks);
            for (int i = 0; i < 50; i++) {
                assertEquals(i, futures.get(i).get());
            }
            int any = pool.invokeAny(tasks);
            assertTrue(any >= 0 && any < 50);
            await().atMost(HANG).until(() -> pool.stats().queueRemaining() == 2);
        }
    }

    /**
     * Submitters racing shutdownNow at a small bound (the late submitters' sweeps put other
     * submitters' tasks back, taking room by force): every accepted task ran or came back
     * exactly once, and once every submitter has returned all the room is back.
     */
    @ParameterizedTest
    @EnumSource(value = SaturationPolicy.class, names = {"ABORT", "BLOCK"})
    void submittersRacingShutdownNowLeakNoRoom(SaturationPolicy policy) throws Exception {
        for (int round = 0; round < 150; round++) {
            WorkStealingPool pool = pool(2, 4, policy);
            AtomicInteger accepted = new AtomicInteger();
            AtomicInteger ran = new AtomicInteger();
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                Thread th = new Thread(() -> {
                    awaitQuietly(go);
                    while (true) {
                        try {
                            pool.execute(ran::incrementAndGet);
                            accepted.incrementAndGet();
                        } catch (RejectedExecutionException e) {
                            if (pool.isShutdown()) {
                                return;
                            }
                            Thread.onSpinWait(); // ABORT at the bound: again
                        }
                    }
                });
                threads.add(th);
                th.start();
            }
            go.countDown();
            Thread.yield();
            List<Runnable> never = pool.shutdownNow();
            for (Thread th : threads) {
                th.join(HANG.toMillis());
                assertFalse(th.isAlive());
            }
            assertTrue(pool.awaitTermination(HANG.toSeconds(), TimeUnit.SECONDS));
            assertEquals(accepted.get(), ran.get() + never.size(), "round " + round);
            assertEquals(4, pool.stats().queueRemaining(), "round " + round);
        }
    }

    @Test
    void badInputIsRefusedByName() {
        WorkStealingPool.Builder b = WorkStealingPool.builder();
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class,
                () -> b.maxQueuedSubmissions(0));
        assertTrue(zero.getMessage().contains("maxQueuedSubmissions"), zero.getMessage());
        assertThrows(IllegalArgumentException.class, () -> b.maxQueuedSubmissions(-1));
        assertThrows(IllegalArgumentException.class, () -> b.maxQueuedSubmissions(Integer.MIN_VALUE));
        NullPointerException npe = assertThrows(NullPointerException.class, () -> b.saturationPolicy(null));
        assertEquals("saturationPolicy", npe.getMessage());
        try (WorkStealingPool pool = b.parallelism(1).build()) { // the builder is unchanged
            assertEquals(Long.MAX_VALUE, pool.stats().queueRemaining());
        }
    }

    /**
     * Four outside submitters and some inside submissions against a small bound, under each
     * policy (ABORT's submitters retry until accepted): every task runs exactly once, the
     * outside tasks accepted and not yet started never exceed the documented slack (the bound
     * plus 63 per worker, plus what the measurement itself blurs: one per submitter between its
     * count and its call, one per worker between starting a task and counting it), and all the
     * room is back at the end. Each start reads {@code attempted} before it counts itself, so the
     * figure is never above the true one at the moment of that read, however long the thread is
     * held up between the two.
     */
    @ParameterizedTest
    @EnumSource(SaturationPolicy.class)
    void manySubmittersRunEveryTaskOnceWithinTheDocumentedSlack(SaturationPolicy policy) throws Exception {
        int parallelism = 3;
        int bound = 8;
        int submitters = 4;
        int perSubmitter = 5_000;
        int total = submitters * perSubmitter;
        AtomicIntegerArray runs = new AtomicIntegerArray(total + total / 16 + 1);
        AtomicLong attempted = new AtomicLong();
        AtomicLong started = new AtomicLong();
        AtomicLong worst = new AtomicLong();
        AtomicInteger insideIds = new AtomicInteger(total);
        AtomicInteger finished = new AtomicInteger();
        try (WorkStealingPool pool = pool(parallelism, bound, policy)) {
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < submitters; t++) {
                int base = t * perSubmitter;
                Thread th = new Thread(() -> {
                    for (int i = 0; i < perSubmitter; i++) {
                        int id = base + i;
                        Runnable task = () -> {
                            // attempted first, then the start: a - s is then at most the
                            // count at the moment of the read, and a delay between the two
                            // only lowers it. The other order (start, then attempted) adds
                            // every task accepted while this thread was held up between the
                            // two: preempted there on a busy machine, it read 700 to 5,000.
                            long a = attempted.get();
                            long s = started.incrementAndGet();
                            worst.accumulateAndGet(a - s, Math::max);
                            runs.incrementAndGet(id);
                            if (id % 16 == 0) { // an inside submission: never refused
                                int child = insideIds.getAndIncrement();
                                pool.execute(() -> {
                                    runs.incrementAndGet(child);
                                    finished.incrementAndGet();
                                });
                            }
                            finished.incrementAndGet();
                        };
                        attempted.incrementAndGet();
                        while (true) {
                            try {
                                pool.execute(task);
                                break;
                            } catch (RejectedExecutionException e) {
                                Thread.onSpinWait(); // ABORT: try again
                            }
                        }
                    }
                });
                threads.add(th);
                th.start();
            }
            for (Thread th : threads) {
                th.join(HANG.toMillis() * 4);
                assertFalse(th.isAlive());
            }
            int expected = total + (total + 15) / 16;
            await().atMost(HANG).until(() -> finished.get() == expected);
            for (int i = 0; i < expected; i++) {
                assertEquals(1, runs.get(i), "task " + i);
            }
            long slack = bound + 63L * parallelism + submitters + parallelism;
            assertTrue(worst.get() <= slack, "accepted and not started reached " + worst.get()
                    + ", more than " + slack);
            await().atMost(HANG).until(() -> pool.stats().queueRemaining() == bound);
        }
    }
}
