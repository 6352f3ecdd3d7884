package io.github.stealpool.internal;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.stealpool.Task;
import io.github.stealpool.WorkStealingPool;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
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
        assertEquals(Sleep.BACKED_OUT, sleep.sleep(0, jec), "the worker must not block: a job came after its announcement");
        assertEquals(0, sleep.sleepingWorkers());
    }

    @Test
    void aForksHintAfterTheAnnouncementCallsTheSleepOffToo() throws InterruptedException {
        Sleep sleep = new Sleep(1, () -> false);
        long jec = sleep.announceSleepy();
        sleep.hintNewJob(); // its plain read comes after the announcement in program order
        Thread test = Thread.currentThread();
        Thread hangDetector = new Thread(() -> {
            try {
                Thread.sleep(HANG.toMillis());
                test.interrupt(); // ends the sleep below, which then fails the assertion
            } catch (InterruptedException done) {
                // the sleep returned
            }
        }, "sleep-test-hang-detector");
        hangDetector.setDaemon(true);
        hangDetector.start();
        try {
            assertEquals(Sleep.BACKED_OUT, sleep.sleep(0, jec, () -> false, true),
                    "the hint saw the sleepy bit and moved the JEC: the worker must not block");
        } finally {
            hangDetector.interrupt();
            hangDetector.join();
            Thread.interrupted();
        }
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
        assertEquals(Sleep.BACKED_OUT, sleep.sleep(0, sleep.announceSleepy()));
        assertEquals(0, sleep.sleepingWorkers(), "a worker that backs out uncounts itself");
    }

    @Test
    void aPostWakesOneSleeperAsASearcherAndFurtherPostsWaitForIt() throws Exception {
        int n = 3;
        Sleep sleep = new Sleep(n, () -> false);
        List<Integer> woken = new CopyOnWriteArrayList<>();
        List<Thread> threads = startSleepers(sleep, n, woken);
        sleep.notifyNewJob(); // the waker moves the sleeper to the searchers before it returns
        assertEquals(n - 1, sleep.sleepingWorkers());
        assertEquals(1, sleep.searchingWorkers());
        await().atMost(HANG).until(() -> woken.size() == 1);
        assertEquals(Sleep.WOKEN_TO_SEARCH, (int) woken.get(0));
        sleep.notifyNewJob(); // somebody searches: it will find this job, or pass the search on
        sleep.notifyNewJob();
        assertEquals(n - 1, sleep.sleepingWorkers(), "no wake-up while a searcher is on its way");
        assertTrue(sleep.stopSearching(), "the last searcher, with sleepers left, is told so");
        assertEquals(0, sleep.searchingWorkers());
        sleep.wakeSearcher(); // it saw work queued: the next searcher
        assertEquals(n - 2, sleep.sleepingWorkers());
        assertEquals(1, sleep.searchingWorkers());
        sleep.wakeSearcher(); // somebody searches already: nobody more
        assertEquals(n - 2, sleep.sleepingWorkers());
        sleep.wakeAll();
        assertEquals(0, sleep.sleepingWorkers());
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(30));
            assertFalse(t.isAlive());
        }
        List<Integer> how = new ArrayList<>(woken);
        how.sort(null); // the last two wake-ups race to record themselves
        assertEquals(List.of(Sleep.WOKEN, Sleep.WOKEN_TO_SEARCH, Sleep.WOKEN_TO_SEARCH), how);
        assertEquals(1, sleep.searchingWorkers(), "the second woken to search still counts as a searcher");
    }

    @Test
    void spreadWakesOneMoreSearcherWhileOthersSearchButNoMoreThanHalfThePoolNorTheCores()
            throws Exception {
        int n = 6;
        Sleep sleep = new Sleep(n, n, () -> false, 0L, n);
        List<Integer> woken = new CopyOnWriteArrayList<>();
        List<Thread> threads = startSleepers(sleep, n - 1, woken); // worker 5 is awake: it forks
        sleep.notifyNewJob();
        assertEquals(1, sleep.searchingWorkers());
        sleep.notifyNewJob(); // one wake-up in flight: nobody more
        assertEquals(n - 2, sleep.sleepingWorkers());
        sleep.spread(); // but a spread wakes one more although somebody searches
        assertEquals(n - 3, sleep.sleepingWorkers());
        assertEquals(2, sleep.searchingWorkers());
        sleep.spread();
        assertEquals(3, sleep.searchingWorkers());
        sleep.spread(); // half the pool searches: no more
        assertEquals(3, sleep.searchingWorkers());
        assertEquals(n - 4, sleep.sleepingWorkers());
        assertEquals(null, sleep.inconsistency());
        await().atMost(HANG).until(() -> woken.size() == 3);
        assertEquals(List.of(Sleep.WOKEN_TO_SEARCH, Sleep.WOKEN_TO_SEARCH, Sleep.WOKEN_TO_SEARCH),
                woken);
        wakeAllAndJoin(sleep, threads);
        assertEquals(null, sleep.inconsistency());

        Sleep fewCores = new Sleep(n, n, () -> false, 0L, 2);
        List<Thread> more = startSleepers(fewCores, n - 1, new CopyOnWriteArrayList<>());
        fewCores.notifyNewJob(); // two awake now, as many as the cores
        fewCores.spread();
        assertEquals(n - 2, fewCores.sleepingWorkers(), "no more awake than cores");
        wakeAllAndJoin(fewCores, more);
    }

    @Test
    void theLastWorkerToFallAsleepIsTheFirstWoken() throws Exception {
        Sleep sleep = new Sleep(3, () -> false);
        List<Integer> order = new CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 3; i++) { // one at a time, so the stack order is known
            threads.add(startSleeper(sleep, i, order));
            int asleep = i + 1;
            await().atMost(HANG).until(() -> sleep.sleepingWorkers() == asleep);
        }
        for (int i = 0; i < 3; i++) {
            sleep.notifyNewJob();
            int wokenSoFar = i + 1;
            await().atMost(HANG).until(() -> order.size() == wokenSoFar);
            assertTrue(sleep.stopSearching() || i == 2, "sleepers are left until the last");
        }
        assertEquals(List.of(2, 1, 0), order);
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(30));
        }
    }

    @Test
    void aWorkerWokenByNameLeavesTheOthersInOrder() throws Exception {
        Sleep sleep = new Sleep(3, () -> false);
        List<Integer> order = new CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            threads.add(startSleeper(sleep, i, order));
            int asleep = i + 1;
            await().atMost(HANG).until(() -> sleep.sleepingWorkers() == asleep);
        }
        sleep.wakeWorker(1); // from the middle of the stack
        await().atMost(HANG).until(() -> order.size() == 1);
        assertEquals(2, sleep.sleepingWorkers());
        assertEquals(0, sleep.searchingWorkers(), "woken by name, not to search");
        sleep.notifyNewJob();
        await().atMost(HANG).until(() -> order.size() == 2);
        sleep.stopSearching();
        sleep.notifyNewJob();
        await().atMost(HANG).until(() -> order.size() == 3);
        assertEquals(List.of(1, 2, 0), order);
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(30));
        }
    }

    @Test
    void anInterruptibleSleeperTakesItselfOffTheStack() throws Exception {
        Sleep sleep = new Sleep(2, () -> false);
        AtomicInteger how = new AtomicInteger(-1);
        AtomicBoolean interrupted = new AtomicBoolean();
        Thread t = new Thread(() -> {
            int h;
            while ((h = sleep.sleep(0, sleep.announceSleepy(), () -> false, true)) == Sleep.BACKED_OUT) {
                Thread.onSpinWait();
            }
            how.set(h);
            interrupted.set(Thread.currentThread().isInterrupted());
        });
        t.start();
        await().atMost(HANG).until(() -> sleep.sleepingWorkers() == 1 && t.getState() == Thread.State.WAITING);
        t.interrupt();
        t.join(TimeUnit.SECONDS.toMillis(30));
        assertFalse(t.isAlive());
        assertEquals(Sleep.WOKEN, how.get());
        assertTrue(interrupted.get(), "the interrupt stays set for the caller");
        assertEquals(0, sleep.sleepingWorkers(), "it uncounted itself");
        sleep.notifyNewJob(); // nobody on the stack: nothing to wake, nothing breaks
        assertEquals(0, sleep.searchingWorkers());
    }

    @Test
    void searchersAreAtMostHalfThePool() {
        Sleep sleep = new Sleep(4, () -> false);
        assertTrue(sleep.tryStartSearching());
        assertTrue(sleep.tryStartSearching());
        assertFalse(sleep.tryStartSearching(), "two of four search already");
        assertEquals(2, sleep.searchingWorkers());
        assertFalse(sleep.stopSearching(), "nobody sleeps: no wake-up needed");
        assertTrue(sleep.tryStartSearching());
        Sleep single = new Sleep(1, () -> false);
        assertTrue(single.tryStartSearching(), "a pool of one may search");
    }

    @Test
    void aSearcherMeansNoWakeUpButTheJecStillMoves() throws Exception {
        Sleep sleep = new Sleep(2, () -> false);
        List<Integer> woken = new CopyOnWriteArrayList<>();
        Thread sleeper = startSleepers(sleep, 1, woken).get(0);
        assertTrue(sleep.tryStartSearching());
        long jec = sleep.announceSleepy(); // a third party, sleepy
        sleep.notifyNewJob();
        assertEquals(1, sleep.sleepingWorkers(), "the searcher will see the job");
        assertEquals(Sleep.BACKED_OUT, sleep.sleep(1, jec), "but a sleepy worker must back out");
        assertTrue(sleep.stopSearching());
        sleep.wakeSearcher();
        sleeper.join(TimeUnit.SECONDS.toMillis(30));
        assertEquals(List.of(Sleep.WOKEN_TO_SEARCH), woken);
    }

    @Test
    void anInterruptDoesNotWakeASleeper() throws Exception {
        Sleep sleep = new Sleep(1, () -> false);
        AtomicBoolean stillInterrupted = new AtomicBoolean();
        Thread t = new Thread(() -> {
            while (sleep.sleep(0, sleep.announceSleepy()) == Sleep.BACKED_OUT) {
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
        assertEquals(Sleep.BACKED_OUT, sleep.sleep(1, sleep.announceSleepy(), () -> true), "abort condition holds");
        assertEquals(0, sleep.sleepingWorkers());
        AtomicBoolean woke = new AtomicBoolean();
        Thread t = new Thread(() -> {
            while (sleep.sleep(1, sleep.announceSleepy(), latch::isSet) == Sleep.BACKED_OUT) {
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

    /**
     * With sleepers waiting, makes the JEC even (not sleepy): a post while somebody searches
     * moves it and wakes nobody; that searcher's look then finds nothing (the job was taken).
     */
    private static void makeJecNotSleepy(Sleep sleep) {
        assertTrue(sleep.tryStartSearching());
        sleep.notifyNewJob();
        assertTrue(sleep.stopSearching(), "the last searcher, with sleepers left");
        assertFalse(sleep.toString().contains("sleepy"), sleep.toString());
    }

    /** Starts sleepers 0 to n - 1 one at a time, so the last is on top of the stack. */
    private static List<Thread> startReceivers(Sleep sleep, int n, List<List<Object>> received) {
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            threads.add(startReceiver(sleep, i, received));
            int asleep = i + 1;
            await().atMost(HANG).until(() -> sleep.sleepingWorkers() == asleep);
            sleep.readUnderLock(); // it is counted inside a critical section: wait for its end (pushed)
        }
        return threads;
    }

    /**
     * A sleeper that records, once woken, {@code [its index, how it was woken, the job handed
     * to it or null]}.
     */
    private static Thread startReceiver(Sleep sleep, int index, List<List<Object>> received) {
        Thread t = new Thread(() -> {
            int how;
            while ((how = sleep.sleep(index, sleep.announceSleepy())) == Sleep.BACKED_OUT) {
                Thread.onSpinWait();
            }
            Object job = how == Sleep.HANDED_OFF ? sleep.takeHandOff(index) : "none";
            received.add(List.of(index, how, job));
        }, "receiver-" + index);
        t.start();
        return t;
    }

    private static void wakeAllAndJoin(Sleep sleep, List<Thread> threads) throws InterruptedException {
        sleep.wakeAll();
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(30));
            assertFalse(t.isAlive());
        }
    }

    @Test
    void aHandOffWakesTheLastSleeperWithTheJobCountedAsASearcher() throws Exception {
        Sleep sleep = new Sleep(3, 3, () -> false, 0L);
        List<List<Object>> received = new CopyOnWriteArrayList<>();
        List<Thread> threads = startReceivers(sleep, 3, received);
        Runnable job = () -> { };
        assertTrue(sleep.tryHandOff(job));
        assertEquals(2, sleep.sleepingWorkers());
        assertEquals(1, sleep.searchingWorkers(), "counted as searching before it is released");
        await().atMost(HANG).until(() -> received.size() == 1);
        assertEquals(List.of(2, Sleep.HANDED_OFF, job), received.get(0));
        assertFalse(sleep.tryHandOff(() -> { }), "somebody searches: no second hand-off");
        sleep.notifyNewJob();
        assertEquals(2, sleep.sleepingWorkers(), "nor a wake-up: the searcher stands for the post");
        assertTrue(sleep.stopSearchingAfterHandOff(2), "a job was posted since the hand-off: look");
        assertEquals(0, sleep.searchingWorkers());
        assertEquals(1, sleep.idleTotals()[3], "hand-offs counted");
        wakeAllAndJoin(sleep, threads);
    }

    @Test
    void aHandOffNeedsEveryWorkerAsleepNobodySearchingAndALongEnoughSleep() throws Exception {
        Sleep sleep = new Sleep(2, 2, () -> false, 0L);
        assertFalse(sleep.tryHandOff(() -> { }), "nobody asleep");
        List<List<Object>> received = new CopyOnWriteArrayList<>();
        List<Thread> threads = startReceivers(sleep, 1, received);
        assertFalse(sleep.tryHandOff(() -> { }), "one of two workers awake: the pool is not idle");
        wakeAllAndJoin(sleep, threads);

        Sleep one = new Sleep(1, 1, () -> false, 0L);
        threads = startReceivers(one, 1, received);
        assertTrue(one.tryStartSearching()); // a third party
        assertFalse(one.tryHandOff(() -> { }), "somebody searches");
        assertTrue(one.stopSearching());
        assertEquals(0, one.idleTotals()[3]);
        wakeAllAndJoin(one, threads);

        Sleep patient = new Sleep(1, 1, () -> false, Long.MAX_VALUE);
        threads = startReceivers(patient, 1, received);
        assertFalse(patient.tryHandOff(() -> { }), "not parked long enough");
        assertEquals(1, patient.sleepingWorkers());
        wakeAllAndJoin(patient, threads);
        assertEquals(List.of(List.of(0, Sleep.WOKEN, "none"), List.of(0, Sleep.WOKEN, "none"),
                List.of(0, Sleep.WOKEN, "none")), received);
    }

    @Test
    void aWorkerAsleepInAJoinIsNeverHandedAJob() throws Exception {
        Sleep sleep = new Sleep(2, 2, () -> false, 0L);
        List<List<Object>> received = new CopyOnWriteArrayList<>();
        List<Thread> threads = startReceivers(sleep, 1, received); // worker 0, idle
        Thread joiner = new Thread(() -> { // worker 1, asleep in a join, on top of the stack
            int how;
            while ((how = sleep.sleep(1, sleep.announceSleepy(), () -> false)) == Sleep.BACKED_OUT) {
                Thread.onSpinWait();
            }
            received.add(List.of(1, how, "none"));
        }, "joiner");
        joiner.start();
        threads.add(joiner);
        await().atMost(HANG).until(() -> sleep.sleepingWorkers() == 2);
        sleep.readUnderLock(); // the joiner pushed, not only counted
        assertFalse(sleep.tryHandOff(() -> { }), "the top sleeper is in a join");
        assertEquals(2, sleep.sleepingWorkers());
        assertEquals(0, sleep.idleTotals()[3]);
        sleep.notifyNewJob(); // the job queued instead: the joiner is woken to search
        await().atMost(HANG).until(() -> received.size() == 1);
        assertEquals(List.of(1, Sleep.WOKEN_TO_SEARCH, "none"), received.get(0));
        assertTrue(sleep.stopSearching());
        wakeAllAndJoin(sleep, threads);
    }

    @Test
    void aWorkerWokenWithAJobSkipsTheLookWhenNothingWasPostedSince() throws Exception {
        Sleep sleep = new Sleep(2, 2, () -> false, 0L);
        List<List<Object>> received = new CopyOnWriteArrayList<>();
        List<Thread> threads = startReceivers(sleep, 2, received);
        assertTrue(sleep.tryHandOff(() -> { }));
        await().atMost(HANG).until(() -> received.size() == 1);
        assertFalse(sleep.stopSearchingAfterHandOff(1), "no post counted on it");
        assertEquals(0, sleep.searchingWorkers());
        assertEquals(1, sleep.sleepingWorkers());
        wakeAllAndJoin(sleep, threads);
    }

    /**
     * The interleaving the hand-off's proof (fifth case) needs {@code wakeOne} for: a post reads
     * the counters (nobody searching, somebody asleep, the JEC not sleepy, so it moves nothing),
     * then another thread hands a job to the top sleeper, then the post goes on to wake a
     * sleeper, finds the handed worker searching under the lock and wakes nobody. The handed
     * worker must then look at the queues, though nothing moved the JEC before the post's wake.
     */
    @Test
    void aPostThatReadBeforeAHandOffAndThenFoundItsWorkerSearchingMakesThatWorkerLook() throws Exception {
        Sleep sleep = new Sleep(2, 2, () -> false, 0L);
        List<List<Object>> received = new CopyOnWriteArrayList<>();
        List<Thread> threads = startReceivers(sleep, 2, received);
        makeJecNotSleepy(sleep);
        long postRead = sleep.readUnderLock(); // the post's read: nobody searching, two asleep
        assertTrue(sleep.tryHandOff(() -> { })); // the hand-off, to worker 1
        sleep.notifySlow(postRead); // the post goes on: finds worker 1 searching, wakes nobody
        assertEquals(1, sleep.sleepingWorkers());
        assertTrue(sleep.stopSearchingAfterHandOff(1), "the post counted on worker 1: it must look");
        wakeAllAndJoin(sleep, threads);
    }

    /**
     * A post after the hand-off, with the JEC not sleepy before it: the hand-off made it sleepy,
     * so the post moves it and the handed worker looks.
     */
    @Test
    void aPostAfterAHandOffMakesItsWorkerLookThoughNobodyWasSleepy() throws Exception {
        Sleep sleep = new Sleep(2, 2, () -> false, 0L);
        List<List<Object>> received = new CopyOnWriteArrayList<>();
        List<Thread> threads = startReceivers(sleep, 2, received);
        makeJecNotSleepy(sleep);
        assertTrue(sleep.tryHandOff(() -> { }));
        sleep.notifyNewJob(); // sees worker 1 searching: wakes nobody
        assertEquals(1, sleep.sleepingWorkers());
        assertTrue(sleep.stopSearchingAfterHandOff(1), "the post counted on worker 1: it must look");
        wakeAllAndJoin(sleep, threads);
    }

    /** As above, but the handed worker stops before the post wakes: then the post wakes a sleeper itself. */
    @Test
    void aPostThatReadBeforeAHandOffWakesASleeperIfItsWorkerStoppedFirst() throws Exception {
        Sleep sleep = new Sleep(2, 2, () -> false, 0L);
        List<List<Object>> received = new CopyOnWriteArrayList<>();
        List<Thread> threads = startReceivers(sleep, 2, received);
        makeJecNotSleepy(sleep);
        long postRead = sleep.readUnderLock();
        assertTrue(sleep.tryHandOff(() -> { }));
        assertFalse(sleep.stopSearchingAfterHandOff(1), "nothing moved the JEC yet: no look");
        sleep.notifySlow(postRead); // nobody searches now: the post wakes worker 0
        assertEquals(0, sleep.sleepingWorkers());
        assertEquals(1, sleep.searchingWorkers());
        await().atMost(HANG).until(() -> received.size() == 2);
        assertTrue(received.contains(List.of(0, Sleep.WOKEN_TO_SEARCH, "none")), received.toString());
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(30));
        }
    }

    /**
     * The hand-off's idle pool counts sleepers against the parallelism, sleeping spares
     * included (Sleep, "Handing a job to the worker woken for it"): worker 0 awake, worker 1 and
     * spare 2 asleep is idle enough, and the job goes to the spare on top.
     */
    @Test
    void aSleepingSpareCountsTowardsAnIdlePoolForAHandOff() throws Exception {
        Sleep sleep = new Sleep(2, 3, () -> false, 0L);
        List<List<Object>> received = new CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 1; i <= 2; i++) {
            threads.add(startReceiver(sleep, i, received));
            int asleep = i;
            await().atMost(HANG).until(() -> sleep.sleepingWorkers() == asleep);
            sleep.readUnderLock(); // pushed, not only counted
        }
        Runnable job = () -> { };
        assertTrue(sleep.tryHandOff(job), "two sleepers for a parallelism of two, one a spare");
        await().atMost(HANG).until(() -> received.size() == 1);
        assertEquals(List.of(2, Sleep.HANDED_OFF, job), received.get(0));
        assertFalse(sleep.stopSearchingAfterHandOff(2));
        wakeAllAndJoin(sleep, threads);
    }

    /**
     * The proof's second case without a search from the sleeper a post counted on: the post
     * reads the counters (one sleeper, a joiner, nobody searching), the joiner leaves by itself
     * (interrupted) before the post's wake-up, which then finds the stack empty. Any worker that
     * announced before the post's read must back out of its sleep (the post moved the JEC), so
     * no worker sleeps without a search after the post. The notice the text once claimed from
     * the interrupted joiner is not needed: this shows the lost wake-up cannot happen.
     */
    @Test
    void aPostWhoseSleeperLeftByItselfLeavesNobodyAsleepUnsearched() throws Exception {
        for (int round = 0; round < 20; round++) {
            Sleep sleep = new Sleep(2, () -> false);
            long otherJec = sleep.announceSleepy(); // worker 1 announced, searched, is about to sleep
            AtomicInteger how = new AtomicInteger(-1);
            Thread joiner = new Thread(() -> {
                int h;
                while ((h = sleep.sleep(0, sleep.announceSleepy(), () -> false, true)) == Sleep.BACKED_OUT) {
                    Thread.onSpinWait();
                }
                how.set(h);
            });
            joiner.start();
            await().atMost(HANG).pollInterval(Duration.ofMillis(1))
                    .until(() -> sleep.sleepingWorkers() == 1 && joiner.getState() == Thread.State.WAITING);
            long postRead = sleep.readUnderLock(); // the post's read: one asleep, nobody searching
            joiner.interrupt();
            joiner.join(HANG.toMillis());
            assertEquals(Sleep.WOKEN, how.get(), "it took itself off");
            sleep.notifySlow(postRead); // the post goes on: nobody on the stack to wake
            assertEquals(0, sleep.searchingWorkers());
            assertEquals(Sleep.BACKED_OUT, sleep.sleep(1, otherJec), "announced before the post: must search again");
            assertEquals(null, sleep.inconsistency());
        }
    }

    // ------------------------------------------------------------------ errors inside a sleep

    /**
     * The three kinds of sleep a worker takes: idle, inside a join (with an abort check), and a
     * spare's timed one. Each returns how the sleep ended, or BACKED_OUT.
     */
    private interface SleepKind {
        int sleep(Sleep sleep, int index, long jec);
    }

    private static final List<SleepKind> KINDS = List.of(
            (sleep, index, jec) -> sleep.sleep(index, jec),
            (sleep, index, jec) -> sleep.sleep(index, jec, () -> false, true),
            (sleep, index, jec) -> sleep.sleepAtMost(index, jec, TimeUnit.DAYS.toNanos(1)));

    /** Throws an injected StackOverflowError at {@code point}, once, on {@code victim}'s thread. */
    private static Consumer<Sleep.Fault> failOnce(Sleep.Fault point, AtomicReference<Thread> victim,
                                                  Runnable before) {
        AtomicBoolean armed = new AtomicBoolean(true);
        return p -> {
            if (p == point && Thread.currentThread() == victim.get() && armed.getAndSet(false)) {
                before.run();
                throw new StackOverflowError("injected at " + p);
            }
        };
    }

    /**
     * Runs one sleep of {@code kind} as worker {@code index} on a thread of its own, retrying
     * while it backs out; returns what it returned, or the Error it threw.
     */
    private static Object sleepOnce(Sleep sleep, int index, SleepKind kind, AtomicReference<Thread> victim)
            throws InterruptedException {
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread t = new Thread(() -> {
            victim.set(Thread.currentThread());
            try {
                int how;
                while ((how = kind.sleep(sleep, index, sleep.announceSleepy())) == Sleep.BACKED_OUT) {
                    Thread.onSpinWait();
                }
                outcome.set(how);
            } catch (Throwable e) {
                outcome.set(e);
            }
        }, "victim-" + index);
        t.start();
        t.join(HANG.toMillis()); // hang detector
        assertFalse(t.isAlive(), "the sleep neither failed nor returned");
        return outcome.get();
    }

    /** After an Error: consistent state, and a post still wakes a sleeper, of each index. */
    private static void assertConsistentAndAwake(Sleep sleep, int slots) throws InterruptedException {
        assertEquals(null, sleep.inconsistency());
        assertEquals(0, sleep.sleepingWorkers());
        for (int i = 0; i < slots; i++) {
            List<Integer> order = new CopyOnWriteArrayList<>();
            Thread t = startSleeper(sleep, i, order);
            int index = i;
            await().atMost(HANG).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1))
                    .until(() -> sleep.sleepingWorkers() == 1 && t.getState() == Thread.State.WAITING);
            sleep.notifyNewJob();
            t.join(HANG.toMillis());
            assertFalse(t.isAlive(), "a post must wake the sleeper");
            assertEquals(List.of(index), order);
            sleep.stopSearching();
            assertEquals(null, sleep.inconsistency());
        }
    }

    /**
     * An Error in the abort check (a join's latch look, or the pool's shutdown check), which
     * the code made after counting the worker asleep: the worker must leave nothing counted.
     */
    @Test
    void anErrorInTheAbortCheckLeavesNothingCounted() throws Exception {
        for (int round = 0; round < 20; round++) {
            AtomicBoolean fail = new AtomicBoolean(true);
            Sleep sleep = new Sleep(2, () -> {
                if (fail.getAndSet(false)) {
                    throw new StackOverflowError("injected in mustNotSleep");
                }
                return false;
            });
            assertThrows(StackOverflowError.class, () -> sleep.sleep(0, sleep.announceSleepy()));
            assertConsistentAndAwake(sleep, 2);
            assertThrows(OutOfMemoryError.class, () -> sleep.sleep(1, sleep.announceSleepy(), () -> {
                throw new OutOfMemoryError("injected in a join's abort check");
            }));
            assertConsistentAndAwake(sleep, 2);
        }
    }

    /** An Error just before the sleeper's unlock: the lock must be free, the sleep undone. */
    @Test
    void anErrorAtTheUnlockLeavesTheLockFreeAndNothingCounted() throws Exception {
        for (int round = 0; round < 20; round++) {
            for (SleepKind kind : KINDS) {
                Sleep sleep = new Sleep(2, () -> false);
                AtomicReference<Thread> victim = new AtomicReference<>();
                sleep.faultHook = failOnce(Sleep.Fault.UNLOCK, victim, () -> { });
                Object outcome = sleepOnce(sleep, 0, kind, victim);
                assertTrue(outcome instanceof StackOverflowError, String.valueOf(outcome));
                assertConsistentAndAwake(sleep, 2);
            }
        }
    }

    /** An Error while parked (a park, a clock read, a re-lock): the sleeper takes itself off. */
    @Test
    void anErrorWhileParkedTakesTheSleeperOffTheStack() throws Exception {
        for (int round = 0; round < 20; round++) {
            for (SleepKind kind : KINDS) {
                Sleep sleep = new Sleep(2, () -> false);
                AtomicReference<Thread> victim = new AtomicReference<>();
                sleep.faultHook = failOnce(Sleep.Fault.PARK, victim, () -> { });
                Object outcome = sleepOnce(sleep, 1, kind, victim);
                assertTrue(outcome instanceof StackOverflowError, String.valueOf(outcome));
                assertConsistentAndAwake(sleep, 2);
            }
        }
    }

    /**
     * An Error while parked, after a waker ended the sleep: the wake-up's duty (search, or run
     * the job handed over) must reach the caller, not be lost with the Error.
     */
    @Test
    void anErrorAfterAWakeUpGivesTheWakeUpItsDue() throws Exception {
        for (int round = 0; round < 20; round++) {
            Sleep sleep = new Sleep(1, 1, () -> false, 0L);
            AtomicReference<Thread> victim = new AtomicReference<>();
            sleep.faultHook = failOnce(Sleep.Fault.PARK, victim, sleep::notifyNewJob);
            assertEquals(Sleep.WOKEN_TO_SEARCH, sleepOnce(sleep, 0, KINDS.get(0), victim));
            assertEquals(1, sleep.searchingWorkers(), "woken to search: the caller must stop searching");
            sleep.stopSearching();
            assertConsistentAndAwake(sleep, 1);

            Runnable job = () -> { };
            AtomicBoolean handed = new AtomicBoolean();
            sleep.faultHook = failOnce(Sleep.Fault.PARK, victim, () -> handed.set(sleep.tryHandOff(job)));
            assertEquals(Sleep.HANDED_OFF, sleepOnce(sleep, 0, KINDS.get(0), victim));
            assertTrue(handed.get());
            assertEquals(job, sleep.takeHandOff(0), "the job handed over reaches its worker");
            sleep.stopSearchingAfterHandOff(0);
            assertConsistentAndAwake(sleep, 1);
        }
    }

    /**
     * Runs one sleep of {@code kind} as worker {@code index} on a thread of its own; once it is
     * parked, hands its thread to {@code whileAsleep} (a wake-up, an interrupt), unless that is
     * null. Returns what the sleep returned, or the Error it threw.
     */
    private static Object sleepOnceThen(Sleep sleep, int index, SleepKind kind, AtomicReference<Thread> victim,
                                        Consumer<Thread> whileAsleep) throws InterruptedException {
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread t = new Thread(() -> {
            victim.set(Thread.currentThread());
            try {
                int how;
                while ((how = kind.sleep(sleep, index, sleep.announceSleepy())) == Sleep.BACKED_OUT) {
                    Thread.onSpinWait();
                }
                outcome.set(how);
            } catch (Throwable e) {
                outcome.set(e);
            }
        }, "victim-" + index);
        t.start();
        if (whileAsleep != null) {
            await().atMost(HANG).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1))
                    .until(() -> sleep.sleepingWorkers() == 1 && t.getState() == Thread.State.WAITING);
            whileAsleep.accept(t);
        }
        t.join(HANG.toMillis()); // hang detector
        assertFalse(t.isAlive(), "the sleep neither failed nor returned");
        return outcome.get();
    }

    /**
     * An Error at the unlock of a sleeper that took itself off the stack (out of time, or
     * interrupted), the unlock failing before or after it released the lock: the sleeper
     * must throw the Error, and leave the lock free. Its previous sleep ended with a wake-up
     * (to search, or with a job in hand), whose leftover must not be returned for this one:
     * its caller would stop a search nobody counted, or run a job nobody handed over.
     */
    @Test
    void anErrorAtTheUnlockAfterTakingItselfOffIsThrownAndFreesTheLock() throws Exception {
        for (int round = 0; round < 5; round++) {
            for (boolean handOff : new boolean[] {false, true}) {
                for (boolean interrupted : new boolean[] {false, true}) {
                    for (boolean released : new boolean[] {false, true}) {
                        String what = (handOff ? "after a hand-off, " : "after a wake-up, ")
                                + (interrupted ? "interrupted, " : "timed out, ")
                                + (released ? "unlock failing after the release" : "unlock failing before it");
                        Sleep sleep = new Sleep(1, 1, () -> false, 0L);
                        AtomicReference<Thread> victim = new AtomicReference<>();
                        Runnable job = () -> { };
                        Object first = sleepOnceThen(sleep, 0, KINDS.get(0), victim,
                                t -> assertEquals(handOff, handOff ? sleep.tryHandOff(job) : doPost(sleep)));
                        if (handOff) {
                            assertEquals(Sleep.HANDED_OFF, first, what);
                            assertEquals(job, sleep.takeHandOff(0));
                            sleep.stopSearchingAfterHandOff(0);
                        } else {
                            assertEquals(Sleep.WOKEN_TO_SEARCH, first, what);
                            sleep.stopSearching();
                        }
                        sleep.faultHook = failOnce(Sleep.Fault.TAKE_OFF_UNLOCK, victim,
                                released ? sleep::releaseLockForTest : () -> { });
                        Object second = interrupted
                                ? sleepOnceThen(sleep, 0, KINDS.get(1), victim, Thread::interrupt)
                                : sleepOnceThen(sleep, 0, (s, i, jec) -> s.sleepAtMost(i, jec, 1_000_000L), victim, null);
                        sleep.faultHook = null;
                        assertTrue(second instanceof StackOverflowError, what + ": " + second);
                        assertEquals(0, sleep.searchingWorkers(), what);
                        assertConsistentAndAwake(sleep, 1);
                    }
                }
            }
        }
    }

    /** A post that wakes the one sleeper; returns false, as a failed hand-off would. */
    private static boolean doPost(Sleep sleep) {
        sleep.notifyNewJob();
        return false;
    }

    /**
     * An Error at the sleeper's own unlock after the lock was released: the sleep is undone
     * and the Error thrown, as when it fails before the release.
     */
    @Test
    void anErrorAfterTheUnlockReleasedLeavesNothingCounted() throws Exception {
        for (int round = 0; round < 20; round++) {
            for (SleepKind kind : KINDS) {
                Sleep sleep = new Sleep(2, () -> false);
                AtomicReference<Thread> victim = new AtomicReference<>();
                sleep.faultHook = failOnce(Sleep.Fault.UNLOCK, victim, sleep::releaseLockForTest);
                Object outcome = sleepOnce(sleep, 0, kind, victim);
                assertTrue(outcome instanceof StackOverflowError, String.valueOf(outcome));
                assertConsistentAndAwake(sleep, 2);
            }
        }
    }

    private static Scheduler schedulerOf(WorkStealingPool pool) throws ReflectiveOperationException {
        Field f = WorkStealingPool.class.getDeclaredField("scheduler");
        f.setAccessible(true);
        return (Scheduler) f.get(pool);
    }

    /**
     * In a pool: a worker asleep inside a join (its task stolen by a worker that is blocked)
     * gets a StackOverflowError in its park, as a deep join would. Its task sees the Error; the
     * pool must stay consistent and keep waking workers for new tasks.
     */
    @Test
    void aJoinWhoseSleepFailsLeavesThePoolRunning() throws Exception {
        for (int round = 0; round < 5; round++) {
            try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).daemon(true).build()) {
                Scheduler s = schedulerOf(pool);
                AtomicReference<Thread> joiner = new AtomicReference<>();
                s.sleep.faultHook = failOnce(Sleep.Fault.PARK, joiner, () -> { });
                CountDownLatch started = new CountDownLatch(1);
                CountDownLatch release = new CountDownLatch(1);
                Throwable seen = pool.invoke(new Task<Throwable>() {
                    @Override
                    protected Throwable compute() {
                        Task<Void> inner = Task.adapt(() -> {
                            started.countDown();
                            awaitQuietly(release);
                        });
                        inner.fork();
                        awaitQuietly(started); // stolen and running on the other worker
                        joiner.set(Thread.currentThread());
                        try {
                            inner.join();
                            return null;
                        } catch (StackOverflowError e) {
                            return e;
                        } finally {
                            joiner.set(null);
                        }
                    }
                });
                assertTrue(seen instanceof StackOverflowError, String.valueOf(seen));
                release.countDown();
                for (int i = 0; i < 10; i++) {
                    await().atMost(HANG).pollInterval(Duration.ofMillis(1)).until(() -> s.sleepingWorkers() == 2);
                    assertEquals(null, s.sleep.inconsistency());
                    CountDownLatch ran = new CountDownLatch(1);
                    pool.execute(ran::countDown);
                    assertTrue(ran.await(HANG.toMillis(), TimeUnit.MILLISECONDS), "a task posted to a sleeping pool must run");
                }
            }
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Starts one thread per worker index that sleeps until woken; returns once all are blocked. */
    private static List<Thread> startSleepers(Sleep sleep, int n, List<Integer> woken) {
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            threads.add(startSleeper(sleep, i, null));
        }
        await().atMost(HANG).until(() -> sleep.sleepingWorkers() == n
                && threads.stream().allMatch(t -> t.getState() == Thread.State.WAITING));
        for (Thread t : threads) {
            WOKEN.put(t, woken);
        }
        return threads;
    }

    private static final java.util.Map<Thread, List<Integer>> WOKEN = new java.util.concurrent.ConcurrentHashMap<>();

    /**
     * Starts a thread that sleeps as worker {@code index} until woken, then records how it was
     * woken in the list registered for it (startSleepers) or its index in {@code order}.
     */
    private static Thread startSleeper(Sleep sleep, int index, List<Integer> order) {
        Thread t = new Thread(() -> {
            int how;
            while ((how = sleep.sleep(index, sleep.announceSleepy())) == Sleep.BACKED_OUT) {
                Thread.onSpinWait(); // another worker's announcement moved the counter
            }
            if (order != null) {
                order.add(index);
            } else {
                Thread self = Thread.currentThread(); // Awaitility polls on a thread of its own
                await().atMost(HANG).until(() -> WOKEN.containsKey(self));
                WOKEN.get(self).add(how);
            }
        }, "sleeper-" + index);
        t.start();
        return t;
    }
}
