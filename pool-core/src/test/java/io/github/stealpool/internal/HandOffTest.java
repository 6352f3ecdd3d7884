package io.github.stealpool.internal;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.stealpool.PoolStats;
import io.github.stealpool.Task;
import io.github.stealpool.WorkStealingPool;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A task from outside handed to the idle worker woken for it (Sleep, "Handing a job to the
 * worker woken for it"), in a real pool: it runs, it is counted, a post that comes while it runs
 * still finds a worker, tasks posted while the handed worker wakes run after its own, and a
 * worker asleep inside a join is woken as before, not handed a task.
 */
class HandOffTest {

    private static final Duration HANG = Duration.ofSeconds(60);

    private static Scheduler schedulerOf(WorkStealingPool pool) throws ReflectiveOperationException {
        Field f = WorkStealingPool.class.getDeclaredField("scheduler");
        f.setAccessible(true);
        return (Scheduler) f.get(pool);
    }

    private static long handOffs(Scheduler s) {
        return s.sleep.idleTotals()[3];
    }

    private static void awaitAsleep(Scheduler s, int workers) {
        await().atMost(HANG).until(() -> s.sleepingWorkers() == workers);
    }

    /** Every worker asleep, the last for long enough (Sleep.HAND_OFF_AFTER_NANOS). */
    private static void awaitHandOffReady(Scheduler s) {
        // Polled every millisecond: Awaitility's default 100 ms would cost each round that much.
        await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1)).atMost(HANG).until(s.sleep::handOffReady);
    }

    @Test
    void anOutsideTaskGoesStraightToTheIdleWorkerItWakesAndIsCounted() throws Exception {
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).daemon(true).build()) {
            Scheduler s = schedulerOf(pool);
            awaitHandOffReady(s);
            AtomicReference<Thread> ranOn = new AtomicReference<>();
            CountDownLatch ran = new CountDownLatch(1);
            pool.execute(() -> {
                ranOn.set(Thread.currentThread());
                ran.countDown();
            });
            assertEquals(1, handOffs(s), "nobody searched and both slept: handed off");
            assertEquals(0, s.injection.size(), "never queued");
            assertTrue(ran.await(HANG.toSeconds(), TimeUnit.SECONDS));
            assertTrue(ranOn.get() instanceof WorkerThread);
            await().atMost(HANG).until(() -> pool.stats().completedTasks() == 1);
            PoolStats stats = pool.stats();
            assertEquals(1, stats.externalSubmissions(), stats.toString());
            assertEquals(1, stats.submittedTasks(), stats.toString());
        }
    }

    /**
     * The first task goes to a worker and blocks there until the second has run; the second
     * comes while the handed worker counts as searching, so it wakes nobody itself: the handed
     * worker must look at the queues when it stops searching, before it runs its task, and wake
     * the other worker. Otherwise the second task would wait for the first, which waits for it.
     */
    @Test
    void aPostWhileAHandedWorkerIsOnItsWayStillReachesTheOtherWorker() throws Exception {
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).daemon(true).build()) {
            Scheduler s = schedulerOf(pool);
            for (int round = 0; round < 300; round++) {
                awaitHandOffReady(s);
                long before = handOffs(s);
                CountDownLatch second = new CountDownLatch(1);
                Future<Boolean> first = pool.submit(() -> second.await(HANG.toSeconds(), TimeUnit.SECONDS));
                pool.execute(second::countDown);
                assertTrue(first.get(HANG.toSeconds(), TimeUnit.SECONDS), "round " + round);
                assertTrue(handOffs(s) > before, "the first task was handed off");
            }
        }
    }

    /**
     * Tasks posted while the worker handed the first one wakes are queued, and that worker runs
     * its own first: with one worker, three tasks run in submission order.
     */
    @Test
    void tasksPostedWhileAHandedWorkerWakesRunAfterItsOwn() throws Exception {
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).daemon(true).build()) {
            Scheduler s = schedulerOf(pool);
            for (int round = 0; round < 300; round++) {
                awaitHandOffReady(s);
                List<Integer> order = new CopyOnWriteArrayList<>();
                CountDownLatch all = new CountDownLatch(3);
                for (int i = 0; i < 3; i++) {
                    int n = i;
                    pool.execute(() -> {
                        order.add(n);
                        all.countDown();
                    });
                }
                assertTrue(all.await(HANG.toSeconds(), TimeUnit.SECONDS), "round " + round);
                assertEquals(List.of(0, 1, 2), order, "round " + round);
            }
        }
    }

    /**
     * A worker asleep inside a join is on the same stack as idle ones, but is never handed a
     * task: woken, it must look at its latch first (its join may be done, and a task run on top
     * of it could wait for what the joining task goes on to do). The task is queued and the
     * joiner, woken to search, finds it, as before hand-offs. The join waits for a task run by
     * this test's thread, so the joiner can help with nothing and falls asleep after the other
     * worker: on top of the stack, with every worker asleep.
     */
    @Test
    void aWorkerAsleepInAJoinIsWokenToSearchNotHandedATask() throws Exception {
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).daemon(true).build()) {
            Scheduler s = schedulerOf(pool);
            awaitAsleep(s, 2);
            CountDownLatch release = new CountDownLatch(1);
            Task<String> outside = Task.adapt(() -> {
                release.await(HANG.toSeconds(), TimeUnit.SECONDS);
                return "joined";
            });
            Thread runner = new Thread(outside::run, "runs-the-joined-task");
            runner.start();
            AtomicReference<Thread> joiner = new AtomicReference<>();
            AtomicReference<Thread> postedRanOn = new AtomicReference<>();
            Future<String> outer = pool.submit(() -> {
                joiner.set(Thread.currentThread());
                return outside.join();
            });
            await().atMost(HANG).until(() -> joiner.get() != null);
            awaitAsleep(s, 2); // the joiner, with nothing to help with, and the idle worker
            // Long enough asleep for a hand-off (Sleep.HAND_OFF_AFTER_NANOS, 100 us), so that
            // only the join check keeps this task from being handed to the joiner.
            Thread.sleep(5);
            long before = handOffs(s);
            pool.execute(() -> {
                postedRanOn.set(Thread.currentThread());
                release.countDown();
            });
            assertEquals(before, handOffs(s), "not handed to a worker asleep in a join");
            assertEquals("joined", outer.get(HANG.toSeconds(), TimeUnit.SECONDS));
            runner.join(HANG.toMillis());
            assertSame(joiner.get(), postedRanOn.get(), "found by the joiner, woken to search");
        }
    }
}
