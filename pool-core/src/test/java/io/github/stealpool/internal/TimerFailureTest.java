package io.github.stealpool.internal;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The timer thread's failure and its place among the threads that end the pool (DelayScheduler,
 * rules 5 and 6), forced through {@link ShutdownProbe}'s timer points. Bounds detect hangs only; the
 * timer thread's death is uncaught on purpose, so Awaitility must not catch it.
 */
class TimerFailureTest {

    private static final long HANG = 30;

    /** A probe that, once {@link #fail} is set, fails the timer's loop and its letting go. */
    private static final class Failing implements ShutdownProbe {
        final AtomicBoolean fail = new AtomicBoolean();

        @Override
        public void timerTurn() {
            if (fail.get()) {
                throw new Error("test: the timer's loop fails");
            }
        }

        @Override
        public void timerLettingGo() {
            if (fail.get()) {
                throw new Error("test: and its clean-up fails too");
            }
        }
    }

    /**
     * The timer thread dies without letting go while the pool runs: a later schedule is refused
     * or cancelled (never left in the dead inbox), and {@code shutdown} takes over instead of
     * waiting forever for the policy.
     */
    @Test
    void aTimerThatDiesWithoutLettingGoIsTakenOverByShutdown() throws Exception {
        Failing probe = new Failing();
        Scheduler s = ProbedScheduler.start(1, "timer-dies", probe);
        DelayScheduler d = s.delays();
        DelayedTask<Integer> held = d.schedule(() -> 1, 1, TimeUnit.HOURS, null);
        probe.fail.set(true);
        // As below: wake the timer until it meets the failing probe (a lone wake-up may land
        // while it is still awake, and it would then park until the held task's deadline).
        await().dontCatchUncaughtExceptions().atMost(HANG, TimeUnit.SECONDS).until(() -> {
            d.wakeUp();
            return !d.thread.isAlive();
        });
        await().dontCatchUncaughtExceptions().atMost(HANG, TimeUnit.SECONDS).until(held::isDone);
        assertTrue(held.isCancelled());
        try {
            DelayedTask<Integer> late = d.schedule(() -> 2, 0, TimeUnit.MILLISECONDS, null);
            await().dontCatchUncaughtExceptions().atMost(HANG, TimeUnit.SECONDS).until(late::isDone);
            assertTrue(late.isCancelled(), "accepted after the failure: cancelled, never run");
        } catch (RejectedExecutionException expected) {
            // refused once the timer failed
        }
        CompletableFuture<Void> shutdown = CompletableFuture.runAsync(s::shutdown);
        shutdown.get(HANG, TimeUnit.SECONDS);
        assertTrue(s.awaitTermination(HANG, TimeUnit.SECONDS));
        assertFalse(s.delayHold);
        assertEquals(0, d.pending());
    }

    /**
     * The timer thread dies without letting go after {@code shutdown} returned, holding a
     * one-shot task: {@code awaitTermination} takes over (cancels the task, releases the hold).
     */
    @Test
    void aTimerThatDiesAfterShutdownIsTakenOverByAwaitTermination() throws Exception {
        Failing probe = new Failing();
        Scheduler s = ProbedScheduler.start(1, "timer-dies-late", probe);
        DelayScheduler d = s.delays();
        DelayedTask<Integer> held = d.schedule(() -> 1, 1, TimeUnit.HOURS, null);
        s.shutdown(); // applied: the one-shot task stays, and holds the pool
        assertFalse(held.isDone());
        probe.fail.set(true);
        // A wake-up that comes before the timer parks is no post it must see (it parks until
        // the held task's deadline): wake it until it meets the failing probe and dies.
        await().dontCatchUncaughtExceptions().atMost(HANG, TimeUnit.SECONDS).until(() -> {
            d.wakeUp();
            return !d.thread.isAlive();
        });
        assertTrue(s.awaitTermination(HANG, TimeUnit.SECONDS), "the hold is released");
        assertTrue(held.isCancelled());
        assertFalse(s.delayHold);
    }

