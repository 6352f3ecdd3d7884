package io.github.stealpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * {@code Builder.fifo(true)}: each worker takes its own tasks oldest first ({@code ForkJoinPool}'s
 * asyncMode), and the pool stays correct: every task once, fork/join unharmed, no task left in a
 * worker's own deque while it sleeps.
 */
class FifoModeTest {

    private static final Duration HANG = Duration.ofSeconds(60);

    /** The order in which one worker ran the tasks a task executed, 0 first. */
    private static List<Integer> orderOfFollowUps(boolean fifo) throws Exception {
        List<Integer> order = new ArrayList<>(); // one worker: no other thread touches it
        CountDownLatch done = new CountDownLatch(5);
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).fifo(fifo).daemon(true).build()) {
            pool.execute(() -> {
                for (int i = 0; i < 5; i++) {
                    int id = i;
                    pool.execute(() -> {
                        order.add(id);
                        done.countDown();
                    });
                }
            });
            assertTrue(done.await(HANG.toSeconds(), TimeUnit.SECONDS));
        }
        return order;
    }

    @Test
    void aWorkerRunsItsOwnTasksOldestFirstInFifoMode() throws Exception {
        assertEquals(List.of(0, 1, 2, 3, 4), orderOfFollowUps(true));
    }

    @Test
    void aWorkerRunsItsOwnTasksNewestFirstByDefault() throws Exception {
        assertEquals(List.of(4, 3, 2, 1, 0), orderOfFollowUps(false));
    }

    /**
     * Tasks queued from outside while the only worker is busy come back in submission order in
     * both modes: the batch a worker takes from the injection queue is pushed for the end of the
     * deque its owner takes from.
     */
    @Test
    void submissionsFromOutsideRunInSubmissionOrderInBothModes() throws Exception {
        for (boolean fifo : new boolean[] {true, false}) {
            int n = 300; // several batches of 64
            List<Integer> order = new ArrayList<>();
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch done = new CountDownLatch(n);
            try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).fifo(fifo).daemon(true).build()) {
                try {
                    pool.execute(() -> {
                        try {
                            release.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    });
                    for (int i = 0; i < n; i++) {
                        int id = i;
                        pool.execute(() -> {
                            order.add(id);
                            done.countDown();
                        });
                    }
                } finally {
                    release.countDown();
                }
                assertTrue(done.await(HANG.toSeconds(), TimeUnit.SECONDS));
            }
            assertEquals(IntStream.range(0, n).boxed().collect(Collectors.toList()), order, "fifo=" + fifo);
        }
    }

    /**
     * Four workers each post follow-up tasks from inside tasks, many times over: every task runs
     * exactly once, and the waits end (a task left in its own deque while its worker sleeps
     * would hang a round, as would a lost wake-up).
     */
    @Test
    void everyFollowUpRunsExactlyOnceWithThievesAndSleepers() throws Exception {
        int seeds = 64;
        int followUps = 200;
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(4).fifo(true).daemon(true).build()) {
            for (int round = 0; round < 20; round++) {
                AtomicIntegerArray runs = new AtomicIntegerArray(seeds * followUps);
                CountDownLatch done = new CountDownLatch(seeds * followUps);
                for (int s = 0; s < seeds; s++) {
                    int seed = s;
                    pool.execute(() -> {
                        for (int f = 0; f < followUps; f++) {
                            int id = seed * followUps + f;
                            pool.execute(() -> {
                                runs.incrementAndGet(id);
                                done.countDown();
                            });
                        }
                    });
                }
                await().atMost(HANG).until(() -> done.getCount() == 0);
                for (int i = 0; i < runs.length(); i++) {
                    assertEquals(1, runs.get(i), "task " + i);
                }
                // Let the workers fall asleep, so the next round starts with wake-ups.
                await().atMost(HANG).until(() -> pool.sleepingWorkers() == 4);
            }
        }
    }

    /** Fork/join keeps working: joins still run their own forks, newest first. */
    @Test
    void forkJoinGivesTheSameResultsInFifoMode() {
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(4).fifo(true).daemon(true).build()) {
            assertEquals(ForkJoinTest.fibSequential(25), ForkJoinTest.fibJoin(pool, 25));
            assertEquals(ForkJoinTest.fibSequential(22), (long) pool.invoke(new ForkJoinTest.Fib(22)));
            AtomicLong sum = new AtomicLong();
            pool.range(0, 100_000).forEach(i -> sum.addAndGet(i));
            assertEquals(99_999L * 100_000 / 2, sum.get());
        }
    }

    /** Workers that block on each other in FIFO mode still all get woken to run. */
    @Test
    void everyWorkerIsWokenInFifoMode() throws Exception {
        int workers = 4;
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(workers).fifo(true).daemon(true).build()) {
            for (int round = 0; round < 50; round++) {
                await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1)).atMost(HANG)
                        .until(() -> pool.sleepingWorkers() == workers);
                CyclicBarrier all = new CyclicBarrier(workers);
                CountDownLatch done = new CountDownLatch(workers);
                pool.execute(() -> {
                    for (int i = 0; i < workers; i++) {
                        pool.execute(() -> {
                            try {
                                all.await(HANG.toSeconds(), TimeUnit.SECONDS); // a hang detector
                            } catch (Exception e) {
                                throw new IllegalStateException(e);
                            }
                            done.countDown();
                        });
                    }
                });
                await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1)).atMost(HANG)
                        .until(() -> done.getCount() == 0);
            }
        }
    }

    /**
     * A worker in FIFO mode clears the slots it takes its tasks from: finished tasks, and what
     * they hold, are not kept reachable by an idle pool (the deque's promise; taking from the
     * top with a bare steal broke it: about 1,000 of 1,000 stayed reachable).
     */
    @Test
    void finishedTasksAreNotKeptReachable() throws Exception {
        int tasks = 1_000;
        List<WeakReference<byte[]>> payloads = java.util.Collections.synchronizedList(new ArrayList<>());
        CountDownLatch done = new CountDownLatch(tasks);
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).fifo(true).daemon(true).build()) {
            pool.execute(() -> {
                for (int i = 0; i < tasks; i++) {
                    byte[] payload = new byte[1024];
                    payloads.add(new WeakReference<>(payload));
                    pool.execute(() -> {
                        if (payload.length > 0) {
                            done.countDown();
                        }
                    });
                }
            });
            assertTrue(done.await(HANG.toSeconds(), TimeUnit.SECONDS));
            await().atMost(HANG).until(() -> pool.sleepingWorkers() == 1);
            // The last task may still sit in a frame of the worker's run loop.
            await().atMost(HANG).until(() -> {
                System.gc();
                return payloads.stream().filter(r -> r.get() != null).count() <= 1;
            });
        }
    }
}
