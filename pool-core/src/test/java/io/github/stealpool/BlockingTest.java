package io.github.stealpool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Blocking tasks hold their worker, as in a fixed thread pool, but never keep the other workers
 * from draining the queues, including the blocked worker's own deque.
 */
class BlockingTest {

    private static final long HANG = 60;

    @Test
    void blockedWorkersDoNotStopTheOthersFromDrainingEverything() throws Exception {
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(3).build()) {
            CountDownLatch gate = new CountDownLatch(1);
            CountDownLatch blocked = new CountDownLatch(2);
            int forks = 200;
            CountDownLatch forksRan = new CountDownLatch(forks);
            for (int b = 0; b < 2; b++) {
                pool.execute(() -> {
                    // Its own children land on its own deque; then it blocks, as on I/O.
                    for (int i = 0; i < forks / 2; i++) {
                        pool.execute(forksRan::countDown);
                    }
                    blocked.countDown();
                    try {
                        gate.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
            }
            assertTrue(blocked.await(HANG, TimeUnit.SECONDS));
            // One worker left for everything: the blocked ones' deques, outside tasks, fork/join.
            int outside = 10_000;
            CountDownLatch outsideRan = new CountDownLatch(outside);
            for (int i = 0; i < outside; i++) {
                pool.execute(outsideRan::countDown);
            }
            assertEquals(6765L, pool.invoke(new ForkJoinTest.Fib(20)));
            assertTrue(forksRan.await(HANG, TimeUnit.SECONDS), "the blocked workers' tasks were stolen");
            assertTrue(outsideRan.await(HANG, TimeUnit.SECONDS), "outside tasks ran");
            assertEquals(1, gate.getCount(), "all of it while the two were still blocked");
            gate.countDown();
        }
    }
}
