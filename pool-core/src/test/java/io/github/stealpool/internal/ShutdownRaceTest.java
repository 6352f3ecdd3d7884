package io.github.stealpool.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.stealpool.Task;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Deterministic interleavings of {@code shutdownNow} with a worker on its way out, forced through
 * {@link ShutdownProbe}. The first test is the regression test for tasks that were accepted and
 * then neither run nor returned: on the old exit path (pop the deque, cancel forks, push the
 * plain tasks back, all without the lock) it fails on every run.
 */
class ShutdownRaceTest {

    private static final long HANG = 30; // seconds: a hang detector, not a speed claim

    private static void await(CountDownLatch latch, String what) {
        boolean interrupted = false;
        try {
            for (;;) {
                try {
                    if (!latch.await(HANG, TimeUnit.SECONDS)) {
                        throw new AssertionError("hung waiting for " + what);
                    }
                    return;
                } catch (InterruptedException e) {
                    interrupted = true; // shutdownNow interrupts workers: keep waiting
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** A task with a name, recording that it ran. */
    private static final class Named implements Runnable {
        final String name;
        final Set<String> ran;
        final Runnable body;

        Named(String name, Set<String> ran, Runnable body) {
            this.name = name;
            this.ran = ran;
            this.body = body;
        }

        @Override
        public void run() {
            body.run();
            synchronized (ran) {
                ran.add(name);
            }
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /**
     * One worker holds eight accepted tasks in its deque (the rest of a batch it took from the
     * injection queue) when {@code shutdownNow} publishes STOP. The worker sees STOP and heads
     * for the exit while the sweep runs: the sweep must still find all eight, so that each of
     * the ten accepted tasks is either run or returned.
     */
    @Test
    void aWorkerLeavingWhileShutdownNowSweepsLeavesItsTasksToTheSweep() throws Exception {
        Scheduler s = new Scheduler(SchedulerConfig.basic(1, "race", 8, 0));
        CountDownLatch workerAtExit = new CountDownLatch(1);
        CountDownLatch shutdownNowReturned = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        AtomicReference<Integer> dequeAtExit = new AtomicReference<>();
        s.probe = new ShutdownProbe() {
            @Override
            public void stopPublished() {
                releaseFirst.countDown(); // the worker finishes its task and sees STOP...
                await(workerAtExit, "the worker to reach its exit"); // ...and is leaving now
            }

            @Override
            public void workerExitingAfterStop(Worker w) {
                dequeAtExit.set(w.deque.size()); // the exit path takes nothing off its deque
                workerAtExit.countDown();
                await(shutdownNowReturned, "shutdownNow to return"); // the sweep runs meanwhile
            }
        };
        s.start();

        Set<String> ran = new HashSet<>();
        CountDownLatch blockerStarted = new CountDownLatch(1);
        CountDownLatch releaseBlocker = new CountDownLatch(1);
        s.execute(new Named("blocker", ran, () -> {
            blockerStarted.countDown();
            await(releaseBlocker, "the test to queue its tasks");
        }));
        await(blockerStarted, "the blocker to start");
        // Queued behind the blocker, from one thread, so all in one stripe: the worker takes
        // them as one batch, runs the first and pushes the other eight on its deque.
        CountDownLatch firstStarted = new CountDownLatch(1);
        List<Runnable> queued = new ArrayList<>();
        queued.add(new Named("t0", ran, () -> {
            firstStarted.countDown();
            await(releaseFirst, "shutdownNow");
        }));
        for (int i = 1; i <= 8; i++) {
            queued.add(new Named("t" + i, ran, () -> { }));
        }
        for (Runnable t : queued) {
            s.execute(t); // accepted: returns normally
        }
        releaseBlocker.countDown();
        await(firstStarted, "the batch's first task to start");
        assertEquals(8, s.deques[0].size(), "setup: the rest of the batch is in the worker's deque");

        List<Runnable> returned = s.shutdownNow();
        shutdownNowReturned.countDown();
        assertTrue(s.awaitTermination(HANG, TimeUnit.SECONDS));

        synchronized (ran) {
            assertEquals(Set.of("blocker", "t0"), ran);
        }
        assertEquals(8, dequeAtExit.get(), "the leaving worker held its tasks off the deque");
        assertEquals(8, returned.size(), "returned " + returned);
        assertEquals(new HashSet<>(queued.subList(1, 9)), new HashSet<>(returned),
                "every accepted task that did not run must be returned by shutdownNow");
        assertEquals(0, s.queuedTasks(), "nothing may stay queued once every submitter returned");
    }

    /**
     * A fork made after {@code shutdownNow} has swept (the running task did not stop at the
     * interrupt) is taken back by its forker and cancelled, not left on the deque, where the
     * exiting worker would no longer find it: whoever joins it is released.
     */
    @Test
    void aForkAfterStopIsTakenBackAndCancelledByItsForker() throws Exception {
        Scheduler s = new Scheduler(SchedulerConfig.basic(1, "race", 8, 0));
        CountDownLatch swept = new CountDownLatch(1); // counted down once shutdownNow returned
        s.start();
        AtomicReference<Task<String>> forked = new AtomicReference<>();
        AtomicReference<Throwable> joined = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        s.execute(() -> {
            started.countDown();
            await(swept, "shutdownNow to return");
            Task<String> child = new Task<>() {
                @Override
                protected String compute() {
                    return "ran after shutdownNow";
                }
            };
            child.fork();
            forked.set(child);
            try {
                child.join();
            } catch (Throwable t) {
                joined.set(t);
            }
            done.countDown();
        });
        await(started, "the task to start");
        assertTrue(s.shutdownNow().isEmpty());
        swept.countDown(); // the sweep is over: only the forker can take the fork back
        await(done, "the forking task to finish");
        assertTrue(s.awaitTermination(HANG, TimeUnit.SECONDS));
        assertTrue(forked.get().isCancelled(), String.valueOf(forked.get()));
        assertSame(java.util.concurrent.CancellationException.class, joined.get().getClass());
        assertFalse(forked.get().isCompletedNormally());
        assertEquals(0, s.queuedTasks());
    }

    /**
     * A fork onto a deque that holds work has no fence (Worker.fork), so {@code shutdownNow}'s
     * sweep may miss it while the forker's check still reads RUNNING. Forced here by pushing
     * onto the worker's deque from its running task after the sweep, with no check at all: the
     * owner then settles its deque as it exits after STOP (ShutdownSweep, rules 2 and 3),
     * under mainLock: the fork is cancelled, so its joiner is released, and a plain task (a late
     * submitter's, the only kind a worker's deque holds after the sweep) goes back to the queue
     * for its submitter to settle. Without the exit's settling the fork stays un-cancelled in
     * the deque of a thread that has gone.
     */
    @Test
    void aForkTheSweepCouldNotSeeIsCancelledByItsOwnerOnItsWayOut() throws Exception {
        Scheduler s = new Scheduler(SchedulerConfig.basic(1, "race", 8, 0));
        CountDownLatch swept = new CountDownLatch(1);
        s.start();
        Task<String> unseen = new Task<>() {
            @Override
            protected String compute() {
                return "must not run after shutdownNow";
            }
        };
        Set<String> ran = new HashSet<>();
        Runnable plain = new Named("plain", ran, () -> { });
        CountDownLatch started = new CountDownLatch(1);
        s.execute(() -> {
            started.countDown();
            await(swept, "shutdownNow to return");
            s.deques[0].push(plain); // a late submitter's task, below the fork
            s.deques[0].push(unseen); // the owner's thread: a fork nobody saw
            // returns without joining: the worker's loop sees STOP and exits
        });
        await(started, "the task to start");
        assertTrue(s.shutdownNow().isEmpty());
        swept.countDown();
        assertTrue(s.awaitTermination(HANG, TimeUnit.SECONDS));
        assertTrue(unseen.isCancelled(), String.valueOf(unseen));
        assertEquals(0, s.deques[0].size(), "the exiting owner settled its deque");
        assertEquals(1, s.queuedTasks(), "the plain task is back in the queue for its submitter");
        assertThrows(RejectedExecutionException.class, () -> s.settleLate(plain, false),
                "its submitter finds it there and rejects it");
        assertEquals(0, s.queuedTasks());
        synchronized (ran) {
            assertTrue(ran.isEmpty(), "nothing ran after shutdownNow: " + ran);
        }
    }

    /**
     * A late submitter settling after {@code shutdownNow} sweeps every queue. A fork/join piece
     * it finds there (here a fork in transit: pushed by a worker that has not yet re-checked
     * the run state, standing on the deque of a worker that has exited) must be cancelled, not
     * put back: after STOP nothing would ever run it, and its joiner would wait forever.
     * Another submitter's plain task goes back, for that submitter to settle.
     */
    @Test
    void aLateSubmittersSweepCancelsAForkInTransitAndPutsPlainTasksBack() throws Exception {
        Scheduler s = new Scheduler(SchedulerConfig.basic(1, "race", 8, 0));
        s.start();
        assertTrue(s.shutdownNow().isEmpty());
        assertTrue(s.awaitTermination(HANG, TimeUnit.SECONDS));
        // The worker has exited (happens-before via termination), so this thread may act as
        // its deque's owner.
        Task<String> inTransit = new Task<>() {
            @Override
            protected String compute() {
                return "must not run after shutdownNow";
            }
        };
        Runnable othersTask = () -> { };
        Task<String> othersSubmittedTask = new Task<>() { // a late pool.submit(task) from outside
            @Override
            protected String compute() {
                return "must not run after shutdownNow";
            }
        };
        s.deques[0].push(inTransit);
        s.deques[0].push(othersTask);
        s.injection.offer(othersSubmittedTask);
        Runnable mine = () -> { };
        s.injection.offer(mine); // this submitter's publication; it then saw STOP

        assertThrows(RejectedExecutionException.class, () -> s.settleLate(mine, true));
        assertTrue(inTransit.isCancelled(), String.valueOf(inTransit));
        assertTrue(othersSubmittedTask.isCancelled(), String.valueOf(othersSubmittedTask));
        s.settleLate(othersSubmittedTask, true); // its submitter settles: accepted, and cancelled
        assertEquals(1, s.queuedTasks(), "the other submitter's task is back in the queue");
        assertThrows(RejectedExecutionException.class, () -> s.settleLate(othersTask, true),
                "and that submitter finds it there and rejects it");
        assertEquals(0, s.queuedTasks());
    }
}
