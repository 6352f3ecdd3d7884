package io.github.stealpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.stealpool.ForkJoinTest.Fib;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/**
 * {@link WorkStealingPool#addTaskTimingListener}: which tasks are timed, what the figures mean,
 * and that timing changes nothing else (a task's failure, shutdownNow's list, the race of
 * submitters with shutdownNow).
 *
 * <p>A submitting thread's tasks are all timed when they come at least
 * {@link TaskTimingListener#SAMPLE_GAP_MICROS} apart, so the tests that count samples submit
 * with a pause of {@link #SPACING} between tasks: a lower bound that sleeping guarantees, not a
 * timing assumption.
 */
class TaskTimingTest {

    private static final Duration HANG = Duration.ofSeconds(30); // a hang detector
    private static final long SPACING_MILLIS = 2; // 40 times the sample gap
    private static final Duration SPACING = Duration.ofMillis(SPACING_MILLIS);

    /** The samples a listener heard, in order. */
    private static final class Samples implements TaskTimingListener {
        final ConcurrentLinkedQueue<long[]> heard = new ConcurrentLinkedQueue<>();

        @Override
        public void taskTimed(long queuedNanos, long runNanos) {
            heard.add(new long[] {queuedNanos, runNanos});
        }

        int count() {
            return heard.size();
        }

        void awaitCount(int n) {
            await().atMost(HANG).until(() -> heard.size() >= n);
        }
    }

    private static WorkStealingPool pool(int parallelism) {
        return WorkStealingPool.builder().parallelism(parallelism).threadNamePrefix("timing").build();
    }

    /** Shuts the pool down and waits: every sample it will ever report has been reported. */
    private static void drain(WorkStealingPool pool) throws InterruptedException {
        pool.shutdown();
        assertTrue(pool.awaitTermination(HANG.toSeconds(), TimeUnit.SECONDS));
    }

    private static void pause() throws InterruptedException {
        Thread.sleep(SPACING_MILLIS);
    }

    /** Occupies the pool's only worker until released; submitted before any listener is added. */
    private static CountDownLatch occupy(WorkStealingPool pool) throws InterruptedException {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch running = new CountDownLatch(1);
        pool.execute(() -> {
            running.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertTrue(running.await(HANG.toSeconds(), TimeUnit.SECONDS));
        return release;
    }

    @Test
    void tasksSubmittedSlowerThanTheSampleGapAreAllTimedWithTheirRunTime() throws Exception {
        try (WorkStealingPool pool = pool(2)) {
            Samples samples = new Samples();
            pool.addTaskTimingListener(samples);
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                futures.add(pool.submit(() -> {
                    Thread.sleep(SPACING_MILLIS);
                    return null;
                }));
                pause();
            }
            for (Future<?> f : futures) {
                f.get(HANG.toSeconds(), TimeUnit.SECONDS);
            }
            drain(pool); // told after the run, so maybe after get() returned
            assertEquals(20, samples.count());
            for (long[] s : samples.heard) {
                assertTrue(s[0] >= 0, "queued " + s[0]);
                assertTrue(s[1] >= SPACING.toNanos(), "ran " + s[1] + " ns, slept " + SPACING);
            }
        }
    }

    @Test
    void theQueuedTimeCoversTheWaitBehindABusyWorker() throws Exception {
        try (WorkStealingPool pool = pool(1)) {
            CountDownLatch release = occupy(pool);
            Samples samples = new Samples();
            pool.addTaskTimingListener(samples);
            CountDownLatch ran = new CountDownLatch(1);
            long before = System.nanoTime();
            pool.execute(ran::countDown); // the first submission since the listener came: timed
            Thread.sleep(20);
            release.countDown();
            assertTrue(ran.await(HANG.toSeconds(), TimeUnit.SECONDS));
            long after = System.nanoTime(); // the task started before this: its queued time ends earlier
            samples.awaitCount(1);
            long[] s = samples.heard.peek();
            assertTrue(s[0] >= 20_000_000L, "queued " + s[0] + " ns, held 20 ms");
            // Stamped after `before`, started before `after`: an order, not a speed.
            assertTrue(s[0] <= after - before, "queued " + s[0] + " ns, longer than the whole wait");
        }
    }

    @Test
    void tasksAWorkerSubmitsAreTimedToo() throws Exception {
        try (WorkStealingPool pool = pool(2)) {
            Samples samples = new Samples();
            pool.addTaskTimingListener(samples);
            LongAdder ran = new LongAdder();
            Future<?> parent = pool.submit(() -> {
                for (int i = 0; i < 5; i++) {
                    pool.execute(ran::increment); // a worker's own submission: its own sampler
                    pause();
                }
                return null;
            });
            parent.get(HANG.toSeconds(), TimeUnit.SECONDS);
            drain(pool);
            assertEquals(5, ran.sum());
            assertEquals(6, samples.count());
        }
    }

    @Test
    void forkJoinPiecesAreNeverTimed() throws Exception {
        try (WorkStealingPool pool = pool(1)) {
            Samples samples = new Samples();
            pool.addTaskTimingListener(samples);
            assertEquals(610L, pool.invoke(new Fib(15))); // a Task from outside, and its forks
            Task<Long> submitted = new Fib(10);
            pool.submit(submitted);
            assertEquals(55L, submitted.get(HANG.toSeconds(), TimeUnit.SECONDS));
            pause();
            // One worker runs everything in turn: when the plain task's sample arrives, any the
            // Tasks could have caused came first.
            pool.execute(() -> { });
            drain(pool);
            assertEquals(1, samples.count());
        }
    }

    @Test
    void aFutureCancelledBeforeItRanIsNotTimed() throws Exception {
        try (WorkStealingPool pool = pool(1)) {
            CountDownLatch release = occupy(pool);
            Samples samples = new Samples();
            pool.addTaskTimingListener(samples);
            Future<?> cancelled = pool.submit(() -> { });
            pause();
            pool.execute(() -> { }); // runs after the cancelled one, on the only worker
            assertTrue(cancelled.cancel(false));
            release.countDown();
            drain(pool);
            assertEquals(1, samples.count());
        }
    }

    @Test
    void shutdownNowHandsBackTheTasksAsSubmittedNotTheirTimers() throws Exception {
        WorkStealingPool pool = pool(1);
        CountDownLatch release = occupy(pool);
        pool.addTaskTimingListener(new Samples());
        List<Object> submitted = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Runnable r = () -> { };
            pool.execute(r); // each timed (see the class comment)
            submitted.add(r);
            pause();
            submitted.add(pool.submit(() -> 1));
            pause();
        }
        List<Runnable> returned = pool.shutdownNow();
        release.countDown();
        assertEquals(submitted.size(), returned.size(), returned::toString);
        for (int i = 0; i < submitted.size(); i++) {
            assertSame(submitted.get(i), returned.get(i));
        }
        assertTrue(pool.awaitTermination(HANG.toSeconds(), TimeUnit.SECONDS));
    }