    /**
     * The timer fails in the middle of a batch of due entries, with one polled out of the heap
     * and not yet handed over: it is still handed over and runs, and every other entry runs
     * or is cancelled; none is stranded between the heap and the queues.
     */
    @Test
    void aTimerThatFailsMidBatchStrandsNoEntry() throws Exception {
        for (int round = 0; round < 20; round++) {
            List<DelayedTask<Integer>> fs = new ArrayList<>();
            CountDownLatch scheduled = new CountDownLatch(1);
            List<DelayedTask<Integer>> polled = new ArrayList<>(); // read after the timer died
            AtomicBoolean failed = new AtomicBoolean();
            Scheduler s = new Scheduler(SchedulerConfig.basic(2, "timer-fails-mid-batch", 8, 0));
            s.probe = new ShutdownProbe() {
                @Override
                public void timerBatchBegun() {
                    if (failed.compareAndSet(false, true)) {
                        try {
                            scheduled.await(); // the list is complete, and published by the latch
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        for (DelayedTask<Integer> f : fs) {
                            if (f.heapIndex == DelayedTask.OUT && !f.isDone()) {
                                polled.add(f); // out of the heap, not yet handed over
                            }
                        }
                        throw new Error("test: the timer fails mid-batch");
                    }
                }
            };
            s.start();
            try {
                DelayScheduler d = s.delays();
                int tasks = 3 * DelayScheduler.HAND_OVER_BATCH;
                long due = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1);
                try {
                    for (int i = 0; i < tasks; i++) {
                        int k = i;
                        long delay = due - System.nanoTime();
                        fs.add(d.schedule(() -> k, delay, TimeUnit.NANOSECONDS, null));
                    }
                } finally {
                    scheduled.countDown(); // even if a schedule failed: the timer must not wait on
                }
                await().dontCatchUncaughtExceptions().atMost(HANG, TimeUnit.SECONDS)
                        .until(() -> fs.stream().allMatch(DelayedTask::isDone));
                await().dontCatchUncaughtExceptions().atMost(HANG, TimeUnit.SECONDS)
                        .until(() -> !d.thread.isAlive());
                assertEquals(1, polled.size(), "round " + round + ": setup, one entry in hand");
                assertFalse(polled.get(0).isCancelled(), "round " + round + ": the one in hand ran");
                assertEquals(0, d.pending(), "round " + round + ": each left the timer once");
            } finally {
                s.shutdownNow();
                assertTrue(s.awaitTermination(HANG, TimeUnit.SECONDS));
            }
        }
    }

    /**
     * The timer terminates the pool as it lets go (the last worker left first, under STOP), so
     * the termination actions run on the timer thread; one that calls awaitTermination must not
     * join its own thread.
     */
    @Test
    void awaitTerminationOnTheTimerThreadDoesNotJoinItself() throws Exception {
        AtomicReference<Scheduler> ref = new AtomicReference<>();
        Scheduler s = ProbedScheduler.start(1, "timer-terminates", new ShutdownProbe() {
            @Override
            public void timerLettingGo() {
                // Let the worker leave first: then the timer is the one that terminates.
                await().dontCatchUncaughtExceptions().atMost(HANG, TimeUnit.SECONDS).until(() -> ref.get().liveWorkers() == 0);
            }
        });
        ref.set(s);
        s.delays().schedule(() -> 1, 1, TimeUnit.HOURS, null);
        AtomicReference<String> thread = new AtomicReference<>();
        AtomicBoolean answer = new AtomicBoolean();
        CountDownLatch done = new CountDownLatch(1);
        s.terminationFuture().thenRun(() -> {
            thread.set(Thread.currentThread().getName());
            try {
                answer.set(s.awaitTermination(1, TimeUnit.HOURS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                done.countDown();
            }
        });
        s.shutdownNow();
        assertTrue(done.await(HANG, TimeUnit.SECONDS), "awaitTermination on the timer thread returned");
        assertEquals("timer-terminates-timer", thread.get(), "setup: the timer terminated the pool");
        assertTrue(answer.get());
    }
}
