package io.github.stealpool.internal;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * The timer learns how late its parks to a due entry return, so that it can wake that much
 * ahead of the next one (DelayScheduler, "Waking ahead of a deadline"). The public tests check
 * that no task starts before its delay whether or not the timer wakes ahead; this one checks
 * that it learns at all (a timer that never did would wake as late as before, and every
 * public test would still pass). Bounds detect hangs only.
 */
class TimerWakesAheadTest {

    private static final long HANG = 30;

    @Test
    void theTimerLearnsHowLateItsParksToADueEntryReturn() throws Exception {
        assumeTrue(someParkReturnsInTime(), "timed parks here return " + DelayScheduler.MAX_AHEAD_NANOS
                + " ns late or more (a coarse clock): the timer has nothing to learn, and parks as before");
        Scheduler s = new Scheduler(SchedulerConfig.basic(2, "ahead", 8, 0));
        s.start();
        try {
            DelayScheduler d = s.delays();
            // One entry at a time, due 300 us out: the timer parks to each deadline, nobody
            // unparks it, and a park returns at least a little after the time it asked for.
            await().atMost(HANG, TimeUnit.SECONDS).until(() -> {
                d.schedule(() -> 1, 300, TimeUnit.MICROSECONDS, null).get(HANG, TimeUnit.SECONDS);
                return d.parkOvershootNanos() > 0L;
            });
            assertTrue(d.parkOvershootNanos() < DelayScheduler.MAX_AHEAD_NANOS, "the estimate stays under its bound");
        } finally {
            s.shutdownNow();
            assertTrue(s.awaitTermination(HANG, TimeUnit.SECONDS));
        }
    }

    /** Whether a timed park on this platform ever returns less than the timer's bound late. */
    private static boolean someParkReturnsInTime() {
        long wait = TimeUnit.MICROSECONDS.toNanos(300);
        for (int i = 0; i < 20; i++) {
            long t0 = System.nanoTime();
            LockSupport.parkNanos(wait);
            if (System.nanoTime() - t0 - wait < DelayScheduler.MAX_AHEAD_NANOS) {
                return true;
            }
        }
        return false;
    }
}
