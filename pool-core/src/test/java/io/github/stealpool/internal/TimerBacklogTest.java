package io.github.stealpool.internal;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * A storm of offers to the delay timer (DelayScheduler, "A storm of offers"): a schedule waits
 * while its stripe of the inbox holds more than the limit, and goes on once the timer takes it
 * in; an interrupted one does not wait; and a storm of schedules and cancels from many threads
 * keeps the timer neither from its due entries nor from emptying its inbox. The timer is held
 * through {@link ShutdownProbe#timerTurn}. Bounds detect hangs only.
 */
class TimerBacklogTest {

    private static final long HANG = 30;
    private static final int LIMIT = (int) DelayScheduler.BACKLOG_LIMIT;

    /** Holds the timer at the top of its first turn until {@link #release}. */
    private static final class Holding implements ShutdownProbe {
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public void timerTurn() {
            try {
                release.await();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }

    /**
     * With the timer held before it takes anything in, one thread's schedules fill its stripe:
     * the one past the limit is accepted and waits, parked on the timer; once the timer runs,
     * it takes the stripe in and the thread goes on.
     */
    @Test
    void aScheduleWaitsWhileItsStripeIsFullAndGoesOnOnceTheTimerTakesItIn() throws Exception {
        Holding probe = new Holding();
        Scheduler s = ProbedScheduler.start(1, "timer-backlog", probe);
        DelayScheduler d = s.delays();
        AtomicInteger returned = new AtomicInteger();
        List<DelayedTask<Void>> entries = new ArrayList<>();
        Thread submitter = new Thread(() -> {
            for (int i = 0; i < LIMIT + 2; i++) {
                entries.add(d.schedule(() -> { }, 1, TimeUnit.HOURS, true, null));
                returned.incrementAndGet();
            }
        }, "submitter");
        submitter.start();
        try {
            await().atMost(HANG, TimeUnit.SECONDS).until(() ->
                    submitter.getState() == Thread.State.TIMED_WAITING && LockSupport.getBlocker(submitter) == d);
            assertEquals(LIMIT, returned.get(), "the schedule past the limit waits for the timer");
            assertEquals(LIMIT + 1, d.pending(), "and its entry was accepted before it waited");
        } finally {
            probe.release.countDown();
        }
        submitter.join(TimeUnit.SECONDS.toMillis(HANG));
        assertFalse(submitter.isAlive(), "the timer took the stripe in: the submitter went on");
        assertEquals(LIMIT + 2, returned.get());
        for (DelayedTask<Void> t : entries) {
            assertTrue(t.cancel(false));
        }
        await().atMost(HANG, TimeUnit.SECONDS).until(() -> d.pending() == 0);
        s.shutdown();
        assertTrue(s.awaitTermination(HANG, TimeUnit.SECONDS));
    }

    /** An interrupted thread does not wait for the timer, and keeps its interrupt status. */
    @Test
    void anInterruptedScheduleDoesNotWaitAndKeepsItsInterrupt() throws Exception {
        Holding probe = new Holding();
        Scheduler s = ProbedScheduler.start(1, "timer-backlog-interrupted", probe);
        DelayScheduler d = s.delays();
        CompletableFuture<Boolean> interrupted = CompletableFuture.supplyAsync(() -> {
            Thread.currentThread().interrupt();
            for (int i = 0; i < LIMIT + 100; i++) {
                d.schedule(() -> { }, 1, TimeUnit.HOURS, true, null);
            }
            return Thread.interrupted();
        }, r -> new Thread(r, "interrupted-submitter").start());
        try {
            assertTrue(interrupted.get(HANG, TimeUnit.SECONDS), "every schedule returned; the interrupt is kept");
            assertEquals(LIMIT + 100, d.pending());
        } finally {
            probe.release.countDown();
        }
        s.shutdownNow();
        assertTrue(s.awaitTermination(HANG, TimeUnit.SECONDS));
        assertEquals(0, d.pending(), "shutdownNow cancelled every one");
    }

    /**
     * Each time the timer takes in a stripe, it is offered another entry (scheduled and
     * cancelled from the probe): its inbox is never empty. A task due in a millisecond still
     * runs, since a turn takes each stripe once and then hands over what is due.
     */
    @Test
    void aTimerWhoseInboxIsNeverEmptyStillHandsOverItsDueTasks() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        DelayScheduler[] timer = new DelayScheduler[1];
        Scheduler s = ProbedScheduler.start(2, "timer-never-empty", new ShutdownProbe() {
            @Override
            public void timerTookIn() {
                if (!stop.get()) {
                    try {
                        timer[0].schedule(() -> { }, 1, TimeUnit.HOURS, true, null).cancel(false);
                    } catch (RejectedExecutionException shutDown) {
                        // the test's shutdown came first: the storm is over
                    }
                }
            }
        });
        DelayScheduler d = s.delays();
        timer[0] = d; // published by the offer below: the timer takes it before it calls the probe
        CountDownLatch ran = new CountDownLatch(1);
        d.schedule(ran::countDown, 1, TimeUnit.MILLISECONDS, true, null);
        try {
            assertTrue(ran.await(HANG, TimeUnit.SECONDS), "the due task ran while the inbox was never empty");
        } finally {
            stop.set(true);
        }
        await().atMost(HANG, TimeUnit.SECONDS).until(() -> d.pending() == 0);
        s.shutdown();
        assertTrue(s.awaitTermination(HANG, TimeUnit.SECONDS));
    }

    /**
     * Eight threads schedule tasks an hour away and cancel them, without pause, until a task
     * due a millisecond after the storm began has run: the timer, taking in the storm, still
     * hands it over. When the storm stops, every cancelled entry leaves the timer's hands.
     */
    @Test
    void aStormOfSchedulesAndCancelsKeepsTheTimerNeitherFromItsDueTasksNorFromEmptyingItsInbox()
            throws Exception {
        Scheduler s = new Scheduler(SchedulerConfig.basic(2, "timer-storm", 8, 0));
        s.start();
        DelayScheduler d = s.delays();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> storm = new ArrayList<>();
        CountDownLatch started = new CountDownLatch(8);
        for (int i = 0; i < 8; i++) {
            Thread t = new Thread(() -> {
                started.countDown();
                while (!stop.get()) {
                    d.schedule(() -> { }, 1, TimeUnit.HOURS, true, null).cancel(false);
                }
            }, "storm-" + i);
            t.start();
            storm.add(t);
        }
        try {
            started.await();
            CountDownLatch ran = new CountDownLatch(1);
            d.schedule(ran::countDown, 1, TimeUnit.MILLISECONDS, true, null);
            assertTrue(ran.await(HANG, TimeUnit.SECONDS), "the due task ran while the storm went on");
        } finally {
            stop.set(true);
        }
        for (Thread t : storm) {
            t.join(TimeUnit.SECONDS.toMillis(HANG));
        }
        for (Thread t : storm) {
            if (t.isAlive()) { // stuck waiting for the timer: free them (an interrupt ends a wait), then fail
                storm.forEach(Thread::interrupt);
                fail(t.getName() + " did not stop: " + Arrays.toString(t.getStackTrace()));
            }
        }
        await().atMost(HANG, TimeUnit.SECONDS).until(() -> d.pending() == 0);
        s.shutdown();
        assertTrue(s.awaitTermination(HANG, TimeUnit.SECONDS));
        assertTrue(d.isFinished());
    }
}
