package io.github.stealpool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Interrupts reach the task they were aimed at when a worker runs one task on top of another:
 * a task that waits for a future it submitted runs that task itself on a one-worker pool. As
 * with a {@code ThreadPoolExecutor}, an interrupt from {@code shutdownNow} or from
 * {@code cancel(true)} of the outer task's future reaches the outer task once the nested one
 * returns, and one aimed at the nested task never reaches the outer one.
 */
class InterruptDeliveryTest {

    private static final long HANG = 30; // seconds: a hang detector, not a speed claim

    private final WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).build();
    /** Lets every spinning task of a failed test go, so that the pool can end. */
    private final AtomicBoolean giveUp = new AtomicBoolean();

    @AfterEach
    void close() throws InterruptedException {
        giveUp.set(true);
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(HANG, TimeUnit.SECONDS));
    }

    /** The outer task, the nested task it waits for, and what the outer one saw afterwards. */
    private final class Nesting {
        final CountDownLatch nestedStarted = new CountDownLatch(1);
        final AtomicBoolean releaseNested = new AtomicBoolean();
        final AtomicReference<Future<?>> nested = new AtomicReference<>();
        final CountDownLatch outerInterrupted = new CountDownLatch(1);
        final CountDownLatch outerDone = new CountDownLatch(1);
        final AtomicBoolean interruptedAfterNested = new AtomicBoolean();
        /** Counted down once {@link #interruptedAfterNested} holds what the outer task saw. */
        final CountDownLatch nestedReturned = new CountDownLatch(1);
        final Future<?> outer;

        Nesting() throws InterruptedException {
            outer = pool.submit(() -> {
                try {
                    Future<?> f = pool.submit(() -> {
                        nestedStarted.countDown();
                        spinUntil(releaseNested); // ignores interrupts, as a CPU-bound step
                    });
                    nested.set(f);
                    try {
                        f.get(); // on the one worker: runs f on top of this task
                    } catch (CancellationException | ExecutionException e) {
                        // the nested task's outcome is not what these tests look at
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt(); // the same news, as an exception
                    }
                    interruptedAfterNested.set(Thread.currentThread().isInterrupted());
                    nestedReturned.countDown();
                    while (!Thread.currentThread().isInterrupted() && !giveUp.get()) {
                        Thread.onSpinWait(); // the outer task's own loop, ended by an interrupt
                    }
                    if (Thread.currentThread().isInterrupted()) {
                        outerInterrupted.countDown();
                    }
                } finally {
                    outerDone.countDown();
                }
            });
            assertTrue(nestedStarted.await(HANG, TimeUnit.SECONDS));
        }
    }

    private void spinUntil(AtomicBoolean flag) {
        while (!flag.get() && !giveUp.get()) {
            Thread.onSpinWait();
        }
    }

    @Test
    void shutdownNowDuringANestedTaskReachesTheOuterTask() throws Exception {
        Nesting n = new Nesting();
        pool.shutdownNow();
        n.releaseNested.set(true);
        assertTrue(n.outerInterrupted.await(HANG, TimeUnit.SECONDS), "the outer task never saw the stop");
        assertTrue(pool.awaitTermination(HANG, TimeUnit.SECONDS));
    }

    @Test
    void cancellingTheOuterTaskDuringANestedTaskInterruptsTheOuterTask() throws Exception {
        Nesting n = new Nesting();
        assertTrue(n.outer.cancel(true));
        n.releaseNested.set(true);
        assertTrue(n.outerInterrupted.await(HANG, TimeUnit.SECONDS),
                "the outer task never saw its cancellation's interrupt");
        assertTrue(n.outerDone.await(HANG, TimeUnit.SECONDS));
        // The pool goes on: the next task starts with a clear status.
        assertFalse(pool.submit(() -> Thread.currentThread().isInterrupted()).get(HANG, TimeUnit.SECONDS));
    }

    @Test
    void cancellingTheOuterTaskWithoutInterruptLeavesItUninterrupted() throws Exception {
        Nesting n = new Nesting();
        assertTrue(n.outer.cancel(false));
        n.releaseNested.set(true);
        assertTrue(n.nestedReturned.await(HANG, TimeUnit.SECONDS));
        assertFalse(n.interruptedAfterNested.get(), "cancel(false) interrupted the outer task");
    }

    @Test
    void cancellingTheNestedTaskDoesNotInterruptTheOuterTask() throws Exception {
        Nesting n = new Nesting();
        assertTrue(n.nested.get().cancel(true));
        n.releaseNested.set(true);
        assertTrue(n.nestedReturned.await(HANG, TimeUnit.SECONDS));
        assertFalse(n.interruptedAfterNested.get(), "the nested task's interrupt reached the outer task");
        assertThrows(CancellationException.class, () -> n.nested.get().get());
        assertTrue(n.outer.cancel(true)); // now aimed at the outer task: it ends
        assertTrue(n.outerInterrupted.await(HANG, TimeUnit.SECONDS));
    }

    @Test
    void aCancellationInterruptIsDeliveredOnceNotAfterEveryNestedTask() throws Exception {
        CountDownLatch waiting = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        AtomicBoolean caught = new AtomicBoolean();
        AtomicReference<Boolean> interruptedAfterCleanup = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        Future<?> outer = pool.submit(() -> {
            try {
                waiting.countDown();
                never.await();
            } catch (InterruptedException e) {
                caught.set(true); // handled: the status is clear now
            }
            try {
                // Clean-up work that waits for a task of its own: runs it on this stack.
                pool.submit(() -> 1).get();
                interruptedAfterCleanup.set(Thread.currentThread().isInterrupted());
            } catch (Exception e) {
                interruptedAfterCleanup.set(true); // an InterruptedException: delivered twice
            } finally {
                done.countDown();
            }
        });
        assertTrue(waiting.await(HANG, TimeUnit.SECONDS));
        assertTrue(outer.cancel(true));
        assertTrue(done.await(HANG, TimeUnit.SECONDS));
        assertTrue(caught.get());
        assertFalse(interruptedAfterCleanup.get(), "the handled interrupt came back");
    }

    @Test
    void anInvokeAnyLoserRunningANestedTaskSeesItsCancellation() throws Exception {
        WorkStealingPool two = WorkStealingPool.builder().parallelism(2).build();
        try {
            CountDownLatch nestedStarted = new CountDownLatch(1);
            AtomicBoolean releaseNested = new AtomicBoolean();
            CountDownLatch loserInterrupted = new CountDownLatch(1);
            Callable<String> winner = () -> {
                nestedStarted.await(); // the loser is inside its nested task
                return "winner";
            };
            Callable<String> loser = () -> {
                Future<?> f = two.submit(() -> {
                    nestedStarted.countDown();
                    spinUntil(releaseNested);
                });
                f.get(); // runs f on this stack: the other worker is busy with the winner
                while (!Thread.currentThread().isInterrupted() && !giveUp.get()) {
                    Thread.onSpinWait();
                }
                if (Thread.currentThread().isInterrupted()) {
                    loserInterrupted.countDown();
                }
                return "loser";
            };
            assertEquals("winner", two.invokeAny(List.of(winner, loser)));
            releaseNested.set(true); // invokeAny cancelled the loser with interrupt meanwhile
            assertTrue(loserInterrupted.await(HANG, TimeUnit.SECONDS),
                    "the loser never saw invokeAny's cancellation");
        } finally {
            giveUp.set(true);
            two.shutdownNow();
            assertTrue(two.awaitTermination(HANG, TimeUnit.SECONDS));
        }
    }

    @Test
    void withTaskTimingOnTheCancellationStillReachesTheOuterTask() throws Exception {
        // Submissions this slow are all timed: both tasks run inside their timed wrappers.
        java.util.concurrent.atomic.AtomicInteger timed = new java.util.concurrent.atomic.AtomicInteger();
        pool.addTaskTimingListener((queued, ran) -> timed.incrementAndGet());
        Nesting n = new Nesting();
        assertTrue(n.outer.cancel(true));
        n.releaseNested.set(true);
        assertTrue(n.outerInterrupted.await(HANG, TimeUnit.SECONDS),
                "the outer task never saw its cancellation's interrupt");
        assertTrue(n.outerDone.await(HANG, TimeUnit.SECONDS));
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(HANG))
                .until(() -> timed.get() >= 1); // the wrappers were there
    }

    @Test
    void aStopReachesATaskWhoseNestedTaskRunsTwoDeep() throws Exception {
        // outer waits for middle, which waits for inner: both run on the outer task's stack.
        CountDownLatch innerStarted = new CountDownLatch(1);
        AtomicBoolean releaseInner = new AtomicBoolean();
        AtomicBoolean middleInterrupted = new AtomicBoolean();
        CountDownLatch outerInterrupted = new CountDownLatch(1);
        pool.submit(() -> {
            Future<?> middle = pool.submit(() -> {
                Future<?> inner = pool.submit(() -> {
                    innerStarted.countDown();
                    spinUntil(releaseInner);
                });
                try {
                    inner.get();
                } catch (Exception e) {
                    Thread.currentThread().interrupt();
                }
                middleInterrupted.set(Thread.currentThread().isInterrupted());
            });
            try {
                middle.get();
            } catch (Exception e) {
                Thread.currentThread().interrupt();
            }
            while (!Thread.currentThread().isInterrupted() && !giveUp.get()) {
                Thread.onSpinWait();
            }
            if (Thread.currentThread().isInterrupted()) {
                outerInterrupted.countDown();
            }
        });
        assertTrue(innerStarted.await(HANG, TimeUnit.SECONDS));
        pool.shutdownNow();
        releaseInner.set(true);
        assertTrue(outerInterrupted.await(HANG, TimeUnit.SECONDS), "the outer task never saw the stop");
        assertTrue(middleInterrupted.get(), "the middle task never saw the stop");
    }
}
