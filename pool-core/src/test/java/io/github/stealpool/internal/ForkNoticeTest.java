package io.github.stealpool.internal;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Which forks a worker announces ({@code Worker.forkPiece}; Sleep, "Forks onto a deque that
 * holds work"), and that an owner about to wait without taking tasks announces the rest
 * ({@code Worker.publishForks}). Driven by hand: the scheduler is never started, the test thread
 * stands in for worker 0 (its deque's owner), and another thread sleeps as worker 1, going back
 * to sleep whenever it is woken. A wake-up happens in the waker's thread, under the lock, so the
 * count read right after a call on the test thread says whether that call woke the sleeper.
 */
class ForkNoticeTest {

    private static final Duration HANG = Duration.ofSeconds(30);

    /** The lab switch {@code stealpool.lab.forkNotice=fenced}: only fenced forks notify. */
    private static final boolean ONLY_FENCED = "fenced".equals(System.getProperty("stealpool.lab.forkNotice"));

    private Scheduler scheduler;
    private Worker owner;
    private Sleep sleep;
    private final AtomicBoolean done = new AtomicBoolean();
    private Thread worker1;

    /** A fork/join piece that does nothing: only where it lands matters here. */
    private static final class Piece implements ForkedJob {
        @Override
        public void run() {
        }

        @Override
        public void abandon() {
        }
    }

    @BeforeEach
    void startTheSleeper() {
        scheduler = new Scheduler(SchedulerConfig.basic(2, "fork-notice", 0, 0));
        owner = scheduler.workers[0];
        sleep = scheduler.sleep;
        worker1 = new Thread(() -> {
            // Sleeps; woken to search, it stops searching (it never looks) and sleeps again.
            while (!done.get()) {
                if (sleep.sleep(1, sleep.announceSleepy()) == Sleep.WOKEN_TO_SEARCH) {
                    sleep.stopSearching();
                }
            }
        }, "fork-notice-worker-1");
        worker1.start();
        awaitAsleep();
    }

    @AfterEach
    void stopTheSleeper() throws InterruptedException {
        done.set(true);
        while (worker1.isAlive()) {
            sleep.wakeAll();
            worker1.join(10);
        }
        Worker.CURRENT.remove();
    }

    @Test
    void aForkOntoAnEmptyDequeWakesASleeperAndOneOntoADequeThatHoldsWorkOnlyAsAHint() {
        long before = wakeUps();
        owner.fork(new Piece()); // onto the empty deque: fenced and announced
        assertTrue(wakeUps() > before, "a fork onto an empty deque wakes the sleeper");
        awaitAsleep(); // it found nothing (it never looks) and sleeps again

        long afterFirst = wakeUps();
        owner.fork(new Piece()); // onto a deque that holds the first: no fence
        assertEquals(ONLY_FENCED ? afterFirst : afterFirst + 1, wakeUps(),
                ONLY_FENCED ? "with only fenced forks notified, a fork onto a deque that holds work wakes nobody"
                        : "by default a fork onto a deque that holds work still notifies, as a hint");
        assertEquals(2, owner.queuedTasks());
    }

    @Test
    void anOwnerAboutToWaitWithoutTakingTasksAnnouncesItsForks() {
        owner.fork(new Piece());
        awaitAsleep();
        owner.fork(new Piece());
        awaitAsleep();

        long before = wakeUps();
        Worker.CURRENT.set(owner); // the test thread is worker 0 for publishForksOfCurrent
        Worker.publishForksOfCurrent();
        assertEquals(before + 1, wakeUps(), "the forks the owner will not take meanwhile reach a sleeper");

        owner.tryUnfork(owner.deque.peekBottom());
        owner.tryUnfork(owner.deque.peekBottom());
        awaitAsleep();
        long empty = wakeUps();
        Worker.publishForksOfCurrent();
        assertEquals(empty, wakeUps(), "nothing to announce: nobody is woken");
    }

    /** Waits until worker 1 is parked, counted asleep, with nobody searching. */
    private void awaitAsleep() {
        await().atMost(HANG).until(() -> sleep.sleepingWorkers() == 1 && sleep.searchingWorkers() == 0
                && worker1.getState() == Thread.State.WAITING);
    }

    /** Wake-ups so far, counted by the waker under the lock. */
    private long wakeUps() {
        return sleep.idleTotals()[1];
    }
}
