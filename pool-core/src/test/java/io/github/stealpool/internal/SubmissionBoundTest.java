package io.github.stealpool.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The bound's permits along the paths a queued task takes without running, driven by hand as
 * {@link ShutdownRaceTest} drives them: each task that leaves the injection queue gives its
 * permit back once, and a task put back by a late submitter's sweep takes one by force.
 */
class SubmissionBoundTest {

    private static final long HANG = 30;

    private static Scheduler bounded(int max) {
        return new Scheduler(new SchedulerConfig(1, "bound", null, true, null, 8, 0, false, 0, 1L,
                max, SchedulerConfig.ABORT));
    }

    /**
     * Two late submitters after shutdownNow: the first one's sweep drains both tasks (two
     * permits back), rejects its own and puts the other back (one taken by force); the second
     * finds its task and rejects it (its permit back). All the room is back, none extra.
     */
    @Test
    void lateSubmittersSweepsGiveEachPermitBackOnce() throws Exception {
        Scheduler s = bounded(4);
        s.start();
        assertTrue(s.shutdownNow().isEmpty());
        assertTrue(s.awaitTermination(HANG, TimeUnit.SECONDS));
        Runnable mine = () -> { };
        Runnable others = () -> { };
        assertTrue(s.bound.tryAcquire()); // as pushExternal: a permit, then the offer
        s.injection.offer(others);
        assertTrue(s.bound.tryAcquire());
        s.injection.offer(mine);
        assertEquals(2, s.bound.remaining());

        assertThrows(RejectedExecutionException.class, () -> s.settleLate(mine, true));
        assertEquals(1, s.queuedTasks(), "the other submitter's task is back");
        assertEquals(3, s.bound.remaining(), "and holds its permit again");
        assertThrows(RejectedExecutionException.class, () -> s.settleLate(others, true));
        assertEquals(0, s.queuedTasks());
        assertEquals(4, s.bound.remaining());
        assertEquals(4, s.bound.availablePermits(), "no permit given back twice");
    }

    /** shutdownNow's sweep gives back the permit of every task it returns. */
    @Test
    void shutdownNowGivesBackThePermitsOfTheTasksItReturns() throws Exception {
        Scheduler s = bounded(8);
        List<Runnable> tasks = new ArrayList<>();
        for (int i = 0; i < 5; i++) { // not started: nothing takes them but the sweep
            Runnable t = () -> { };
            assertTrue(s.bound.tryAcquire());
            s.injection.offer(t);
            tasks.add(t);
        }
        assertEquals(3, s.bound.remaining());
        s.start();
        List<Runnable> never = s.shutdownNow();
        assertTrue(s.awaitTermination(HANG, TimeUnit.SECONDS));
        // The worker may have taken and run some before STOP: each gave its permit back too.
        assertTrue(never.size() <= 5);
        assertEquals(8, s.bound.availablePermits());
    }

    @Test
    void anUnboundedSchedulerHasNoBound() {
        Scheduler s = new Scheduler(SchedulerConfig.basic(1, "free", 8, 0));
        assertEquals(null, s.bound);
        assertEquals(Long.MAX_VALUE, s.statistics().queueRemaining());
    }
}
