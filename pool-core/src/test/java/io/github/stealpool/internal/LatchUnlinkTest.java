package io.github.stealpool.internal;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.stealpool.Task;
import io.github.stealpool.WorkStealingPool;
import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * Issue 35, item 2: a waiter that gives up (timeout, interrupt) takes its node off the latch's
 * waiter stack, as {@code FutureTask.removeWaiter} does, so polling a latch that is never set
 * keeps memory flat; a waiter that stays is still woken by the completion.
 */
class LatchUnlinkTest {

    private static final Duration HANG = Duration.ofSeconds(30); // a hang detector only

    /** Polls often: each round waits for a thread to park, which takes microseconds. */
    private static org.awaitility.core.ConditionFactory soon() {
        return await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1)).atMost(HANG);
    }

    /** Waits until {@code t} is parked on {@code latch} (LockSupport's blocker is the latch). */
    private static void awaitParkedOn(Thread t, Object latch) {
        soon().until(() -> LockSupport.getBlocker(t) == latch);
    }

    @Test
    void timedGetsThatTimeOutLeaveNoNodeLinked() throws Exception {
        Task<String> task = Task.adapt(() -> { }, "done"); // never forked, submitted or run
        for (int i = 0; i < 10_000; i++) {
            assertThrows(TimeoutException.class, () -> task.get(1, TimeUnit.NANOSECONDS));
        }
        assertEquals(0, TaskSecrets.task().waiterCount(task), "nodes left linked by timed-out gets");
        task.complete("done");
        assertEquals("done", task.get(1, TimeUnit.NANOSECONDS));
    }

    @Test
    void timedAwaitsThatTimeOutUnlinkOnlyThemselves() throws Exception {
        Signal signal = new Signal();
        AtomicInteger woken = new AtomicInteger();
        Thread stayer = new Thread(() -> {
            signal.await(); // stays until set
            woken.incrementAndGet();
        });
        stayer.start();
        awaitParkedOn(stayer, signal);
        for (int i = 0; i < 10_000; i++) {
            assertEquals(false, signal.await(1L));
        }
        assertEquals(1, signal.waiterCount(), "only the waiter that stays is linked");
        signal.set();
        stayer.join(HANG.toMillis());
        assertEquals(1, woken.get(), "the waiter that stayed was woken");
        assertEquals(0, signal.waiterCount());
    }

    /**
     * Sweeps race: several threads time out on the same latch at once, each unlinking its node
     * through nodes the others are unlinking, while one waiter stays. Afterwards only the
     * staying waiter is linked (a lost unlink write would leave a gone node behind), and the
     * completion still wakes it. Repeated, since each round samples interleavings.
     */
    @Test
    void concurrentLeaversUnlinkEveryGoneNodeAndKeepTheStayer() throws Exception {
        int threads = 4;
        for (int round = 0; round < 50; round++) {
            Signal signal = new Signal();
            AtomicInteger woken = new AtomicInteger();
            Thread stayer = new Thread(() -> {
                signal.await();
                woken.incrementAndGet();
            });
            stayer.start();
            soon().until(() -> LockSupport.getBlocker(stayer) == signal);
            java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(threads);
            Thread[] leavers = new Thread[threads];
            AtomicInteger timedOut = new AtomicInteger();
            for (int t = 0; t < threads; t++) {
                leavers[t] = new Thread(() -> {
                    try {
                        start.await();
                        for (int i = 0; i < 2_000; i++) {
                            if (!signal.await(1L)) {
                                timedOut.incrementAndGet();
                            }
                        }
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                });
                leavers[t].start();
            }
            for (Thread t : leavers) {
                t.join(HANG.toMillis());
            }
            assertEquals(threads * 2_000, timedOut.get());
            assertEquals(1, signal.waiterCount(), "round " + round + ": gone nodes left linked");
            signal.set();
            stayer.join(HANG.toMillis());
            assertEquals(1, woken.get(), "round " + round + ": the staying waiter was not woken");
        }
    }

    @Test
    void interruptedAwaitsLeaveNoNodeLinked() throws Exception {
        Signal signal = new Signal();
        AtomicInteger interrupted = new AtomicInteger();
        int rounds = 200;
        for (int i = 0; i < rounds; i++) {
            Thread waiter = new Thread(() -> {
                try {
                    signal.await(-1L);
                } catch (InterruptedException e) {
                    interrupted.incrementAndGet();
                }
            });
            waiter.start();
            awaitParkedOn(waiter, signal);
            waiter.interrupt();
            waiter.join(HANG.toMillis());
        }
        assertEquals(rounds, interrupted.get());
        assertEquals(0, signal.waiterCount(), "nodes left linked by interrupted awaits");
    }

    @Test
    void aParkedWorkerPastTheDepthBoundThatIsInterruptedLeavesNoNodeLinked() throws Exception {
        Scheduler s = new Scheduler(SchedulerConfig.basic(1, "latch", 8, 0)); // not started: only counts
        Signal signal = new Signal();
        AtomicInteger interrupted = new AtomicInteger();
        int rounds = 100;
        for (int i = 0; i < rounds; i++) {
            Thread waiter = new Thread(() -> {
                try {
                    signal.parkUntilSet(true, s);
                } catch (InterruptedException e) {
                    interrupted.incrementAndGet();
                }
            });
            waiter.start();
            awaitParkedOn(waiter, signal);
            waiter.interrupt();
            waiter.join(HANG.toMillis());
        }
        assertEquals(rounds, interrupted.get());
        assertEquals(0, signal.waiterCount(), "nodes left linked by interrupted parked workers");
    }

    @Test
    void aWorkerInterruptedWhileItSleepsInAJoinLeavesNoNodeLinked() throws Exception {
        WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).build();
        try {
            Task<String> never = Task.adapt(() -> { }, "never"); // nothing runs it
            int rounds = 20;
            for (int i = 0; i < rounds; i++) {
                Thread[] worker = new Thread[1];
                Future<Boolean> outer = pool.submit(() -> {
                    worker[0] = Thread.currentThread();
                    try {
                        never.get(); // a worker's interruptible wait: helps, then sleeps
                        return false;
                    } catch (InterruptedException e) {
                        return true;
                    }
                });
                soon().until(() -> TaskSecrets.task().waiterCount(never) > 0);
                worker[0].interrupt();
                assertTrue(outer.get(HANG.toSeconds(), TimeUnit.SECONDS), "the join was interrupted");
            }
            assertEquals(0, TaskSecrets.task().waiterCount(never), "nodes left linked by interrupted worker joins");
        } finally {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(HANG.toSeconds(), TimeUnit.SECONDS));
        }
    }
}
