package io.github.stealpool.metrics;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.stealpool.WorkStealingPool;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class WorkStealingPoolMetricsTest {

    private static final Duration HANG = Duration.ofSeconds(30);

    /** Meters per pool: one per name, and executor.submitted twice (external, worker). */
    private static final int METERS_PER_POOL = 21;

    private static final Set<String> METERS = Set.of(
            "executor.completed", "executor.submitted", "executor.queued", "executor.active",
            "executor.pool.size", "executor.parallelism", "executor.steals", "executor.parked",
            "executor.steal.attempts", "executor.parks", "executor.wakeups", "executor.worker.idle",
            "executor.failed", "executor.rejected", "executor.running", "executor.blocked",
            "executor.compensations",
            // delayed tasks (issue 37)
            "executor.scheduled.once", "executor.scheduled.repetitively", "executor.scheduled.pending");

    private static Set<String> names(MeterRegistry registry) {
        Set<String> names = new TreeSet<>();
        for (Meter m : registry.getMeters()) {
            names.add(m.getId().getName());
        }
        return names;
    }

    private static double counter(MeterRegistry r, String name, String... tags) {
        FunctionCounter c = r.find(name).tags(tags).functionCounter();
        assertNotNull(c, name);
        return c.count();
    }

    @Test
    void registersEveryMeterWithNameTagDescriptionAndUnit() {
        MeterRegistry registry = new SimpleMeterRegistry();
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build()) {
            assertSame(pool, WorkStealingPoolMetrics.monitor(registry, pool, "jobs", "region", "eu"));
            assertEquals(METERS, names(registry));
            assertEquals(METERS_PER_POOL, registry.getMeters().size());
            for (Meter m : registry.getMeters()) {
                assertEquals("jobs", m.getId().getTag("name"), m.getId().toString());
                assertEquals("eu", m.getId().getTag("region"), m.getId().toString());
                assertNotNull(m.getId().getDescription(), m.getId().toString());
            }
            assertEquals("tasks", registry.get("executor.completed").meter().getId().getBaseUnit());
            // As Micrometer's ForkJoinPool meters: no unit on active and queued.
            assertNull(registry.get("executor.active").meter().getId().getBaseUnit());
            assertNull(registry.get("executor.queued").meter().getId().getBaseUnit());
            assertEquals("threads", registry.get("executor.pool.size").meter().getId().getBaseUnit());
            assertEquals("seconds", registry.get("executor.worker.idle").meter().getId().getBaseUnit());
            assertEquals(2.0, registry.get("executor.parallelism").gauge().value());
            assertEquals(2.0, registry.get("executor.pool.size").gauge().value());
            // An idle pool parks every worker.
            await().atMost(HANG).until(() -> registry.get("executor.parked").gauge().value() == 2.0);
        }
    }

    @Test
    void countersFollowTheWorkload() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build()) {
            WorkStealingPoolMetrics.monitor(registry, pool, "fib");
            long fib = pool.submit(() -> fib(pool, 20)).get(HANG.toSeconds(), TimeUnit.SECONDS);
            assertEquals(6765, fib);
            await().atMost(HANG).untilAsserted(() -> {
                double submitted = counter(registry, "executor.submitted", "source", "external")
                        + counter(registry, "executor.submitted", "source", "worker");
                assertEquals(submitted, counter(registry, "executor.completed"));
            });
            assertEquals(1.0, counter(registry, "executor.submitted", "source", "external"));
            assertTrue(counter(registry, "executor.submitted", "source", "worker") > 1000);
            assertTrue(counter(registry, "executor.steal.attempts") >= counter(registry, "executor.steals"));
            // Left alone, the workers park and their idle time grows.
            await().atMost(HANG).until(() -> registry.get("executor.active").gauge().value() == 0);
            double idle = counter(registry, "executor.worker.idle");
            await().atMost(HANG).until(() -> counter(registry, "executor.worker.idle") > idle);
            assertTrue(counter(registry, "executor.parks") >= 2);
            Gauge queued = registry.get("executor.queued").gauge();
            assertEquals(0.0, queued.value());
        }
    }

    @Test
    void scheduledMetersFollowTheDelayedTasks() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build()) {
            WorkStealingPoolMetrics.monitor(registry, pool, "timer");
            pool.schedule(() -> { }, 1, TimeUnit.MILLISECONDS).get(HANG.toSeconds(), TimeUnit.SECONDS);
            java.util.concurrent.ScheduledFuture<?> later = pool.schedule(() -> 1, 1, TimeUnit.HOURS);
            java.util.concurrent.ScheduledFuture<?> rate =
                    pool.scheduleAtFixedRate(() -> { }, 1, 1, TimeUnit.HOURS);
            await().atMost(HANG).untilAsserted(() -> {
                assertEquals(2.0, counter(registry, "executor.scheduled.once"));
                assertEquals(1.0, counter(registry, "executor.scheduled.repetitively"));
                assertEquals(2.0, registry.get("executor.scheduled.pending").gauge().value());
            });
            assertEquals("tasks", registry.get("executor.scheduled.pending").meter().getId().getBaseUnit());
            later.cancel(false);
            rate.cancel(false);
            await().atMost(HANG).until(() -> registry.get("executor.scheduled.pending").gauge().value() == 0.0);
        }
    }

    @Test
    void theMetersOutliveGarbageCollection() {
        MeterRegistry registry = new SimpleMeterRegistry();
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build()) {
            WorkStealingPoolMetrics.monitor(registry, pool, "kept"); // the binder is dropped here
            for (int i = 0; i < 5; i++) {
                System.gc(); // a weakly held source would read NaN from now on
            }
            assertEquals(2.0, registry.get("executor.parallelism").gauge().value());
            assertEquals(0.0, registry.get("executor.completed").functionCounter().count());
        }
    }

    @Test
    void metersAreRemovedWhenThePoolTerminates() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build();
        WorkStealingPoolMetrics.monitor(registry, pool, "short-lived");
        assertEquals(METERS_PER_POOL, registry.getMeters().size());
        pool.shutdown();
        assertTrue(pool.awaitTermination(HANG.toSeconds(), TimeUnit.SECONDS));
        await().atMost(HANG).until(() -> registry.getMeters().isEmpty());
    }

    @Test
    void twoPoolsAreToldApartByName() {
        MeterRegistry registry = new SimpleMeterRegistry();
        try (WorkStealingPool a = WorkStealingPool.builder().parallelism(1).build();
             WorkStealingPool b = WorkStealingPool.builder().parallelism(3).build()) {
            new WorkStealingPoolMetrics(a, "a", Tags.empty()).bindTo(registry);
            new WorkStealingPoolMetrics(b, "b", List.of()).bindTo(registry);
            assertEquals(1.0, registry.get("executor.parallelism").tag("name", "a").gauge().value());
            assertEquals(3.0, registry.get("executor.parallelism").tag("name", "b").gauge().value());
        }
    }

    /**
     * A pool monitored under a name another pool's meters use (a restart, a reconfiguration)
     * replaces them, and keeps them when the old pool terminates. Before, the second monitor
     * got the first pool's meters back from the registry, and once the first pool terminated
     * and removed them, the live second pool had no series at all.
     */
    @Test
    void aPoolMonitoredUnderANameInUseReplacesTheOldMetersAndKeepsThem() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        WorkStealingPool old = WorkStealingPool.builder().parallelism(1).build();
        WorkStealingPoolMetrics.monitor(registry, old, "dup");
        try (WorkStealingPool replacement = WorkStealingPool.builder().parallelism(3).build()) {
            WorkStealingPoolMetrics.monitor(registry, replacement, "dup");
            assertEquals(METERS_PER_POOL, registry.getMeters().size(), "one set of meters per name");
            assertEquals(3.0, registry.get("executor.parallelism").tag("name", "dup").gauge().value());

            old.shutdown();
            assertTrue(old.awaitTermination(HANG.toSeconds(), TimeUnit.SECONDS)); // its unbind has run
            assertEquals(METERS_PER_POOL, registry.getMeters().size(), "the old pool removed the replacement's meters");
            assertEquals(3.0, registry.get("executor.parallelism").tag("name", "dup").gauge().value());
            replacement.submit(() -> 1).get();
            await().atMost(HANG).until(() -> counter(registry, "executor.completed", "name", "dup") >= 1.0);
        }
        await().atMost(HANG).until(() -> registry.getMeters().isEmpty());
    }

    @Test
    void badArgumentsAreRejectedByName() {
        MeterRegistry registry = new SimpleMeterRegistry();
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).build()) {
            assertMessage("registry", () -> WorkStealingPoolMetrics.monitor(null, pool, "x"));
            assertMessage("pool", () -> WorkStealingPoolMetrics.monitor(registry, null, "x"));
            assertMessage("name", () -> WorkStealingPoolMetrics.monitor(registry, pool, null));
            assertMessage("tags", () -> WorkStealingPoolMetrics.monitor(registry, pool, "x", (String[]) null));
            assertThrows(IllegalArgumentException.class,
                    () -> WorkStealingPoolMetrics.monitor(registry, pool, "x", "odd"));
            assertTrue(registry.getMeters().isEmpty(), "nothing registered by a failed call");
        }
    }

    private static void assertMessage(String argument, org.junit.jupiter.api.function.Executable call) {
        NullPointerException e = assertThrows(NullPointerException.class, call);
        assertEquals(argument, e.getMessage());
    }

    private static long fib(WorkStealingPool pool, int n) {
        if (n < 2) {
            return n;
        }
        return pool.join(() -> fib(pool, n - 1), () -> fib(pool, n - 2), Long::sum);
    }

    @Test
    void failedRejectedAndRunningFollowThePool() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build();
        WorkStealingPoolMetrics.monitor(registry, pool, "faults");
        java.util.concurrent.Future<?> failing = pool.submit(() -> {
            throw new IllegalStateException("expected");
        });
        assertThrows(java.util.concurrent.ExecutionException.class, failing::get);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch entered = new java.util.concurrent.CountDownLatch(1);
        pool.execute(() -> {
            entered.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertTrue(entered.await(HANG.toSeconds(), TimeUnit.SECONDS));
        await().atMost(HANG).until(() -> registry.get("executor.running").gauge().value() == 1.0);
        assertEquals(1.0, counter(registry, "executor.failed"));
        assertEquals("tasks", registry.get("executor.failed").meter().getId().getBaseUnit());
        pool.shutdown();
        assertThrows(java.util.concurrent.RejectedExecutionException.class, () -> pool.execute(() -> { }));
        // The blocked task keeps the pool, and so its meters, alive while we read (a snapshot
        // serves reads for a few milliseconds, hence the wait).
        await().atMost(HANG).until(() -> counter(registry, "executor.rejected") == 1.0);
        release.countDown();
        assertTrue(pool.awaitTermination(HANG.toSeconds(), TimeUnit.SECONDS));
    }

    /**
     * A bounded pool also gets executor.queue.remaining (Micrometer's name and unit) and the
     * caller-runs and blocked-submission counters; they follow a bound filled behind a held
     * worker. An unbounded pool has none of them (the test above).
     */
    @Test
    void aBoundedPoolPublishesItsRemainingRoomAndSaturationCounters() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).daemon(true)
                .maxQueuedSubmissions(2).saturationPolicy(io.github.stealpool.SaturationPolicy.CALLER_RUNS)
                .build()) {
            WorkStealingPoolMetrics.monitor(registry, pool, "bounded");
            Set<String> expected = new TreeSet<>(METERS);
            expected.addAll(Set.of("executor.queue.remaining", "executor.caller.runs",
                    "executor.submit.blocked"));
            assertEquals(expected, names(registry));
            assertEquals(METERS_PER_POOL + 3, registry.getMeters().size());
            assertEquals("tasks", registry.get("executor.queue.remaining").meter().getId().getBaseUnit());
            assertEquals(2.0, registry.get("executor.queue.remaining").gauge().value());
            java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.CountDownLatch entered = new java.util.concurrent.CountDownLatch(1);
            pool.execute(() -> {
                entered.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertTrue(entered.await(HANG.toSeconds(), TimeUnit.SECONDS));
            pool.execute(() -> { });
            pool.execute(() -> { });
            pool.execute(() -> { }); // at the bound: run here
            await().atMost(HANG).until(() -> registry.get("executor.queue.remaining").gauge().value() == 0.0
                    && counter(registry, "executor.caller.runs") == 1.0);
            assertEquals(0.0, counter(registry, "executor.submit.blocked"));
            release.countDown();
            await().atMost(HANG).until(() -> registry.get("executor.queue.remaining").gauge().value() == 2.0);
        }
    }

    @Test
    void blockedThreadsAndCompensationsFollowBlockingCalls() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).daemon(true).build()) {
            WorkStealingPoolMetrics.monitor(registry, pool, "blocking");
            java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
            java.util.concurrent.CountDownLatch spareRan = new java.util.concurrent.CountDownLatch(1);
            pool.execute(() -> {
                pool.execute(spareRan::countDown); // on this worker's deque: only a spare runs it
                try {
                    WorkStealingPool.blocking(() -> release.await());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertTrue(spareRan.await(HANG.toSeconds(), TimeUnit.SECONDS));
            await().atMost(HANG).until(() -> registry.get("executor.blocked").gauge().value() == 1.0
                    && registry.get("executor.pool.size").gauge().value() == 2.0);
            assertEquals(1.0, counter(registry, "executor.compensations"));
            assertEquals("threads", registry.get("executor.compensations").meter().getId().getBaseUnit());
            release.countDown();
            await().atMost(HANG).until(() -> registry.get("executor.blocked").gauge().value() == 0.0);
        }
    }

    @Test
    void aTimedExecutorTimesEveryTaskWhenSamplingAll() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build()) {
            java.util.concurrent.ExecutorService timed =
                    WorkStealingPoolMetrics.timed(registry, pool, "timed", 1, Tags.of("region", "eu"));
            java.util.concurrent.CountDownLatch ran = new java.util.concurrent.CountDownLatch(1);
            timed.execute(ran::countDown);
            assertTrue(ran.await(HANG.toSeconds(), TimeUnit.SECONDS));
            assertEquals(7, timed.submit(() -> 7).get());
            assertEquals("done", timed.submit(() -> { }, "done").get());
            java.util.concurrent.Future<?> failing = timed.submit(() -> {
                throw new IllegalStateException("expected");
            });
            java.util.concurrent.ExecutionException e =
                    assertThrows(java.util.concurrent.ExecutionException.class, failing::get);
            assertEquals("expected", e.getCause().getMessage());
            List<java.util.concurrent.Callable<Integer>> two = List.of(() -> 1, () -> 2);
            List<java.util.concurrent.Future<Integer>> all = timed.invokeAll(two);
            assertEquals(2, (int) all.get(1).get());
            List<java.util.concurrent.Callable<Integer>> one = List.of(() -> 3);
            assertEquals(3, (int) timed.invokeAny(one));
            // 1 + 1 + 1 + 1 (failed, still timed) + 2 + at least 1 (invokeAny may start more)
            io.micrometer.core.instrument.Timer run = registry.get("executor").tags("name", "timed", "region", "eu").timer();
            io.micrometer.core.instrument.Timer idle = registry.get("executor.idle").tags("name", "timed").timer();
            await().atMost(HANG).until(() -> run.count() >= 7);
            assertTrue(idle.count() >= 7, () -> "idle " + idle.count());
            assertTrue(run.totalTime(TimeUnit.NANOSECONDS) > 0);
            assertNull(run.getId().getDescription()); // as Micrometer's TimedExecutorService
            assertFalse(timed.isShutdown());
            timed.shutdown();
            assertTrue(pool.isShutdown());
            assertTrue(timed.awaitTermination(HANG.toSeconds(), TimeUnit.SECONDS));
        }
        // A terminated pool's timers leave the registry, as its other meters do.
        await().atMost(HANG).until(() -> registry.find("executor").timer() == null
                && registry.find("executor.idle").timer() == null);
    }

    /**
     * In-pool timing: tasks submitted to the pool itself, from outside and from a worker, reach
     * the two timers; submitted 2 ms apart (40 times the sample gap), every one is timed, once
     * however often timeTasks was called.
     */
    @Test
    void timeTasksTimesTasksSubmittedToThePoolItself() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build();
        assertSame(pool, WorkStealingPoolMetrics.timeTasks(registry, pool, "inpool", "region", "eu"));
        // Again: the same timers, and still one sample per timed task.
        assertSame(pool, WorkStealingPoolMetrics.timeTasks(registry, pool, "inpool", "region", "eu"));
        io.micrometer.core.instrument.Timer run = registry.get("executor").tags("name", "inpool", "region", "eu").timer();
        io.micrometer.core.instrument.Timer idle = registry.get("executor.idle").tags("name", "inpool", "region", "eu").timer();
        assertNull(run.getId().getDescription()); // as Micrometer's TimedExecutorService
        for (int i = 0; i < 5; i++) {
            pool.execute(() -> { });
            Thread.sleep(2);
        }
        java.util.concurrent.Future<?> parent = pool.submit(() -> {
            for (int i = 0; i < 3; i++) {
                pool.execute(() -> { }); // a worker's own submissions
                Thread.sleep(2);
            }
            return null;
        });
        parent.get(HANG.toSeconds(), TimeUnit.SECONDS);
        pool.shutdown();
        assertTrue(pool.awaitTermination(HANG.toSeconds(), TimeUnit.SECONDS)); // every sample is in
        assertEquals(9, run.count());
        assertEquals(9, idle.count());
        assertTrue(run.totalTime(TimeUnit.NANOSECONDS) >= TimeUnit.MILLISECONDS.toNanos(6),
                () -> "the parent slept 6 ms: " + run.totalTime(TimeUnit.NANOSECONDS));
        // A terminated pool's timers leave the registry, as its other meters do.
        await().atMost(HANG).until(() -> registry.find("executor").timer() == null
                && registry.find("executor.idle").timer() == null);
    }

    @Test
    void timeTasksRejectsBadArgumentsByNameAndLeavesATerminatedPoolUntimed() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).build()) {
            assertEquals("registry", assertThrows(NullPointerException.class,
                    () -> WorkStealingPoolMetrics.timeTasks(null, pool, "bad")).getMessage());
            assertEquals("pool", assertThrows(NullPointerException.class,
                    () -> WorkStealingPoolMetrics.timeTasks(registry, null, "bad")).getMessage());
            assertEquals("name", assertThrows(NullPointerException.class,
                    () -> WorkStealingPoolMetrics.timeTasks(registry, pool, null)).getMessage());
            assertThrows(IllegalArgumentException.class,
                    () -> WorkStealingPoolMetrics.timeTasks(registry, pool, "bad", "odd"));
            assertTrue(registry.getMeters().isEmpty());
        }
        WorkStealingPool dead = WorkStealingPool.builder().parallelism(1).build();
        dead.shutdown();
        assertTrue(dead.awaitTermination(HANG.toSeconds(), TimeUnit.SECONDS));
        WorkStealingPoolMetrics.timeTasks(registry, dead, "dead");
        assertTrue(registry.getMeters().isEmpty());
    }

    @Test
    void aTimedExecutorSamplesAboutOneTaskInN() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build()) {
            java.util.concurrent.ExecutorService timed = WorkStealingPoolMetrics.timed(registry, pool, "sampled");
            int n = 64_000;
            java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(n);
            for (int i = 0; i < n; i++) {
                timed.execute(done::countDown);
            }
            assertTrue(done.await(HANG.toSeconds(), TimeUnit.SECONDS));
            io.micrometer.core.instrument.Timer run = registry.get("executor").timer();
            // Expected n / 16 = 4000, standard deviation about 61: these bounds are 16 of them.
            double expected = (double) n / WorkStealingPoolMetrics.DEFAULT_SAMPLE_EVERY;
            io.micrometer.core.instrument.Timer idle = registry.get("executor.idle").timer();
            // The idle time is recorded as a task starts, its run time after it counted down.
            await().atMost(HANG).until(() -> run.count() >= expected - 1000 && run.count() == idle.count());
            assertTrue(run.count() <= expected + 1000, () -> "sampled " + run.count());
        }
    }

    @Test
    void aWorkerWaitingOnATimedFutureRunsTheTaskInsteadOfBlocking() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).build()) {
            java.util.concurrent.ExecutorService timed = WorkStealingPoolMetrics.timed(registry, pool, "nested", 1, Tags.empty());
            // One worker: a get() that blocked it would wait for itself forever.
            int r = timed.submit(() -> timed.submit(() -> 41).get() + 1).get(HANG.toSeconds(), TimeUnit.SECONDS);
            assertEquals(42, r);
        }
    }

    @Test
    void twoTimedExecutorsOfOnePoolShareItsTimersAndTasksPassThrough() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).build()) {
            java.util.concurrent.ExecutorService a = WorkStealingPoolMetrics.timed(registry, pool, "shared", 1, Tags.empty());
            java.util.concurrent.ExecutorService b = WorkStealingPoolMetrics.timed(registry, pool, "shared", 1, Tags.empty());
            a.submit(() -> { }).get();
            b.submit(() -> { }).get();
            io.micrometer.core.instrument.Timer run = registry.get("executor").timer();
            await().atMost(HANG).until(() -> run.count() == 2);
            assertEquals(2, registry.getMeters().size());

            // A Task goes to the pool as it is: its own future, never wrapped.
            io.github.stealpool.Task<Integer> task = new io.github.stealpool.Task<>() {
                @Override
                protected Integer compute() {
                    return 5;
                }
            };
            assertSame(task, a.submit(task));
            assertEquals(5, task.join());
        }
    }

    @Test
    void aTimedExecutorHandsBackTheTasksItWasGiven() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).build();
        java.util.concurrent.ExecutorService timed = WorkStealingPoolMetrics.timed(registry, pool, "back", 1, Tags.empty());
        java.util.concurrent.CountDownLatch entered = new java.util.concurrent.CountDownLatch(1);
        timed.execute(() -> {
            entered.countDown();
            try {
                new java.util.concurrent.CountDownLatch(1).await(); // until shutdownNow
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertTrue(entered.await(HANG.toSeconds(), TimeUnit.SECONDS));
        Runnable queued = () -> { };
        timed.execute(queued); // waits behind the blocked one
        assertEquals(List.of(queued), timed.shutdownNow());
        assertTrue(timed.awaitTermination(HANG.toSeconds(), TimeUnit.SECONDS));
    }

    @Test
    void aTimedExecutorRejectsBadArgumentsByName() {
        MeterRegistry registry = new SimpleMeterRegistry();
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).build()) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> WorkStealingPoolMetrics.timed(registry, pool, "bad", 0, Tags.empty()));
            assertTrue(e.getMessage().contains("sampleEvery"), e.getMessage());
            NullPointerException npe = assertThrows(NullPointerException.class,
                    () -> WorkStealingPoolMetrics.timed(null, pool, "bad"));
            assertEquals("registry", npe.getMessage());
            assertThrows(NullPointerException.class, () -> WorkStealingPoolMetrics.timed(registry, null, "bad"));
            assertTrue(registry.getMeters().isEmpty());
            java.util.concurrent.ExecutorService timed = WorkStealingPoolMetrics.timed(registry, pool, "ok");
            assertThrows(NullPointerException.class, () -> timed.execute(null));
        }
    }

    @Test
    void aPoolTimedUnderANameInUseReplacesTheOldTimersAndKeepsThem() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        WorkStealingPool first = WorkStealingPool.builder().parallelism(1).build();
        WorkStealingPoolMetrics.timed(registry, first, "dup", 1, Tags.empty());
        io.micrometer.core.instrument.Timer old = registry.get("executor").timer();
        try (WorkStealingPool second = WorkStealingPool.builder().parallelism(1).build()) {
            java.util.concurrent.ExecutorService timed = WorkStealingPoolMetrics.timed(registry, second, "dup", 1, Tags.empty());
            first.shutdown();
            assertTrue(first.awaitTermination(HANG.toSeconds(), TimeUnit.SECONDS));
            timed.submit(() -> { }).get();
            io.micrometer.core.instrument.Timer now = registry.get("executor").timer();
            assertTrue(now != old, "the second pool has timers of its own");
            await().atMost(HANG).until(() -> now.count() == 1);
            assertEquals(2, registry.getMeters().size(), "the old pool removed the replacement's timers");
        }
    }

    @Test
    void aReplacementKeepsItsMetersUnderARegistrysCommonTags() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        registry.config().commonTags("app", "demo"); // a MeterFilter: registered ids differ from the asked ones
        WorkStealingPool old = WorkStealingPool.builder().parallelism(1).build();
        try (old; WorkStealingPool replacement = WorkStealingPool.builder().parallelism(3).build()) {
            WorkStealingPoolMetrics.monitor(registry, old, "dup");
            WorkStealingPoolMetrics.timed(registry, old, "dup", 1, Tags.empty());
            WorkStealingPoolMetrics.monitor(registry, replacement, "dup");
            java.util.concurrent.ExecutorService timed =
                    WorkStealingPoolMetrics.timed(registry, replacement, "dup", 1, Tags.empty());
            assertEquals(METERS_PER_POOL + 2, registry.getMeters().size(), "one set of meters and timers per name");
            assertEquals(3.0, registry.get("executor.parallelism").tags("name", "dup", "app", "demo").gauge().value());

            old.shutdown();
            assertTrue(old.awaitTermination(HANG.toSeconds(), TimeUnit.SECONDS)); // its unbind has run
            assertEquals(METERS_PER_POOL + 2, registry.getMeters().size(), "the old pool removed the replacement's meters");
            assertEquals(3.0, registry.get("executor.parallelism").tag("name", "dup").gauge().value());
            timed.submit(() -> { }).get();
            io.micrometer.core.instrument.Timer run = registry.get("executor").tag("name", "dup").timer();
            await().atMost(HANG).until(() -> run.count() == 1);
        }
        await().atMost(HANG).until(() -> registry.getMeters().isEmpty());
    }

    @Test
    void aTerminatedPoolMonitoredOrTimedLeavesALivePoolsMetersAlone() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        WorkStealingPool dead = WorkStealingPool.builder().parallelism(1).build();
        dead.shutdown();
        assertTrue(dead.awaitTermination(HANG.toSeconds(), TimeUnit.SECONDS));
        try (WorkStealingPool live = WorkStealingPool.builder().parallelism(3).build()) {
            WorkStealingPoolMetrics.monitor(registry, live, "same");
            java.util.concurrent.ExecutorService timed =
                    WorkStealingPoolMetrics.timed(registry, live, "same", 1, Tags.empty());
            Set<Meter> before = identitySet(registry.getMeters());

            assertSame(dead, WorkStealingPoolMetrics.monitor(registry, dead, "same"));
            java.util.concurrent.ExecutorService deadTimed =
                    WorkStealingPoolMetrics.timed(registry, dead, "same", 1, Tags.empty());
            assertTrue(deadTimed.isTerminated());
            assertThrows(java.util.concurrent.RejectedExecutionException.class, () -> deadTimed.execute(() -> { }));

            assertEquals(before, identitySet(registry.getMeters()), "the live pool's meters, untouched");
            assertEquals(3.0, registry.get("executor.parallelism").tag("name", "same").gauge().value());
            timed.submit(() -> { }).get();
            io.micrometer.core.instrument.Timer run = registry.get("executor").tag("name", "same").timer();
            await().atMost(HANG).until(() -> run.count() == 1);
        }
    }

    @Test
    void aPoolAskingWithoutTheCommonTagReplacesOneAskingWithIt() throws Exception {
        MeterRegistry registry = new SimpleMeterRegistry();
        registry.config().commonTags("app", "demo");
        WorkStealingPool first = WorkStealingPool.builder().parallelism(1).build();
        try (first; WorkStealingPool second = WorkStealingPool.builder().parallelism(3).build()) {
            WorkStealingPoolMetrics.monitor(registry, first, "x", "app", "demo");
            WorkStealingPoolMetrics.monitor(registry, second, "x"); // the filters make both ids one
            assertEquals(METERS_PER_POOL, registry.getMeters().size(), "one set of meters per name");
            assertEquals(3.0, registry.get("executor.parallelism").tag("name", "x").gauge().value());
            first.shutdown();
            assertTrue(first.awaitTermination(HANG.toSeconds(), TimeUnit.SECONDS));
            assertEquals(METERS_PER_POOL, registry.getMeters().size(), "the first pool removed the second's meters");
            assertEquals(3.0, registry.get("executor.parallelism").tag("name", "x").gauge().value());
        }
    }

    private static Set<Meter> identitySet(List<Meter> meters) {
        Set<Meter> set = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        set.addAll(meters);
        return set;
    }
}
