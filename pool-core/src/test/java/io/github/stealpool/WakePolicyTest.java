package io.github.stealpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The throttled wake-up policy: posters wake a sleeper only while nobody searches, and searchers
 * pass the search on. These tests would hang (and fail at their bound) if a job could wait in a
 * queue while an idle worker sleeps: each needs every worker running at once.
 */
class WakePolicyTest {

    private static final Duration HANG = Duration.ofSeconds(60);

    /**
     * One outside thread posts as many tasks as there are workers, and each waits at a barrier
     * for all the others: the first post wakes one worker, and the others must be woken by the
     * workers themselves, one searcher after another.
     */
    @Test
    void oneSubmitterWakesEveryWorkerThroughTheSearchers() throws Exception {
        int workers = 4;
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(workers).daemon(true).build()) {
            for (int round = 0; round < 200; round++) {
                // Let them fall asleep, so the round starts from sleepers, not searchers.
                await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1)).atMost(HANG)
                        .until(() -> pool.sleepingWorkers() == workers);
                CyclicBarrier all = new CyclicBarrier(workers);
                List<Future<?>> tasks = new ArrayList<>();
                for (int i = 0; i < workers; i++) {
                    tasks.add(pool.submit(() -> {
                        all.await(HANG.toSeconds(), TimeUnit.SECONDS);
                        return null;
                    }));
                }
                for (Future<?> f : tasks) {
                    f.get(HANG.toSeconds(), TimeUnit.SECONDS); // a broken barrier fails here
                }
            }
        }
    }

    /**
     * Two outside threads post at once: a task that blocks until the other one has run. With two
     * workers the second task must reach the idle worker while the first blocks the other; a
     * searcher that took one of them and woke nobody for the other would deadlock (the case a
     * review found: the last searcher gives up, then its last search finds a job after all).
     */
    @Test
    void aTaskPostedWhileTheOnlySearcherTakesAnotherStillGetsAWorker() throws Exception {
        ExecutorService submitters = Executors.newFixedThreadPool(2);
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).daemon(true)
                .idleStrategy(IdleStrategy.backoff(0, 0)).build()) {
            AtomicInteger ran = new AtomicInteger();
            int rounds = 2_000;
            for (int round = 0; round < rounds; round++) {
                CountDownLatch other = new CountDownLatch(1);
                CountDownLatch start = new CountDownLatch(1);
                Future<Future<?>> a = submitters.submit(() -> {
                    start.await();
                    return pool.submit(() -> {
                        other.await(HANG.toSeconds(), TimeUnit.SECONDS);
                        return ran.incrementAndGet();
                    });
                });
                Future<Future<?>> b = submitters.submit(() -> {
                    start.await();
                    return pool.submit(other::countDown);
                });
                start.countDown();
                b.get().get(HANG.toSeconds(), TimeUnit.SECONDS);
                a.get().get(HANG.toSeconds(), TimeUnit.SECONDS);
            }
            assertEquals(rounds, ran.get());
        } finally {
            submitters.shutdownNow();
        }
    }
}
