package io.github.stealpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Many tasks, many threads: nothing lost, nothing run twice, no wake-up missed. */
class LoadTest {

    private static final long HANG = 60;

    /** A task that records its run in a shared array. */
    private static final class Counted implements Runnable {
        final int id;
        final AtomicIntegerArray runs;

        Counted(int id, AtomicIntegerArray runs) {
            this.id = id;
            this.runs = runs;
        }

        @Override
        public void run() {
            runs.incrementAndGet(id);
        }
    }

    private static void startAll(List<Thread> threads, AtomicReference<Throwable> failure) {
        for (Thread t : threads) {
            t.setUncaughtExceptionHandler((th, e) -> failure.compareAndSet(null, e));
            t.start();
        }
    }

    private static void joinAll(List<Thread> threads) throws InterruptedException {
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(HANG));
            assertFalse(t.isAlive(), t.getName() + " hung");
        }
    }

    @ParameterizedTest(name = "parallelism={0}")
    @ValueSource(ints = {1, 2, 4})
    void manyProducersEveryTaskRunsExactlyOnce(int parallelism) throws Exception {
        final int producers = 8;
        final int perProducer = 100_000;
        final int total = producers * perProducer;
        AtomicIntegerArray runs = new AtomicIntegerArray(total);
        LongAdder done = new LongAdder();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(parallelism).build()) {
            List<Thread> threads = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                int base = p * perProducer;
                threads.add(new Thread(() -> {
                    for (int i = 0; i < perProducer; i++) {
                        int id = base + i;
                        pool.execute(() -> {
                            runs.incrementAndGet(id);
                            done.increment();
                        });
                    }
                }, "producer-" + p));
            }
            startAll(threads, failure);
            joinAll(threads);
            await().atMost(Duration.ofSeconds(HANG)).until(() -> done.sum() == total);
        }
        if (failure.get() != null) {
            throw new AssertionError("a producer failed", failure.get());
        }
        for (int i = 0; i < total; i++) {
            assertEquals(1, runs.get(i), "task " + i);
        }
    }

    private static volatile long sink;

    private static void busyWork() {
        long x = 0;
        for (int i = 0; i < 2_000; i++) {
            x += i * 31L ^ x;
        }
        sink = x;
    }

    @Test
    void tasksSubmittedByTasksRunExactlyOnceAndGetStolen() throws Exception {
        final int depth = 16; // 2^17 - 1 tasks in a binary fan-out from one root
        final int total = (1 << (depth + 1)) - 1;
        AtomicIntegerArray runs = new AtomicIntegerArray(total);
        LongAdder done = new LongAdder();
        java.util.Set<Thread> workersSeen = java.util.concurrent.ConcurrentHashMap.newKeySet();
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(4).build()) {
            class Node implements Runnable {
                final int id;
                final int level;

                Node(int id, int level) {
                    this.id = id;
                    this.level = level;
                }

                @Override
                public void run() {
                    workersSeen.add(Thread.currentThread());
                    runs.incrementAndGet(id);
                    busyWork(); // a few microseconds each, so idle workers get a chance to steal
                    if (level < depth) {
                        pool.execute(new Node(2 * id + 1, level + 1));
                        pool.execute(new Node(2 * id + 2, level + 1));
                    }
                    done.increment();
                }
            }
            pool.execute(new Node(0, 0));
            await().atMost(Duration.ofSeconds(HANG)).until(() -> done.sum() == total);
        }
        for (int i = 0; i < total; i++) {
            assertEquals(1, runs.get(i), "task " + i);
        }
        // Only one task came from outside; every other worker got its work by stealing.
        assertTrue(workersSeen.size() > 1, "no task was stolen");
    }

    /**
     * Thousands of rounds of "the pool goes idle, then one outside thread submits one task",
     * with the submission landing at every stage of the workers' falling asleep: spinning,
     * yielding, sleepy, parked. A lost wake-up leaves the task unrun and trips the hang bound.
     */
    @ParameterizedTest(name = "parallelism={0}")
    @ValueSource(ints = {1, 2, 3})
    void noWakeUpIsLost(int parallelism) throws Exception {
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(parallelism).build()) {
            ThreadLocalRandom rnd = ThreadLocalRandom.current();
            for (int round = 0; round < 3_000; round++) {
                if (round % 50 == 0) {
                    // Fully asleep: every worker parked.
                    await().atMost(Duration.ofSeconds(HANG)).pollInterval(Duration.ofMillis(1))
                            .until(() -> pool.sleepingWorkers() == parallelism);
                } else {
                    long pause = System.nanoTime() + rnd.nextInt(200_000);
                    while (System.nanoTime() < pause) {
                        Thread.onSpinWait();
                    }
                }
                CountDownLatch ran = new CountDownLatch(1);
                pool.execute(ran::countDown);
                assertTrue(ran.await(HANG, TimeUnit.SECONDS), "round " + round + ": the task never ran");
            }
        }
    }

    /**
     * Regression: a worker that took a batch from the injection queue announced the part it
     * pushed on its deque with one notice, which woke one sleeper; a second sleeper that had
     * looked while the batch was in the worker's hands stayed asleep next to a stealable task.
     * Here every round submits as many blocking tasks as there are workers, from one thread (one
     * stripe, so one batch): each must get a worker of its own.
     */
    @ParameterizedTest(name = "parallelism={0}")
    @ValueSource(ints = {2, 3, 4})
    void aBatchOfBlockingTasksGetsAllTheWorkers(int parallelism) throws Exception {
        // A fresh pool each round: its workers are on their way to sleep when the batch lands,
        // which is the window the bug needed.
        for (int round = 0; round < 400; round++) {
            try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(parallelism).build()) {
                CountDownLatch started = new CountDownLatch(parallelism);
                CountDownLatch release = new CountDownLatch(1);
                for (int i = 0; i < parallelism; i++) {
                    pool.execute(() -> {
                        started.countDown();
                        try {
                            release.await(HANG, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    });
                }
                boolean allStarted = started.await(HANG, TimeUnit.SECONDS);
                String state = pool.toString();
                release.countDown();
                assertTrue(allStarted, "round " + round + ": a task waited behind blocked workers while one slept: " + state);
            }
        }
    }

    @Test
    void aParkedPoolHasAllItsWorkersWaiting() throws Exception {
        RecordingThreadFactory threads = new RecordingThreadFactory();
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(3).threadFactory(threads).build()) {
            for (int i = 0; i < 1000; i++) {
                pool.execute(() -> { });
            }
            await().atMost(Duration.ofSeconds(HANG)).until(() -> pool.sleepingWorkers() == 3);
            // Parked, not spinning: an idle pool burns no CPU. (A worker is counted just before
            // it blocks, so give the last one a moment to get there.)
            await().atMost(Duration.ofSeconds(HANG)).until(() -> threads.threads.stream()
                    .allMatch(t -> t.getState() == Thread.State.WAITING));
            // Still serving after a long park.
            assertEquals(5, pool.submit(() -> 5).get(HANG, TimeUnit.SECONDS));
        }
    }

    /**
     * Producers (outside threads, and tasks that submit tasks) race with shutdownNow or
     * shutdown: every accepted task either ran or was returned, exactly once; rejected ones never
     * ran.
     */
    @ParameterizedTest(name = "parallelism={0}, shutdownNow={1}")
    @CsvSource({"1, true", "2, true", "4, true", "1, false", "2, false", "4, false"})
    void shutdownUnderLoadLosesNothing(int parallelism, boolean now) throws Exception {
        for (int trial = 0; trial < 20; trial++) {
            final int producers = 4;
            final int perProducer = 20_000;
            final int total = producers * perProducer * 2; // each task may spawn one child
            AtomicIntegerArray runs = new AtomicIntegerArray(total);
            AtomicIntegerArray accepted = new AtomicIntegerArray(total);
            AtomicIntegerArray rejected = new AtomicIntegerArray(total);
            AtomicLong submitted = new AtomicLong();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            RecordingThreadFactory factory = new RecordingThreadFactory();
            WorkStealingPool pool = WorkStealingPool.builder().parallelism(parallelism).threadFactory(factory).build();
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                int base = p * perProducer * 2;
                threads.add(new Thread(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    for (int i = 0; i < perProducer; i++) {
                        int id = base + 2 * i;
                        Runnable child = new Counted(id + 1, runs);
                        Runnable parent = () -> {
                            runs.incrementAndGet(id);
                            try {
                                pool.execute(child);
                                accepted.incrementAndGet(id + 1);
                            } catch (RejectedExecutionException e) {
                                rejected.incrementAndGet(id + 1);
                            }
                        };
                        try {
                            pool.execute(new Tagged(id, parent));
                            accepted.incrementAndGet(id);
                            submitted.incrementAndGet();
                        } catch (RejectedExecutionException e) {
                            rejected.incrementAndGet(id);
                        }
                    }
                }, "producer-" + p));
            }
            startAll(threads, failure);
            go.countDown();
            long head = 1000L * (trial % 5); // stop at different points of the stream
            await().atMost(Duration.ofSeconds(HANG)).until(() -> submitted.get() > head);
            List<Runnable> never = now ? pool.shutdownNow() : List.of();
            if (!now) {
                pool.shutdown();
            }
            joinAll(threads);
            assertTrue(pool.awaitTermination(HANG, TimeUnit.SECONDS));
            assertTrue(factory.allEnded());
            if (failure.get() != null) {
                throw new AssertionError("a producer failed", failure.get());
            }
            AtomicIntegerArray returned = new AtomicIntegerArray(total);
            for (Runnable r : never) {
                int id = r instanceof Tagged ? ((Tagged) r).id : ((Counted) r).id;
                returned.incrementAndGet(id);
            }
            int accounted = 0;
            for (int id = 0; id < total; id++) {
                int a = accepted.get(id);
                int r = rejected.get(id);
                int ran = runs.get(id);
                int back = returned.get(id);
                if (id % 2 == 1 && runs.get(id - 1) == 0) {
                    // the parent never ran, so the child was never submitted
                    assertEquals(0, a + r + ran + back, "child " + id);
                    continue;
                }
                assertEquals(1, a + r, "task " + id + " neither accepted nor rejected, or both");
                if (a == 1) {
                    assertEquals(1, ran + back, "accepted task " + id + ": ran " + ran + ", returned " + back);
                    accounted++;
                } else {
                    assertEquals(0, ran + back, "rejected task " + id + " ran or was returned");
                }
            }
            assertTrue(accounted > 0);
        }
    }

    /** A Runnable with an id, so tasks handed back by shutdownNow can be identified. */
    private static final class Tagged implements Runnable {
        final int id;
        final Runnable body;

        Tagged(int id, Runnable body) {
            this.id = id;
            this.body = body;
        }

        @Override
        public void run() {
            body.run();
        }
    }
}