    /** The listener's failure is logged (slf4j-simple: stderr, captured). */
    @Test
    void aListenerThatThrowsHidesNeitherTheTasksOutcomeNorTheOtherListeners() throws Exception {
        String text = StandardError.of(this::aListenerThrows);
        assertTrue(text.contains("WARN io.github.stealpool.internal.TaskTimer - task timing listener "), text);
        assertTrue(text.contains("the task's outcome is unaffected"), text);
        assertTrue(text.contains("java.lang.IllegalStateException: expected in this test: the listener fails"), text);
    }

    private void aListenerThrows() throws Exception {
        AtomicReference<Throwable> reported = new AtomicReference<>();
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1)
                .uncaughtExceptionHandler((t, e) -> reported.set(e)).build()) {
            pool.addTaskTimingListener((q, r) -> {
                throw new IllegalStateException("expected in this test: the listener fails");
            });
            Samples second = new Samples();
            pool.addTaskTimingListener(second);
            Future<Integer> value = pool.submit(() -> 42);
            pause();
            RuntimeException boom = new RuntimeException("task failure");
            pool.execute(() -> {
                throw boom;
            });
            assertEquals(42, value.get(HANG.toSeconds(), TimeUnit.SECONDS));
            second.awaitCount(2);
            await().atMost(HANG).until(() -> reported.get() != null);
            assertSame(boom, reported.get());
            assertEquals(1, pool.stats().failedTasks());
        }
    }

    @Test
    void removingAListenerStopsItsSamplesAndOnlyItsOwn() throws Exception {
        try (WorkStealingPool pool = pool(1)) {
            Samples removed = new Samples();
            Samples kept = new Samples();
            pool.addTaskTimingListener(removed);
            pool.addTaskTimingListener(kept);
            assertTrue(pool.removeTaskTimingListener(removed));
            assertFalse(pool.removeTaskTimingListener(removed));
            for (int i = 0; i < 3; i++) {
                pool.execute(() -> { });
                pause();
            }
            assertTrue(pool.removeTaskTimingListener(kept));
            assertFalse(pool.removeTaskTimingListener(kept));
            drain(pool);
            assertEquals(3, kept.count());
            assertEquals(0, removed.count());
        }
    }

    @Test
    void aNullListenerIsRefusedByName() {
        try (WorkStealingPool pool = pool(1)) {
            NullPointerException add = assertThrows(NullPointerException.class, () -> pool.addTaskTimingListener(null));
            assertEquals("listener", add.getMessage());
            NullPointerException remove = assertThrows(NullPointerException.class,
                    () -> pool.removeTaskTimingListener(null));
            assertEquals("listener", remove.getMessage());
        }
    }

    /** The listener's Error is logged and dropped: the failure handler and the count see the task's failure only. */
    @Test
    void aListenersErrorIsNeitherReportedNorCountedAsTheTasksFailure() throws Exception {
        String text = StandardError.of(() -> {
            List<Throwable> reported = new java.util.concurrent.CopyOnWriteArrayList<>();
            WorkStealingPool pool = WorkStealingPool.builder().parallelism(1)
                    .uncaughtExceptionHandler((t, e) -> reported.add(e)).build();
            pool.addTaskTimingListener((q, r) -> {
                throw new AssertionError("expected in this test: the listener's own error");
            });
            Future<Integer> ok = pool.submit(() -> 42);
            pause();
            RuntimeException boom = new RuntimeException("expected in this test: the task's failure");
            pool.execute(() -> {
                throw boom;
            });
            assertEquals(42, ok.get(HANG.toSeconds(), TimeUnit.SECONDS));
            drain(pool);
            assertEquals(List.of(boom), reported);
            assertEquals(1, pool.stats().failedTasks());
        });
        // Two failures, one warning: the second came within the minute.
        assertEquals(1, text.split("WARN io.github.stealpool.internal.TaskTimer", -1).length - 1, text);
        assertTrue(text.contains("java.lang.AssertionError: expected in this test: the listener's own error"), text);
    }

    /**
     * After a fast burst the count is long; the pool going idle cuts it short, so tasks
     * submitted slowly after a quiet spell are all timed again, the first one included.
     */
    @Test
    void tasksSubmittedSlowlyAfterABurstAndAQuietSpellAreAllTimed() throws Exception {
        WorkStealingPool pool = pool(1);
        Samples samples = new Samples();
        pool.addTaskTimingListener(samples);
        for (int i = 0; i < 200_000; i++) {
            pool.execute(() -> { });
        }
        CountDownLatch drained = new CountDownLatch(1);
        pool.execute(drained::countDown);
        assertTrue(drained.await(HANG.toSeconds(), TimeUnit.SECONDS));
        await().atMost(HANG).until(() -> pool.stats().parkedWorkers() == 1); // idle
        int before = samples.count();
        for (int i = 0; i < 20; i++) {
            pool.execute(() -> { });
            pause();
        }
        drain(pool);
        assertEquals(20, samples.count() - before);
    }

    /** A worker's get() on a task it just submitted runs it, timed or not, even if interrupted. */
    @Test
    void getOnAWorkerRunsItsOwnSubmissionWithTimingOnAsOff() throws Exception {
        for (boolean timing : new boolean[] {false, true}) {
            try (WorkStealingPool pool = pool(1)) {
                Samples samples = new Samples();
                if (timing) {
                    pool.addTaskTimingListener(samples);
                }
                Future<Object> outer = pool.submit(() -> {
                    Future<Integer> inner = pool.submit(() -> 7); // the worker's first: timed
                    Thread.currentThread().interrupt();
                    try {
                        return inner.get();
                    } catch (InterruptedException e) {
                        return "InterruptedException";
                    } finally {
                        Thread.interrupted();
                    }
                });
                assertEquals(7, outer.get(HANG.toSeconds(), TimeUnit.SECONDS), "timing " + timing);
                drain(pool);
                assertEquals(timing ? 2 : 0, samples.count());
            }
        }
    }

    /**
     * PoolStatsTest's race of three producers with shutdownNow, with timing on: every accepted
     * task runs or comes back, exactly once, as itself. A fresh pool's samplers time each
     * producer's first tasks, so timed wrappers are in the queues when the race happens.
     */
    @Test
    void submittersRacingShutdownNowLoseNothingWithTimingOn() throws Exception {
        for (int round = 0; round < 200; round++) {
            WorkStealingPool pool = pool(2);
            pool.addTaskTimingListener(new Samples());
            int producers = 3;
            Set<Runnable> accepted = Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));
            Set<Runnable> ran = Collections.synchronizedSet(Collections.newSetFromMap(new IdentityHashMap<>()));
            CountDownLatch started = new CountDownLatch(producers + 1);
            Runnable producer = () -> {
                started.countDown();
                try {
                    for (;;) {
                        Runnable[] self = new Runnable[1];
                        self[0] = () -> assertTrue(ran.add(self[0]), "ran twice");
                        pool.execute(self[0]);
                        accepted.add(self[0]);
                    }
                } catch (RejectedExecutionException expected) {
                    // the pool stopped
                }
            };
            List<Thread> threads = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                Thread t = new Thread(producer);
                t.start();
                threads.add(t);
            }
            pool.execute(producer); // a worker submitting too (its own sampler and deque), until refused
            started.await();
            Thread.sleep(round % 5); // stop at varied moments
            List<Runnable> returned = pool.shutdownNow();
            for (Thread t : threads) {
                t.join(HANG.toMillis());
                assertFalse(t.isAlive());
            }
            assertTrue(pool.awaitTermination(HANG.toSeconds(), TimeUnit.SECONDS));
            assertEquals(0, pool.stats().failedTasks());
            Set<Runnable> all = Collections.newSetFromMap(new IdentityHashMap<>());
            all.addAll(ran);
            for (Runnable r : returned) {
                assertTrue(accepted.contains(r), () -> "returned, never accepted as such: " + r);
                assertTrue(all.add(r), () -> "returned and ran, or returned twice: " + r);
            }
            assertEquals(accepted.size(), all.size(), "round " + round);
        }
    }
}
