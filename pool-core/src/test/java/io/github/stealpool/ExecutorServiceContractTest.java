package io.github.stealpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The {@link java.util.concurrent.ExecutorService} contract, method by method. */
class ExecutorServiceContractTest {

    private static final long HANG = 30; // seconds: a hang detector, not a speed claim

    private final RecordingThreadFactory threads = new RecordingThreadFactory();
    private final WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).threadFactory(threads).build();
    private final CountDownLatch gate = new CountDownLatch(1);

    @AfterEach
    void tearDown() throws Exception {
        gate.countDown();
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(HANG, TimeUnit.SECONDS));
        assertTrue(threads.allEnded(), "a pool thread outlived its pool");
    }

    /** Occupies every worker until {@link #gate} opens; returns when they are all busy. */
    private void blockAllWorkers() {
        CountDownLatch busy = new CountDownLatch(pool.parallelism());
        for (int i = 0; i < pool.parallelism(); i++) {
            pool.execute(() -> {
                busy.countDown();
                awaitGate();
            });
        }
        awaitLatch(busy);
    }

    /**
     * Waits for {@link #gate}, as a task that holds a worker. tearDown opens the gate, then calls
     * shutdownNow: a task released by the gate but not yet back from its await (or not yet in
     * it) may be interrupted on its way out. That is no failure, and it must not print one:
     * {@code execute}d tasks have no future, so an AssertionError from them reached the default
     * uncaught-exception handler and put a stack trace in the build's output. Interrupted while
     * the gate is still shut, it fails as before.
     */
    private void awaitGate() {
        try {
            if (!gate.await(HANG, TimeUnit.SECONDS)) {
                throw new AssertionError("gate never opened");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            if (gate.getCount() != 0) {
                throw new AssertionError("interrupted", e);
            }
            // Released, then interrupted by tearDown's shutdownNow: done, interrupt status kept.
        }
    }

    private static void awaitLatch(CountDownLatch latch) {
        try {
            if (!latch.await(HANG, TimeUnit.SECONDS)) {
                throw new AssertionError("latch never opened");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    // ------------------------------------------------------------------ execute / submit

    @Test
    void executeRunsTheTask() {
        CountDownLatch ran = new CountDownLatch(1);
        pool.execute(ran::countDown);
        awaitLatch(ran);
    }

    @Test
    void nullTasksAreRejectedWithNullPointerException() {
        assertEquals("command", assertThrows(NullPointerException.class, () -> pool.execute(null)).getMessage());
        assertThrows(NullPointerException.class, () -> pool.submit((Runnable) null));
        assertThrows(NullPointerException.class, () -> pool.submit((Runnable) null, "x"));
        assertThrows(NullPointerException.class, () -> pool.submit((Callable<String>) null));
        assertThrows(NullPointerException.class, () -> pool.invokeAll(null));
        assertThrows(NullPointerException.class, () -> pool.invokeAll(Arrays.asList(() -> 1, null)));
        assertThrows(NullPointerException.class, () -> pool.invokeAll(List.of(() -> 1), 1, null));
        assertThrows(NullPointerException.class, () -> pool.invokeAny(null));
        assertEquals("tasks[1] is null", assertThrows(NullPointerException.class,
                () -> pool.invokeAny(Arrays.asList(() -> 1, null))).getMessage());
        assertEquals("tasks[2] is null", assertThrows(NullPointerException.class,
                () -> pool.invokeAny(Arrays.asList(() -> 1, () -> 2, null), 1, TimeUnit.SECONDS)).getMessage());
        assertEquals("tasks[0] is null", assertThrows(NullPointerException.class,
                () -> pool.invokeAll(Arrays.asList(null, () -> 1), 1, TimeUnit.SECONDS)).getMessage());
        assertThrows(NullPointerException.class, () -> pool.invokeAny(List.of(() -> 1), 1, null));
        assertEquals("unit", assertThrows(NullPointerException.class, () -> pool.awaitTermination(1, null)).getMessage());
        assertFalse(pool.isShutdown(), "bad input must leave the pool as it was");
    }

    @Test
    void submitGivesFuturesWithResults() throws Exception {
        AtomicBoolean ran = new AtomicBoolean();
        Future<?> plain = pool.submit(() -> ran.set(true));
        Future<String> withResult = pool.submit(() -> { }, "done");
        Future<Integer> callable = pool.submit(() -> 6 * 7);
        assertEquals(null, plain.get(HANG, TimeUnit.SECONDS));
        assertTrue(ran.get());
        assertEquals("done", withResult.get(HANG, TimeUnit.SECONDS));
        assertEquals(42, callable.get(HANG, TimeUnit.SECONDS));
        assertTrue(callable.isDone());
        assertFalse(callable.isCancelled());
    }

    @Test
    void submitReportsTheTasksExceptionThroughTheFuture() {
        IllegalStateException boom = new IllegalStateException("boom");
        Future<Object> f = pool.submit(() -> {
            throw boom;
        });
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(HANG, TimeUnit.SECONDS));
        assertSame(boom, e.getCause());
    }

    @Test
    void cancelBeforeStartPreventsTheRun() throws Exception {
        blockAllWorkers();
        AtomicBoolean ran = new AtomicBoolean();
        Future<?> f = pool.submit(() -> ran.set(true));
        assertTrue(f.cancel(false));
        assertTrue(f.isCancelled());
        assertThrows(CancellationException.class, f::get);
        gate.countDown();
        // Whatever was queued behind it still runs, and the cancelled task does not.
        assertEquals(1, pool.submit(() -> 1).get(HANG, TimeUnit.SECONDS));
        assertFalse(ran.get());
    }

    @Test
    void cancelWithInterruptionInterruptsTheRunningTask() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        Future<?> f = pool.submit(() -> {
            started.countDown();
            try {
                Thread.sleep(TimeUnit.SECONDS.toMillis(HANG * 2));
            } catch (InterruptedException e) {
                interrupted.countDown();
            }
        });
        awaitLatch(started);
        assertTrue(f.cancel(true));
        awaitLatch(interrupted);
        assertEquals(2, pool.submit(() -> 2).get(HANG, TimeUnit.SECONDS));
    }

    // ------------------------------------------------------------------ invokeAll / invokeAny

    @Test
    void invokeAllReturnsEveryResultInOrder() throws Exception {
        List<Callable<Integer>> tasks = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            int n = i;
            tasks.add(() -> n * n);
        }
        List<Future<Integer>> results = pool.invokeAll(tasks);
        assertEquals(100, results.size());
        for (int i = 0; i < 100; i++) {
            assertTrue(results.get(i).isDone());
            assertEquals(i * i, results.get(i).get());
        }
    }

    @Test
    void invokeAllWithATimeoutCancelsWhatDidNotFinish() throws Exception {
        Callable<String> quick = () -> "quick";
        Callable<String> stuck = () -> {
            awaitGate();
            return "stuck";
        };
        List<Future<String>> results = pool.invokeAll(List.of(quick, stuck), 2, TimeUnit.SECONDS);
        assertEquals("quick", results.get(0).get());
        assertTrue(results.get(1).isCancelled());
    }

    @Test
    void invokeAnyReturnsASuccessfulResult() throws Exception {
        Callable<String> fails = () -> {
            throw new IllegalStateException("no");
        };
        assertEquals("yes", pool.invokeAny(List.of(fails, () -> "yes", fails)));
        assertEquals("yes", pool.invokeAny(List.of(fails, () -> "yes"), HANG, TimeUnit.SECONDS));
    }

    @Test
    void invokeAnyFailsWhenEveryTaskFails() {
        IllegalStateException boom = new IllegalStateException("no");
        Callable<String> fails = () -> {
            throw boom;
        };
        ExecutionException e = assertThrows(ExecutionException.class, () -> pool.invokeAny(List.of(fails, fails)));
        assertSame(boom, e.getCause());
        assertThrows(IllegalArgumentException.class, () -> pool.invokeAny(List.<Callable<String>>of()));
    }

    @Test
    void invokeAnyTimesOutWhenNothingFinishes() {
        Callable<String> stuck = () -> {
            awaitGate();
            return "late";
        };
        assertThrows(TimeoutException.class, () -> pool.invokeAny(List.of(stuck), 100, TimeUnit.MILLISECONDS));
    }

    // ------------------------------------------------------------------ shutdown

    @Test
    void shutdownRunsQueuedTasksAndRejectsNewOnes() throws Exception {
        blockAllWorkers();
        AtomicInteger ran = new AtomicInteger();
        for (int i = 0; i < 50; i++) {
            pool.execute(ran::incrementAndGet);
        }
        pool.shutdown();
        assertTrue(pool.isShutdown());
        assertFalse(pool.isTerminated(), "tasks are still running");
        RejectedExecutionException e = assertThrows(RejectedExecutionException.class, () -> pool.execute(() -> { }));
        assertTrue(e.getMessage().contains("shut down"), e.getMessage());
        assertThrows(RejectedExecutionException.class, () -> pool.submit(() -> 1));
        assertFalse(pool.awaitTermination(10, TimeUnit.MILLISECONDS));
        gate.countDown();
        assertTrue(pool.awaitTermination(HANG, TimeUnit.SECONDS));
        assertTrue(pool.isTerminated());
        assertEquals(50, ran.get());
        assertTrue(threads.allEnded());
        pool.shutdown(); // idempotent
        assertTrue(pool.shutdownNow().isEmpty());
    }

    @Test
    void shutdownOfAnIdlePoolTerminatesIt() throws Exception {
        await().atMost(Duration.ofSeconds(HANG)).until(() -> pool.sleepingWorkers() == pool.parallelism());
        pool.shutdown();
        assertTrue(pool.awaitTermination(HANG, TimeUnit.SECONDS));
        assertTrue(threads.allEnded());
    }

    @Test
    void tasksRunningAtShutdownMaySubmitNoMore() throws Exception {
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch proceed = new CountDownLatch(1);
        Future<Throwable> f = pool.submit(() -> {
            inside.countDown();
            awaitLatch(proceed);
            try {
                pool.execute(() -> { });
                return null;
            } catch (RejectedExecutionException e) {
                return e;
            }
        });
        awaitLatch(inside);
        pool.shutdown();
        proceed.countDown();
        assertInstanceOf(RejectedExecutionException.class, f.get(HANG, TimeUnit.SECONDS));
    }

    @Test
    void shutdownNowReturnsTheTasksThatNeverStartedAndInterruptsTheRunningOnes() throws Exception {
        CountDownLatch running = new CountDownLatch(2);
        CountDownLatch interrupted = new CountDownLatch(2);
        for (int i = 0; i < 2; i++) {
            pool.execute(() -> {
                running.countDown();
                try {
                    Thread.sleep(TimeUnit.SECONDS.toMillis(HANG * 2));
                } catch (InterruptedException e) {
                    interrupted.countDown();
                }
            });
        }
        awaitLatch(running);
        List<Runnable> queued = new ArrayList<>();
        AtomicInteger ran = new AtomicInteger();
        for (int i = 0; i < 20; i++) {
            Runnable r = ran::incrementAndGet;
            queued.add(r);
            pool.execute(r);
        }
        List<Runnable> never = pool.shutdownNow();
        awaitLatch(interrupted);
        assertTrue(pool.awaitTermination(HANG, TimeUnit.SECONDS));
        assertEquals(0, ran.get());
        assertEquals(queued.size(), never.size());
        assertTrue(identitySet(never).containsAll(identitySet(queued)));
        assertThrows(RejectedExecutionException.class, () -> pool.execute(() -> { }));
        assertTrue(threads.allEnded());
    }

    private static Collection<Object> identitySet(List<? extends Runnable> list) {
        java.util.Set<Object> s = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        s.addAll(list);
        return s;
    }

    @Test
    void awaitTerminationTimesOutWhileRunningAndIsInterruptible() throws Exception {
        assertFalse(pool.awaitTermination(0, TimeUnit.NANOSECONDS));
        assertFalse(pool.awaitTermination(-1, TimeUnit.SECONDS));
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> pool.awaitTermination(HANG, TimeUnit.SECONDS));
        assertFalse(Thread.interrupted());
    }

    @Test
    void closeWaitsForQueuedTasks() throws Exception {
        AtomicInteger ran = new AtomicInteger();
        for (int i = 0; i < 100; i++) {
            pool.execute(ran::incrementAndGet);
        }
        pool.close();
        assertTrue(pool.isTerminated());
        assertEquals(100, ran.get());
    }

    @Test
    void toStringDescribesTheState() {
        assertTrue(pool.toString().contains("Running"), pool.toString());
        assertTrue(pool.toString().contains("parallelism = 2"), pool.toString());
        pool.shutdown();
        await().atMost(Duration.ofSeconds(HANG)).until(pool::isTerminated);
        assertTrue(pool.toString().contains("Terminated"), pool.toString());
    }
}
