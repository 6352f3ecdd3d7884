package io.github.stealpool.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.stealpool.Task;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
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
        Scheduler s = new Scheduler(1, "race", null, true, null);
        CountDownLatch workerAtExit = new CountDownLatch(1);
        CountDownLatch shutdownNowReturned = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        s.probe = new ShutdownProbe() {
            @Override
            public void stopPublished() {
                releaseFirst.countDown(); // the worker finishes its task and sees STOP...
                await(workerAtExit, "the worker to reach its exit"); // ...and is leaving now
            }

            @Override
            public void workerExitingAfterStop(Worker w) {
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
        assertEquals(8, returned.size(), "returned " + returned);
        assertEquals(new HashSet<>(queued.subList(1, 9)), new HashSet<>(returned),
                "every accepted task that did not run must be returned by shutdownNow");
        assertEquals(0, s.queuedTasks(), "nothing may stay queued once every submitter returned");
    }

    /**
     * A fork made after {@code shutdownNow} (the running task did not stop at the interrupt) is
     * cancelled at once and not left on the deque, where the exiting worker would no longer
     * find it: whoever joins it is released.
     */
    @Test
    void aForkAfterStopIsTakenBackAndCancelledByItsForker() throws Exception {
        Scheduler s = new Scheduler(1, "race", null, true, null);
        CountDownLatch stopPublished = new CountDownLatch(1);
        s.probe = new ShutdownProbe() {
            @Override
            public void stopPublished() {
                stopPublished.countDown();
            }
        };
        s.start();
        AtomicReference<Task<String>> forked = new AtomicReference<>();
        AtomicReference<Throwable> joined = new AtomicReference<>();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        s.execute(() -> {
            started.countDown();
            await(stopPublished, "shutdownNow");
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
        await(done, "the forking task to finish");
        assertTrue(s.awaitTermination(HANG, TimeUnit.SECONDS));
        assertTrue(forked.get().isCancelled(), String.valueOf(forked.get()));
        assertSame(java.util.concurrent.CancellationException.class, joined.get().getClass());
        assertFalse(forked.get().isCompletedNormally());
        assertEquals(0, s.queuedTasks());
    }
}
