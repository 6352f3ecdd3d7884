package io.github.stealpool.internal;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;

/**
 * Real StackOverflowErrors at every point of a sleep and of each wake-up: an operation runs on a
 * thread with a small stack, first with no room at all, then, each time it overflows, again with
 * one more frame of room, until it gets through. Whatever point each overflow struck, the
 * protocol's state must stay whole (count and stack agree, lock free, no stale parked record), and
 * a later post or wake-up must still work.
 */
class SleepStackOverflowTest {

    private static final Duration HANG = Duration.ofSeconds(30);
    /** A small stack: the sweep then spends its time on the operation, not on descending. */
    private static final long STACK = 256 * 1024;
    /** Sweeps per case: the first ones run interpreted, later ones partly compiled. */
    private static final int ROUNDS = 6;

    /** Runs an operation at every depth until it gets through, counting the overflows. */
    private static final class Sweep {
        int overflows;

        int run(IntSupplier op) {
            return descend(op);
        }

        private int descend(IntSupplier op) {
            try {
                return descend(op);
            } catch (StackOverflowError e) {
                overflows++;
                return op.getAsInt(); // one frame more room than the call that failed below
            }
        }
    }

    /** Runs {@code op} under a {@link Sweep} on a small-stack thread, started; its result. */
    private static Thread sweep(String name, IntSupplier op, AtomicReference<Object> outcome) {
        Thread t = new Thread(null, () -> {
            try {
                Sweep s = new Sweep();
                int result = s.run(op);
                outcome.set(result);
            } catch (Throwable e) {
                outcome.set(e);
            }
        }, name, STACK);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static Object finish(Thread t, AtomicReference<Object> outcome) throws InterruptedException {
        t.join(HANG.toMillis()); // a hang detector
        assertFalse(t.isAlive(), "the operation neither returned nor failed: " + outcome.get());
        return outcome.get();
    }

    private static void awaitAsleep(Sleep sleep, int count, Thread t) {
        await().atMost(HANG).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1))
                .until(() -> t.getState() == Thread.State.TERMINATED
                        || sleep.sleepingWorkers() == count && t.getState() == Thread.State.WAITING);
        assertEquals(count, sleep.sleepingWorkers(), () -> t + " ended, asleep: " + sleep);
    }

    /** Whole state, and a post still wakes a sleeper of each index, and a wakeWorker too. */
    private static void assertConsistentAndAwake(Sleep sleep, int slots) throws InterruptedException {
        assertEquals(null, sleep.inconsistency());
        assertEquals(0, sleep.sleepingWorkers());
        assertEquals(0, sleep.searchingWorkers());
        for (int i = 0; i < slots; i++) {
            int index = i;
            AtomicReference<Object> out = new AtomicReference<>();
            Thread t = new Thread(() -> out.set(sleep.sleep(index, sleep.announceSleepy())));
            t.start();
            awaitAsleep(sleep, 1, t);
            sleep.notifyNewJob();
            t.join(HANG.toMillis());
            assertEquals(Sleep.WOKEN_TO_SEARCH, out.get());
            sleep.stopSearching();
            assertEquals(null, sleep.inconsistency());
        }
        AtomicReference<Object> out = new AtomicReference<>();
        Thread t = new Thread(() -> out.set(sleep.sleep(0, sleep.announceSleepy(), () -> false)));
        t.start();
        awaitAsleep(sleep, 1, t);
        sleep.wakeWorker(0);
        t.join(HANG.toMillis());
        assertEquals(Sleep.WOKEN, out.get());
        assertEquals(null, sleep.inconsistency());
    }

    // ------------------------------------------------------------------ the sleeper's side

    @Test
    void anIdleSleepOverflowingAnywhereLeavesTheStateWhole() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            Sleep sleep = new Sleep(2, 2, () -> false, 0L);
            long jec = sleep.announceSleepy();
            AtomicReference<Object> outcome = new AtomicReference<>();
            Thread t = sweep("sleeper", () -> sleep.sleep(0, jec), outcome);
            awaitAsleep(sleep, 1, t);
            assertEquals(null, sleep.inconsistency());
            sleep.notifyNewJob();
            assertEquals(Sleep.WOKEN_TO_SEARCH, finish(t, outcome));
            sleep.stopSearching();
            assertConsistentAndAwake(sleep, 2);
        }
    }

    @Test
    void aSleepHandedAJobOverflowingAnywhereLeavesTheStateWhole() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            Sleep sleep = new Sleep(1, 1, () -> false, 0L);
            long jec = sleep.announceSleepy();
            AtomicReference<Object> outcome = new AtomicReference<>();
            Thread t = sweep("sleeper", () -> sleep.sleep(0, jec), outcome);
            awaitAsleep(sleep, 1, t);
            await().atMost(HANG).until(sleep::handOffReady);
            Runnable job = () -> { };
            assertTrue(sleep.tryHandOff(job));
            assertEquals(Sleep.HANDED_OFF, finish(t, outcome));
            assertEquals(job, sleep.takeHandOff(0));
            sleep.stopSearchingAfterHandOff(0);
            assertConsistentAndAwake(sleep, 1);
        }
    }

    @Test
    void aTimedSleepOverflowingAnywhereLeavesTheStateWhole() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            Sleep sleep = new Sleep(2, 2, () -> false, 0L);
            long jec = sleep.announceSleepy();
            AtomicReference<Object> outcome = new AtomicReference<>();
            // Nobody wakes it: every attempt that gets through parks, runs out of time and
            // takes itself off, the path an overflow strikes here.
            Thread t = sweep("sleeper", () -> sleep.sleepAtMost(0, jec, 1_000_000L), outcome);
            assertEquals(Sleep.TIMED_OUT, finish(t, outcome));
            assertConsistentAndAwake(sleep, 2);
        }
    }

    @Test
    void anInterruptibleJoinSleepOverflowingAnywhereLeavesTheStateWhole() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            Sleep sleep = new Sleep(2, 2, () -> false, 0L);
            long jec = sleep.announceSleepy();
            AtomicReference<Object> outcome = new AtomicReference<>();
            BooleanSupplier never = () -> false; // made here: a lambda's first use links it, deep
            Thread t = sweep("joiner", () -> sleep.sleep(0, jec, never, true), outcome);
            await().atMost(HANG).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1))
                    .until(() -> t.getState() == Thread.State.TERMINATED
                            || sleep.sleepingWorkers() == 1 && t.getState() == Thread.State.WAITING);
            assertEquals(1, sleep.sleepingWorkers(), () -> "ended with " + outcome.get() + ": " + sleep);
            assertEquals(null, sleep.inconsistency());
            t.interrupt(); // takes itself off the stack, the path an overflow strikes here
            assertEquals(Sleep.WOKEN, finish(t, outcome));
            assertConsistentAndAwake(sleep, 2);
        }
    }

    // ------------------------------------------------------------------ the wakers' side

    /** A sleeper on an ordinary stack, asleep once this returns. */
    private static Thread sleeper(Sleep sleep, int index, boolean inJoin, AtomicReference<Object> out) {
        long jec = sleep.announceSleepy();
        Thread t = new Thread(() -> {
            try {
                out.set(inJoin ? sleep.sleep(index, jec, () -> false) : sleep.sleep(index, jec));
            } catch (Throwable e) {
                out.set(e);
            }
        });
        t.setDaemon(true);
        t.start();
        return t;
    }

    @Test
    void aPostWhoseWakeUpOverflowsAnywhereLeavesTheStateWhole() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            Sleep sleep = new Sleep(2, 2, () -> false, 0L);
            AtomicReference<Object> slept = new AtomicReference<>();
            Thread s = sleeper(sleep, 0, false, slept);
            awaitAsleep(sleep, 1, s);
            AtomicReference<Object> outcome = new AtomicReference<>();
            Thread w = sweep("poster", () -> {
                sleep.notifyNewJob();
                return 0;
            }, outcome);
            assertEquals(0, finish(w, outcome));
            // An overflow may cost the wake-up (the job stays queued for whoever searches), but
            // the state stays whole: a sleeper still counted asleep is on the stack.
            assertEquals(null, sleep.inconsistency());
            if (sleep.sleepingWorkers() == 1) {
                sleep.notifyNewJob();
            }
            s.join(HANG.toMillis());
            assertEquals(Sleep.WOKEN_TO_SEARCH, slept.get());
            sleep.stopSearching();
            assertConsistentAndAwake(sleep, 2);
        }
    }

    @Test
    void aSpreadOverflowingAnywhereLeavesTheStateWholeAndNeverThrows() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            Sleep sleep = new Sleep(4, 4, () -> false, 0L, 4);
            AtomicReference<Object> slept = new AtomicReference<>();
            Thread s = sleeper(sleep, 0, false, slept);
            awaitAsleep(sleep, 1, s);
            AtomicReference<Object> outcome = new AtomicReference<>();
            Thread w = sweep("forker", () -> {
                sleep.spread(); // best effort: an overflow inside costs the wake-up only
                return 0;
            }, outcome);
            assertEquals(0, finish(w, outcome));
            assertEquals(null, sleep.inconsistency());
            if (sleep.sleepingWorkers() == 1) {
                sleep.spread();
            }
            s.join(HANG.toMillis());
            assertEquals(Sleep.WOKEN_TO_SEARCH, slept.get());
            sleep.stopSearching();
            assertConsistentAndAwake(sleep, 4);
        }
    }

    @Test
    void aWakeByNameOverflowingAnywhereLeavesTheStateWhole() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            Sleep sleep = new Sleep(2, 2, () -> false, 0L);
            AtomicReference<Object> slept = new AtomicReference<>();
            Thread s = sleeper(sleep, 1, true, slept);
            awaitAsleep(sleep, 1, s);
            AtomicReference<Object> outcome = new AtomicReference<>();
            Thread w = sweep("completer", () -> {
                sleep.wakeWorker(1);
                return 0;
            }, outcome);
            assertEquals(0, finish(w, outcome));
            assertEquals(null, sleep.inconsistency());
            s.join(HANG.toMillis());
            assertEquals(Sleep.WOKEN, slept.get());
            assertConsistentAndAwake(sleep, 2);
        }
    }

    @Test
    void aHandOffOverflowingAnywhereLeavesTheStateWhole() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            Sleep sleep = new Sleep(1, 1, () -> false, 0L);
            AtomicReference<Object> slept = new AtomicReference<>();
            Thread s = sleeper(sleep, 0, false, slept);
            awaitAsleep(sleep, 1, s);
            await().atMost(HANG).until(sleep::handOffReady);
            Runnable job = () -> { };
            AtomicReference<Object> outcome = new AtomicReference<>();
            Thread w = sweep("submitter", () -> sleep.tryHandOff(job) ? 1 : 0, outcome);
            // A hand-off that overflowed did not happen: the one that got through handed it.
            assertEquals(1, finish(w, outcome));
            assertEquals(null, sleep.inconsistency());
            s.join(HANG.toMillis());
            assertEquals(Sleep.HANDED_OFF, slept.get());
            assertEquals(job, sleep.takeHandOff(0));
            sleep.stopSearchingAfterHandOff(0);
            assertConsistentAndAwake(sleep, 1);
        }
    }

    @Test
    void aWakeAllOverflowingAnywhereLeavesTheStateWhole() throws Exception {
        for (int round = 0; round < ROUNDS; round++) {
            Sleep sleep = new Sleep(2, 2, () -> false, 0L);
            AtomicReference<Object> slept0 = new AtomicReference<>();
            AtomicReference<Object> slept1 = new AtomicReference<>();
            Thread s0 = sleeper(sleep, 0, false, slept0);
            awaitAsleep(sleep, 1, s0);
            Thread s1 = sleeper(sleep, 1, true, slept1);
            awaitAsleep(sleep, 2, s1);
            AtomicReference<Object> outcome = new AtomicReference<>();
            Thread w = sweep("stopper", () -> {
                sleep.wakeAll();
                return 0;
            }, outcome);
            assertEquals(0, finish(w, outcome));
            assertEquals(null, sleep.inconsistency());
            s0.join(HANG.toMillis());
            s1.join(HANG.toMillis());
            assertEquals(Sleep.WOKEN, slept0.get());
            assertEquals(Sleep.WOKEN, slept1.get());
            assertConsistentAndAwake(sleep, 2);
        }
    }
}
