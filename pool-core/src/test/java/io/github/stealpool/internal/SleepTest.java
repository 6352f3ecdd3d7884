package io.github.stealpool.internal;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The sleep protocol driven by hand, without a pool around it. */
class SleepTest {

    private static final Duration HANG = Duration.ofSeconds(30);

    @Test
    void aJobPostedAfterTheAnnouncementCallsTheSleepOff() {
        Sleep sleep = new Sleep(1, () -> false);
        long jec = sleep.announceSleepy();
        assertTrue(sleep.toString().contains("sleepy"), sleep.toString());
        sleep.notifyNewJob();
        assertFalse(sleep.sleep(0, jec), "the worker must not block: a job came after its announcement");
        assertEquals(0, sleep.sleepingWorkers());
    }

    @Test
    void aPostWithNobodySleepyChangesNothing() {
        Sleep sleep = new Sleep(2, () -> false);
        String before = sleep.toString();
        sleep.notifyNewJob();
        assertEquals(before, sleep.toString());
    }

    @Test
    void aWorkerBacksOutWhenThePoolIsShuttingDown() {
        Sleep sleep = new Sleep(1, () -> true);
        assertFalse(sleep.sleep(0, sleep.announceSleepy()));
        assertEquals(0, sleep.sleepingWorkers(), "a worker that backs out uncounts itself");
    }

    @Test
    void eachJobWakesExactlyOneSleeper() throws Exception {
        int n = 3;
        Sleep sleep = new Sleep(n, () -> false);
        AtomicInteger woken = new AtomicInteger();
        List<Thread> threads = startSleepers(sleep, n, woken);
        sleep.notifyNewJob(); // the waker uncounts the sleeper before it returns
        assertEquals(n - 1, sleep.sleepingWorkers());
        await().atMost(HANG).until(() -> woken.get() == 1);
        sleep.notifyNewJob();
        assertEquals(n - 2, sleep.sleepingWorkers());
        await().atMost(HANG).until(() -> woken.get() == 2);
        sleep.wakeAll();
        assertEquals(0, sleep.sleepingWorkers());
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(30));
            assertFalse(t.isAlive());
        }
        assertEquals(n, woken.get());
    }

    @Test
    void aBatchOfJobsWakesOneSleeperPerJob() throws Exception {
        int n = 3;
        Sleep sleep = new Sleep(n, () -> false);
        AtomicInteger woken = new AtomicInteger();
        List<Thread> threads = startSleepers(sleep, n, woken);
        sleep.notifyNewJobs(2); // two jobs published together: two sleepers, not one
        assertEquals(n - 2, sleep.sleepingWorkers());
        await().atMost(HANG).until(() -> woken.get() == 2);
        sleep.notifyNewJobs(5); // more jobs than sleepers: wakes the last, then stops
        assertEquals(0, sleep.sleepingWorkers());
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(30));
            assertFalse(t.isAlive());
        }
        String before = sleep.toString();
        sleep.notifyNewJobs(3); // nobody sleepy or asleep: nothing changes
        assertEquals(before, sleep.toString());
    }

    @Test
    void anInterruptDoesNotWakeASleeper() throws Exception {
        Sleep sleep = new Sleep(1, () -> false);
        AtomicBoolean stillInterrupted = new AtomicBoolean();
        Thread t = new Thread(() -> {
            while (!sleep.sleep(0, sleep.announceSleepy())) {
                Thread.onSpinWait();
            }
            stillInterrupted.set(Thread.currentThread().isInterrupted());
        });
        t.start();
        await().atMost(HANG).until(() -> sleep.sleepingWorkers() == 1 && t.getState() == Thread.State.WAITING);
        t.interrupt();
        // The interrupt is remembered but does not end the sleep: the worker is still counted.
        await().atMost(HANG).until(() -> t.getState() == Thread.State.WAITING);
        assertEquals(1, sleep.sleepingWorkers());
        sleep.notifyNewJob();
        t.join(TimeUnit.SECONDS.toMillis(30));
        assertFalse(t.isAlive());
        assertTrue(stillInterrupted.get(), "the interrupt status is kept for the worker to clear");
    }

    @Test
    void aLatchWaiterIsWokenByNameAndBacksOutIfItsLatchIsSet() throws Exception {
        Sleep sleep = new Sleep(2, () -> false);
        Signal latch = new Signal();
        assertFalse(sleep.sleep(1, sleep.announceSleepy(), () -> true), "abort condition holds");
        assertEquals(0, sleep.sleepingWorkers());
        AtomicBoolean woke = new AtomicBoolean();
        Thread t = new Thread(() -> {
            while (!sleep.sleep(1, sleep.announceSleepy(), latch::isSet)) {
                if (latch.isSet()) {
                    break;
                }
            }
            woke.set(true);
        });
        t.start();
        await().atMost(HANG).until(() -> sleep.sleepingWorkers() == 1 && t.getState() == Thread.State.WAITING);
        sleep.wakeWorker(0); // another worker: nothing happens
        assertEquals(1, sleep.sleepingWorkers());
        latch.set();
        sleep.wakeWorker(1);
        t.join(TimeUnit.SECONDS.toMillis(30));
        assertFalse(t.isAlive());
        assertTrue(woke.get());
        assertEquals(0, sleep.sleepingWorkers());
    }

    @Test
    void rejectsABadWorkerCount() {
        assertThrows(IllegalArgumentException.class, () -> new Sleep(0, () -> false));
    }

    /** Starts one thread per worker index that sleeps until woken; returns once all are blocked. */
    private static List<Thread> startSleepers(Sleep sleep, int n, AtomicInteger woken) {
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int index = i;
            Thread t = new Thread(() -> {
                while (!sleep.sleep(index, sleep.announceSleepy())) {
                    Thread.onSpinWait(); // another worker's announcement moved the counter
                }
                woken.incrementAndGet();
            }, "sleeper-" + i);
            threads.add(t);
            t.start();
        }
        await().atMost(HANG).until(() -> sleep.sleepingWorkers() == n
                && threads.stream().allMatch(t -> t.getState() == Thread.State.WAITING));
        return threads;
    }

}
