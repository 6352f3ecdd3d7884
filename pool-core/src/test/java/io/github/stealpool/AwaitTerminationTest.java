package io.github.stealpool;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Once {@code awaitTermination} returns true, no pool thread is alive. The last worker marks the
 * pool terminated on its way out, while its thread still runs, and {@code terminationFuture}'s
 * actions run on that thread: here one holds it until the waiting test thread is inside
 * {@code Thread.join}. A pool that returned as soon as it was marked terminated would leave that
 * thread alive (and the action waiting, until the test gives up on it), and the test fails.
 */
class AwaitTerminationTest {

    @Test
    void noWorkerThreadIsAliveOnceAwaitTerminationReturnsTrue() throws Exception {
        RecordingThreadFactory threads = new RecordingThreadFactory();
        WorkStealingPool pool = WorkStealingPool.builder().parallelism(3).threadFactory(threads).build();
        Thread waiter = Thread.currentThread();
        AtomicBoolean giveUp = new AtomicBoolean();
        pool.terminationFuture().thenRun(() -> {
            while (!giveUp.get() && !isJoining(waiter)) {
                Thread.onSpinWait();
            }
        });
        pool.submit(() -> 1).get();
        pool.shutdown();
        try {
            assertTrue(pool.awaitTermination(60, TimeUnit.SECONDS)); // a hang detector
            for (Thread t : threads.threads) {
                assertFalse(t.isAlive(), t + " still alive after awaitTermination returned true");
            }
        } finally {
            giveUp.set(true);
        }
        assertTrue(threads.allEnded());
    }

    private static boolean isJoining(Thread t) {
        return Arrays.stream(t.getStackTrace())
                .anyMatch(f -> f.getClassName().equals("java.lang.Thread") && f.getMethodName().equals("join"));
    }
}
