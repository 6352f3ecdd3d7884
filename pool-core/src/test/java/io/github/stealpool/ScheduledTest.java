package io.github.stealpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The pool as a {@code ScheduledExecutorService} (issue 37): {@code ScheduledThreadPoolExecutor}'s
 * semantics, its shutdown rules, {@code submitWithTimeout}, and the races between them. Bounds
 * (Awaitility, {@code get} with a timeout) only detect hangs; the one timing assertion is a
 * behaviour: a task never runs before its delay.
 */
class ScheduledTest {

    private static final long HANG = 30;

    private static WorkStealingPool pool(int parallelism) {
        return WorkStealingPool.builder().parallelism(parallelism).build();
    }

    private static void terminate(WorkStealingPool pool) throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(HANG, TimeUnit.SECONDS));
    }

    private static boolean timerAlive(WorkStealingPool pool) {
        Thread t = timerThread(pool);
        return t != null && t.isAlive();
    }

    /** The pool's timer thread, {@code <prefix>-timer}, or null. */
    private static Thread timerThread(WorkStealingPool pool) {
        String name = pool.toString(); // WorkStealingPool[<name>, ...
        String prefix = name.substring(name.indexOf('[') + 1, name.indexOf(','));
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals(prefix + "-timer") && t.isAlive())
                .findFirst().orElse(null);
    }

    // ------------------------------------------------------------------ ScheduledThreadPoolExecutor's semantics

    @Test
    void aTaskNeverRunsBeforeItsDelay() throws Exception {
        WorkStealingPool pool = pool(2);
        try {
            int n = 300;
            long[] early = new long[1];
            CountDownLatch done = new CountDownLatch(n);
            List<Future<?>> futures = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                long asked = ThreadLocalRandom.current().nextLong(0, 20_000_000L);
                // Odd rounds schedule in microseconds: the delay the pool is given is the
                // truncated one, and that is what the task must not run before.
                long delay = i % 2 == 0 ? asked : TimeUnit.MICROSECONDS.toNanos(asked / 1000);
                long t0 = System.nanoTime();
                Runnable r = () -> {
                    long late = System.nanoTime() - t0 - delay;
                    if (late < 0) {
                        synchronized (early) {
                            early[0]++;
                        }
                    }
                    done.countDown();
                };
                futures.add(i % 2 == 0 ? pool.schedule(r, delay, TimeUnit.NANOSECONDS)
                        : pool.schedule(() -> { r.run(); return 1; }, asked / 1000, TimeUnit.MICROSECONDS));
            }
            assertTrue(done.await(HANG, TimeUnit.SECONDS));
            assertEquals(0, early[0], "tasks that ran before their delay");
            for (Future<?> f : futures) {
                f.get(HANG, TimeUnit.SECONDS);
                assertTrue(f.isDone());
            }
        } finally {
            terminate(pool);
        }
    }

    @Test
    void aCallableGivesItsResult() throws Exception {
        WorkStealingPool pool = pool(2);
        try {
            ScheduledFuture<String> f = pool.schedule(() -> Thread.currentThread().getName(), 1, TimeUnit.MILLISECONDS);
            assertTrue(f.get(HANG, TimeUnit.SECONDS).contains("-worker-"), "ran on a worker");
        } finally {
            terminate(pool);
        }
    }

    /** Keeps the pool's one worker busy until the returned latch opens. */
    private static CountDownLatch holdTheOnlyWorker(WorkStealingPool pool) {
        CountDownLatch release = new CountDownLatch(1);
        pool.execute(() -> {
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        return release;
    }

    @Test
    void tasksDueTogetherRunInTheOrderTheyWereScheduled() throws Exception {
        // One FIFO worker, held busy until every task is due: they are handed over in deadline
        // order, ties by submission order, and a FIFO worker runs them so.
        WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).fifo(true).build();
        try {
            CountDownLatch release = holdTheOnlyWorker(pool);
            List<Integer> order = Collections.synchronizedList(new ArrayList<>());
            List<ScheduledFuture<?>> fs = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                int k = i;
                fs.add(pool.schedule(() -> order.add(k), 0, TimeUnit.NANOSECONDS));
            }
            for (int i = 1; i < fs.size(); i++) {
                assertTrue(fs.get(i - 1).compareTo(fs.get(i)) < 0, "scheduled earlier compares first");
            }
            await().atMost(HANG, TimeUnit.SECONDS).until(() -> pool.stats().delayedTasksPending() == 0);
            release.countDown();
            for (ScheduledFuture<?> f : fs) {
                f.get(HANG, TimeUnit.SECONDS);
            }
            for (int i = 0; i < order.size(); i++) {
                assertEquals(i, order.get(i), "run order " + order);
            }
        } finally {
            terminate(pool);
        }
    }

    @Test
    void aPeriodicTaskThatThrowsStopsAndItsFutureReportsTheFailure() throws Exception {
        WorkStealingPool pool = pool(2);
        try {
            for (boolean fixedRate : new boolean[] {true, false}) {
                AtomicInteger runs = new AtomicInteger();
                IllegalStateException boom = new IllegalStateException("third run");
                Runnable r = () -> {
                    if (runs.incrementAndGet() == 3) {
                        throw boom;
                    }
                };
                ScheduledFuture<?> f = fixedRate ? pool.scheduleAtFixedRate(r, 0, 1, TimeUnit.MILLISECONDS)
                        : pool.scheduleWithFixedDelay(r, 0, 1, TimeUnit.MILLISECONDS);
                assertTrue(((java.util.concurrent.RunnableScheduledFuture<?>) f).isPeriodic());
                ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(HANG, TimeUnit.SECONDS));
                assertSame(boom, e.getCause());
                assertTrue(f.isDone());
                assertFalse(f.isCancelled());
                Thread.sleep(20); // a run more would be a fourth
                assertEquals(3, runs.get());
            }
            await().atMost(HANG, TimeUnit.SECONDS).until(() -> pool.stats().delayedTasksPending() == 0);
            assertTrue(pool.stats().failedTasks() >= 2);
        } finally {
            terminate(pool);
        }
    }

    @Test
    void aPeriodicTaskRepeatsUntilCancelled() throws Exception {
        WorkStealingPool pool = pool(2);
        try {
            AtomicInteger rate = new AtomicInteger();
            AtomicInteger delay = new AtomicInteger();
            ScheduledFuture<?> a = pool.scheduleAtFixedRate(rate::incrementAndGet, 0, 1, TimeUnit.MILLISECONDS);
            ScheduledFuture<?> b = pool.scheduleWithFixedDelay(delay::incrementAndGet, 0, 1, TimeUnit.MILLISECONDS);
            await().atMost(HANG, TimeUnit.SECONDS).until(() -> rate.get() >= 5 && delay.get() >= 5);
            assertTrue(a.cancel(false));
            assertTrue(b.cancel(false));
            assertTrue(a.isCancelled() && b.isCancelled());
            assertThrows(CancellationException.class, a::get);
            await().atMost(HANG, TimeUnit.SECONDS).until(() -> pool.stats().delayedTasksPending() == 0);
            int ra = rate.get();
            int rb = delay.get();
            Thread.sleep(20);
            assertTrue(rate.get() <= ra + 1 && delay.get() <= rb + 1, "at most a run under way at the cancel");
            assertEquals(2, pool.stats().scheduledRepetitively());
        } finally {
            terminate(pool);
        }
    }

    @Test
    void cancelRemovesTheTaskAndDropsItsReference() throws Exception {
        WorkStealingPool pool = pool(2);
        try {
            Runnable task = new Runnable() {
                @Override
                public void run() {
                }
            };
            WeakReference<Runnable> ref = new WeakReference<>(task);
            ScheduledFuture<?> f = pool.schedule(task, 1, TimeUnit.HOURS);
            Callable1 c = new Callable1();
            WeakReference<Callable1> cref = new WeakReference<>(c);
            ScheduledFuture<?> g = pool.scheduleAtFixedRate(c, 1, 1, TimeUnit.HOURS);
            task = null;
            c = null;
            await().atMost(HANG, TimeUnit.SECONDS).until(() -> pool.stats().delayedTasksPending() == 2);
            assertTrue(f.cancel(false));
            assertTrue(g.cancel(true));
            assertFalse(f.cancel(false), "a second cancel");
            assertTrue(f.isCancelled() && f.isDone());
            await().atMost(HANG, TimeUnit.SECONDS).until(() -> pool.stats().delayedTasksPending() == 0);
            // The entries themselves: once the test drops them, nothing in the pool keeps them.
            WeakReference<ScheduledFuture<?>> fref = new WeakReference<>(f);
            WeakReference<ScheduledFuture<?>> gref = new WeakReference<>(g);
            f = null;
            g = null;
            await().atMost(HANG, TimeUnit.SECONDS).until(() -> {
                System.gc();
                return ref.get() == null && cref.get() == null && fref.get() == null && gref.get() == null;
            });
        } finally {
            terminate(pool);
        }
    }

    private static final class Callable1 implements Runnable {
        @Override
        public void run() {
        }
    }

    @Test
    void tasksAreHandedOverInDeadlineOrderThroughRandomCancels() throws Exception {
        // One FIFO worker, held busy until every task is due: the run order is the order in
        // which the timer's heap gave them up. Random delays, and cancels that take entries out
        // of the middle of the heap, exercise every sift (ties: DelayHeapTest).
        WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).fifo(true).build();
        try {
            CountDownLatch release = holdTheOnlyWorker(pool);
            ThreadLocalRandom random = ThreadLocalRandom.current();
            List<ScheduledFuture<?>> kept = Collections.synchronizedList(new ArrayList<>());
            List<ScheduledFuture<?>> order = Collections.synchronizedList(new ArrayList<>());
            List<ScheduledFuture<?>> all = new ArrayList<>();
            // Every task due a second or more from now: the order is the heap's only if no task
            // arrives after an earlier-due one was handed over (a late arrival goes last).
            long start = System.nanoTime();
            long margin = TimeUnit.SECONDS.toNanos(1);
            for (int i = 0; i < 3000; i++) {
                AtomicReference<ScheduledFuture<?>> self = new AtomicReference<>();
                long delayMicros = 1000 * random.nextInt(20) + (random.nextBoolean() ? 0 : random.nextInt(1000));
                long delay = start + margin + TimeUnit.MICROSECONDS.toNanos(delayMicros) - System.nanoTime();
                ScheduledFuture<?> f = pool.schedule(() -> order.add(self.get()), delay, TimeUnit.NANOSECONDS);
                self.set(f);
                all.add(f);
                if (i % 50 == 49) { // let the timer take in what came so far, so cancels hit the heap
                    Thread.sleep(1);
                }
            }
            for (ScheduledFuture<?> f : all) {
                if (random.nextInt(3) == 0) {
                    assertTrue(f.cancel(false));
                } else {
                    kept.add(f);
                }
            }
            assumeTrue(System.nanoTime() - start < margin, "a machine too slow to schedule 3,000 tasks in a second");
            await().atMost(HANG, TimeUnit.SECONDS).until(() -> pool.stats().delayedTasksPending() == 0);
            release.countDown();
            for (ScheduledFuture<?> f : kept) {
                f.get(HANG, TimeUnit.SECONDS);
            }
            assertEquals(kept.size(), order.size(), "every kept task ran once");
            for (int i = 1; i < order.size(); i++) {
                assertTrue(order.get(i - 1).compareTo(order.get(i)) < 0,
                        "handed over by deadline, then scheduling order: " + i);
            }
        } finally {
            terminate(pool);
        }
    }

    /**
     * The timer wakes ahead of a due entry by how late its parks return, and spins the rest
     * (DelayScheduler, "Waking ahead of a deadline"): one task at a time on an idle pool, each
     * due 600 us after it is scheduled, so the timer parks to every deadline and wakes ahead of
     * all but the first few. None may start before its delay (the entry is handed over once
     * due, not when the timer wakes), and each starts: the spin ends at the deadline.
     */
    @Test
    void aTaskNeverRunsBeforeItsDelayWhenTheTimerWakesAheadOfIt() throws Exception {
        WorkStealingPool pool = pool(2);
        try {
            long delay = TimeUnit.MICROSECONDS.toNanos(600);
            List<Long> early = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                long[] started = new long[1];
                long t0 = System.nanoTime();
                pool.schedule(() -> started[0] = System.nanoTime(), delay, TimeUnit.NANOSECONDS)
                        .get(HANG, TimeUnit.SECONDS); // orders the task's write before the read
                if (started[0] - t0 < delay) {
                    early.add(delay - (started[0] - t0));
                }
            }
            assertEquals(List.of(), early, "nanoseconds early, of tasks that ran before their delay");
        } finally {
            terminate(pool);
        }
    }

    @Test
    void getDelayAndCompareToAsTheJdks() throws Exception {
        WorkStealingPool pool = pool(1);
        try {
            ScheduledFuture<?> soon = pool.schedule(() -> { }, 1, TimeUnit.HOURS);
            ScheduledFuture<?> later = pool.schedule(() -> { }, 2, TimeUnit.HOURS);
            long d = soon.getDelay(TimeUnit.SECONDS);
            assertTrue(d > 3500 && d <= 3600, "delay " + d);
            assertTrue(soon.getDelay(TimeUnit.NANOSECONDS) < later.getDelay(TimeUnit.NANOSECONDS));
            assertTrue(soon.compareTo(later) < 0);
            assertTrue(later.compareTo(soon) > 0);
            assertEquals(0, soon.compareTo(soon));
            java.util.concurrent.Delayed other = new java.util.concurrent.Delayed() {
                @Override
                public long getDelay(TimeUnit unit) {
                    return unit.convert(90, TimeUnit.MINUTES);
                }

                @Override
                public int compareTo(java.util.concurrent.Delayed o) {
                    return 0;
                }
            };
            assertTrue(soon.compareTo(other) < 0 && later.compareTo(other) > 0);
            ScheduledFuture<?> past = pool.schedule(() -> { }, -5, TimeUnit.SECONDS);
            past.get(HANG, TimeUnit.SECONDS);
            assertTrue(past.getDelay(TimeUnit.NANOSECONDS) <= 0, "a negative delay means now");
            assertFalse(((java.util.concurrent.RunnableScheduledFuture<?>) soon).isPeriodic());
        } finally {
            terminate(pool);
        }
    }

    @Test
    void hugeDelaysDoNotOverflow() throws Exception {
        WorkStealingPool pool = pool(1);
        try {
            ScheduledFuture<?> max = pool.schedule(() -> { }, Long.MAX_VALUE, TimeUnit.NANOSECONDS);
            ScheduledFuture<?> days = pool.schedule(() -> { }, Long.MAX_VALUE, TimeUnit.DAYS);
            ScheduledFuture<?> rate = pool.scheduleAtFixedRate(() -> { }, Long.MAX_VALUE, Long.MAX_VALUE, TimeUnit.DAYS);
            ScheduledFuture<?> now = pool.schedule(() -> 7, Long.MIN_VALUE, TimeUnit.DAYS);
            assertEquals(7, now.get(HANG, TimeUnit.SECONDS));
            for (ScheduledFuture<?> f : List.of(max, days, rate)) {
                assertTrue(f.getDelay(TimeUnit.DAYS) > 365L * 100, "far in the future: " + f.getDelay(TimeUnit.DAYS));
                assertFalse(f.isDone());
            }
            ScheduledFuture<?> soon = pool.schedule(() -> 1, 1, TimeUnit.MILLISECONDS);
            assertEquals(1, soon.get(HANG, TimeUnit.SECONDS), "a far deadline does not hide a near one");
            assertTrue(soon.compareTo(max) < 0);
            for (ScheduledFuture<?> f : List.of(max, days, rate)) {
                assertTrue(f.cancel(false));
            }
        } finally {
            terminate(pool);
        }
    }

    @Test
    void badInputIsRefusedByName() throws Exception {
        WorkStealingPool pool = pool(1);
        try {
            Runnable r = () -> { };
            assertNpe("command", () -> pool.schedule((Runnable) null, 1, TimeUnit.SECONDS));
            assertNpe("unit", () -> pool.schedule(r, 1, null));
            assertNpe("callable", () -> pool.schedule((java.util.concurrent.Callable<Integer>) null, 1, TimeUnit.SECONDS));
            assertNpe("unit", () -> pool.schedule(() -> 1, 1, null));
            assertNpe("command", () -> pool.scheduleAtFixedRate(null, 1, 1, TimeUnit.SECONDS));
            assertNpe("unit", () -> pool.scheduleAtFixedRate(r, 1, 1, null));
            assertNpe("command", () -> pool.scheduleWithFixedDelay(null, 1, 1, TimeUnit.SECONDS));
            assertNpe("unit", () -> pool.scheduleWithFixedDelay(r, 1, 1, null));
            assertNpe("task", () -> pool.submitWithTimeout(null, 1, TimeUnit.SECONDS, null));
            assertNpe("unit", () -> pool.submitWithTimeout(() -> 1, 1, null, null));
            for (long bad : new long[] {0, -1, Long.MIN_VALUE}) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> pool.scheduleAtFixedRate(r, 1, bad, TimeUnit.SECONDS));
                assertTrue(e.getMessage().contains("period"), e.getMessage());
                e = assertThrows(IllegalArgumentException.class,
                        () -> pool.scheduleWithFixedDelay(r, 1, bad, TimeUnit.SECONDS));
                assertTrue(e.getMessage().contains("delay"), e.getMessage());
            }
            assertEquals(0, pool.stats().scheduledOnce() + pool.stats().scheduledRepetitively()
                    + pool.stats().delayedTasksPending());
            assertFalse(timerAlive(pool), "refused input starts no timer");
        } finally {
            terminate(pool);
        }
    }

    private static void assertNpe(String name, org.junit.jupiter.api.function.Executable call) {
        NullPointerException e = assertThrows(NullPointerException.class, call);
        assertEquals(name, e.getMessage());
    }

    @Test
    void theTimerThreadStartsWithTheFirstScheduleAndEndsWithThePool() throws Exception {
        WorkStealingPool pool = pool(2);
        pool.submit(() -> 1).get(HANG, TimeUnit.SECONDS);
        assertFalse(timerAlive(pool), "no timer before the first schedule");
        pool.schedule(() -> { }, 1, TimeUnit.MILLISECONDS).get(HANG, TimeUnit.SECONDS);
        assertTrue(timerAlive(pool));
        pool.shutdown();
        assertTrue(pool.awaitTermination(HANG, TimeUnit.SECONDS));
        assertFalse(timerAlive(pool), "no timer after termination");
        WorkStealingPool other = pool(1);
        other.close();
        assertFalse(timerAlive(other));
    }

    /**
     * An interrupt of the timer thread is cleared: the timer parks again (it once spun, park
     * returning at once forever) and still fires what is scheduled later.
     */
    @Test
    void anInterruptOfTheTimerThreadIsIgnored() throws Exception {
        WorkStealingPool pool = pool(1);
        try {
            assertEquals(1, pool.schedule(() -> 1, 1, TimeUnit.MILLISECONDS).get(HANG, TimeUnit.SECONDS));
            Thread timer = timerThread(pool);
            assertTrue(timer != null, "setup: the timer thread");
            await().atMost(HANG, TimeUnit.SECONDS).until(() -> timer.getState() == Thread.State.WAITING);
            timer.interrupt();
            await().atMost(HANG, TimeUnit.SECONDS).until(() -> !timer.isInterrupted()
                    && timer.getState() == Thread.State.WAITING);
            assertEquals(2, pool.schedule(() -> 2, 1, TimeUnit.MILLISECONDS).get(HANG, TimeUnit.SECONDS));
            ScheduledFuture<?> later = pool.schedule(() -> { }, 1, TimeUnit.HOURS);
            timer.interrupt();
            await().atMost(HANG, TimeUnit.SECONDS).until(() -> !timer.isInterrupted()
                    && timer.getState() == Thread.State.TIMED_WAITING);
            assertTrue(later.cancel(false));
            assertEquals(3, pool.schedule(() -> 3, 1, TimeUnit.MILLISECONDS).get(HANG, TimeUnit.SECONDS));
        } finally {
            terminate(pool);
        }
    }

    @Test
    void countersAndToString() throws Exception {
        WorkStealingPool pool = pool(1);
        try {
            pool.schedule(() -> { }, 1, TimeUnit.HOURS);
            pool.schedule(() -> 1, 1, TimeUnit.HOURS);
            pool.scheduleAtFixedRate(() -> { }, 1, 1, TimeUnit.HOURS);
            pool.scheduleWithFixedDelay(() -> { }, 1, 1, TimeUnit.HOURS);
            pool.submitWithTimeout(() -> 1, 1, TimeUnit.HOURS, null).get(HANG, TimeUnit.SECONDS);
            await().atMost(HANG, TimeUnit.SECONDS).until(() -> pool.stats().delayedTasksPending() == 4);
            PoolStats s = pool.stats();
            assertEquals(2, s.scheduledOnce());
            assertEquals(2, s.scheduledRepetitively());
            assertTrue(s.toString().contains("scheduled: once=2 repetitively=2 pending=4"), s.toString());
        } finally {
            terminate(pool);
        }
    }

    /**
     * A probe, not a limit: prints the heap cost of a pending delayed task (issue 37's goal is
     * about 100 bytes), one shared Runnable for all, measured with Runtime after GCs.
     */
    @Test
    void footprintOfAPendingTask() throws Exception {
        WorkStealingPool pool = pool(1);
        try {
            int n = 200_000;
            Runnable shared = () -> { };
            pool.schedule(shared, 1, TimeUnit.HOURS).cancel(false); // the timer started
            long before = usedAfterGc();
            List<ScheduledFuture<?>> kept = new ArrayList<>(n);
            long refs = usedAfterGc() - before; // the list alone, before it fills: ~0
            for (int i = 0; i < n; i++) {
                kept.add(pool.schedule(shared, 1, TimeUnit.HOURS));
            }
            await().atMost(HANG, TimeUnit.SECONDS).until(() -> pool.stats().delayedTasksPending() == n);
            long after = usedAfterGc();
            // The list's own slots (4 or 8 bytes each) are the caller's, not the pool's.
            long perTask = (after - before - refs) / n - 4;
            System.out.println("ScheduledTest: about " + perTask + " bytes per pending delayed task");
            assertEquals(n, kept.size());
        } finally {
            terminate(pool);
        }
    }

    private static long usedAfterGc() throws InterruptedException {
        Runtime rt = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(20);
        }
        return rt.totalMemory() - rt.freeMemory();
    }

    // ------------------------------------------------------------------ shutdown

    @Test
    void afterShutdownOneShotTasksRunAndPeriodicOnesStop() throws Exception {
        WorkStealingPool pool = pool(2);
        AtomicBoolean ran = new AtomicBoolean();
        ScheduledFuture<?> oneShot = pool.schedule(() -> {
            ran.set(true);
        }, 200, TimeUnit.MILLISECONDS);
        ScheduledFuture<Integer> value = pool.schedule(() -> 5, 50, TimeUnit.MILLISECONDS);
        // Still waiting when shutdown() returns, whatever the machine's load: the pool cannot
        // terminate before it is cancelled (the test cancels it below).
        ScheduledFuture<?> hours = pool.schedule(() -> ran.set(false), 2, TimeUnit.HOURS);
        AtomicInteger runs = new AtomicInteger();
        ScheduledFuture<?> periodic = pool.scheduleAtFixedRate(runs::incrementAndGet, 0, 1, TimeUnit.MILLISECONDS);
        ScheduledFuture<?> slow = pool.scheduleWithFixedDelay(() -> { }, 1, 1, TimeUnit.HOURS);
        await().atMost(HANG, TimeUnit.SECONDS).until(() -> runs.get() > 0);
        pool.shutdown();
        assertTrue(slow.isCancelled(), "a waiting periodic task is cancelled by shutdown()");
        assertThrows(RejectedExecutionException.class, () -> pool.schedule(() -> { }, 1, TimeUnit.SECONDS));
        assertFalse(pool.isTerminated(), "a one-shot task is still due");
        assertFalse(hours.isDone(), "one-shot tasks are kept by shutdown()");
        await().atMost(HANG, TimeUnit.SECONDS).until(() -> oneShot.isDone() && value.isDone());
        assertFalse(pool.isTerminated(), "the two-hour task holds the pool");
        assertTrue(hours.cancel(false));
        assertTrue(pool.awaitTermination(HANG, TimeUnit.SECONDS), "termination once no one-shot task is due");
        assertTrue(ran.get());
        assertEquals(5, value.get());
        assertTrue(oneShot.isDone() && !oneShot.isCancelled());
        assertTrue(periodic.isCancelled(), "a running periodic task stops at its next run");
        assertFalse(timerAlive(pool));
    }

    @Test
    void cancelDelayedTasksOnShutdownCancelsTheOneShotTasks() throws Exception {
        WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).cancelDelayedTasksOnShutdown(true).build();
        AtomicBoolean ran = new AtomicBoolean();
        ScheduledFuture<?> f = pool.schedule(() -> ran.set(true), 1, TimeUnit.HOURS);
        ScheduledFuture<?> p = pool.scheduleAtFixedRate(() -> ran.set(true), 1, 1, TimeUnit.HOURS);
        pool.shutdown();
        assertTrue(f.isCancelled() && p.isCancelled(), "cancelled when shutdown() returns");
        assertTrue(pool.awaitTermination(HANG, TimeUnit.SECONDS), "prompt termination");
        assertFalse(ran.get());
        assertEquals(0, pool.stats().delayedTasksPending());
    }

    @Test
    void shutdownNowRunsNoDelayedTaskAndCancelsThem() throws Exception {
        WorkStealingPool pool = pool(2);
        AtomicBoolean ran = new AtomicBoolean();
        List<ScheduledFuture<?>> fs = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            fs.add(pool.schedule(() -> ran.set(true), 1 + i, TimeUnit.HOURS));
        }
        fs.add(pool.scheduleWithFixedDelay(() -> ran.set(true), 1, 1, TimeUnit.HOURS));
        List<Runnable> never = pool.shutdownNow();
        assertTrue(never.isEmpty(), "none was due: " + never);
        for (ScheduledFuture<?> f : fs) {
            assertTrue(f.isCancelled(), "cancelled when shutdownNow() returns");
        }
        assertTrue(pool.awaitTermination(HANG, TimeUnit.SECONDS));
        assertFalse(ran.get());
        assertFalse(timerAlive(pool));
    }

    @Test
    void awaitTerminationWaitsForTheDelayedTasksOnly() throws Exception {
        WorkStealingPool pool = pool(1);
        AtomicBoolean ran = new AtomicBoolean();
        pool.schedule(() -> ran.set(true), 100, TimeUnit.MILLISECONDS);
        pool.shutdown();
        assertFalse(pool.awaitTermination(1, TimeUnit.MILLISECONDS) && !ran.get(),
                "terminated before its one-shot task ran");
        assertTrue(pool.awaitTermination(HANG, TimeUnit.SECONDS));
        assertTrue(ran.get());
    }

    // ------------------------------------------------------------------ submitWithTimeout

    @Test
    void theTimeoutActionGetsTheTaskAndMayCompleteIt() throws Exception {
        WorkStealingPool pool = pool(2);
        try {
            CountDownLatch never = new CountDownLatch(1);
            AtomicReference<Task<String>> seen = new AtomicReference<>();
            Task<String> t = pool.submitWithTimeout(() -> {
                never.await();
                return "late";
            }, 20, TimeUnit.MILLISECONDS, task -> {
                seen.set(task);
                task.complete("fallback");
            });
            assertEquals("fallback", t.get(HANG, TimeUnit.SECONDS));
            assertSame(t, seen.get());
            never.countDown();
            await().atMost(HANG, TimeUnit.SECONDS).until(() -> pool.stats().delayedTasksPending() == 0);
        } finally {
            terminate(pool);
        }
    }

    @Test
    void withoutAnActionTheTaskIsCancelledWithAnInterrupt() throws Exception {
        WorkStealingPool pool = pool(2);
        try {
            // The call must start before its time runs out: if a stalled machine lets the timer
            // fire first, the call never runs; try again with a longer limit.
            CountDownLatch interrupted;
            Task<String> t;
            for (long limit = 50; ; limit *= 4) {
                assertTrue(limit < TimeUnit.MINUTES.toMillis(1), "the call never started in time");
                CountDownLatch go = new CountDownLatch(1);
                CountDownLatch stop = new CountDownLatch(1);
                interrupted = stop;
                t = pool.submitWithTimeout(() -> {
                    go.countDown();
                    try {
                        Thread.sleep(TimeUnit.SECONDS.toMillis(HANG * 2));
                    } catch (InterruptedException e) {
                        stop.countDown();
                        throw e;
                    }
                    return "late";
                }, limit, TimeUnit.MILLISECONDS, null);
                Task<String> task = t;
                await().atMost(HANG, TimeUnit.SECONDS).until(() -> go.getCount() == 0 || task.isDone());
                if (go.getCount() == 0) {
                    break;
                }
            }
            assertTrue(interrupted.await(HANG, TimeUnit.SECONDS), "interrupted");
            Task<String> timed = t;
            assertTrue(timed.isCancelled());
            assertThrows(CancellationException.class, () -> timed.get(HANG, TimeUnit.SECONDS));
            // The worker's next task does not inherit the interrupt.
            for (int i = 0; i < 20; i++) {
                assertFalse(pool.submit(() -> Thread.currentThread().isInterrupted()).get(HANG, TimeUnit.SECONDS));
            }
        } finally {
            terminate(pool);
        }
    }

    /**
     * The timeout without an action runs on the timer thread: with the only worker busy running
     * the timed task itself, the task is still cancelled and interrupted in time (it once ran on
     * a worker, and so only after the task).
     */
    @Test
    void withoutAnActionTheTimeLimitHoldsWhileEveryWorkerIsBusy() throws Exception {
        WorkStealingPool pool = pool(1);
        CountDownLatch never = new CountDownLatch(1);
        try {
            // As above: the call must start before its time runs out, else a longer limit.
            CountDownLatch interrupted;
            Task<String> t;
            for (long limit = 100; ; limit *= 4) {
                assertTrue(limit < TimeUnit.MINUTES.toMillis(1), "the call never started in time");
                CountDownLatch go = new CountDownLatch(1);
                CountDownLatch stop = new CountDownLatch(1);
                interrupted = stop;
                t = pool.submitWithTimeout(() -> {
                    go.countDown();
                    try {
                        never.await(HANG * 2, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        stop.countDown();
                        throw e;
                    }
                    return "late";
                }, limit, TimeUnit.MILLISECONDS, null);
                Task<String> task = t;
                await().atMost(HANG, TimeUnit.SECONDS).until(() -> go.getCount() == 0 || task.isDone());
                if (go.getCount() == 0) {
                    break;
                }
            }
            Task<String> timed = t;
            assertThrows(CancellationException.class, () -> timed.get(HANG, TimeUnit.SECONDS));
            assertTrue(interrupted.await(HANG, TimeUnit.SECONDS), "the runner was interrupted");
            assertFalse(pool.submit(() -> Thread.currentThread().isInterrupted()).get(HANG, TimeUnit.SECONDS),
                    "the worker's next task does not inherit the interrupt");
        } finally {
            never.countDown();
            terminate(pool);
        }
    }

    /**
     * A timed task completed before it ran (cancelled before shutdown, completed after it) does
     * not keep its timer entry, which would hold the shut-down pool until the timeout.
     */
    @Test
    void aTimedTaskDoneBeforeItRanDoesNotHoldTermination() throws Exception {
        WorkStealingPool pool = pool(1);
        CountDownLatch release = new CountDownLatch(1);
        try {
            pool.execute(() -> {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            Task<Integer> cancelled = pool.submitWithTimeout(() -> 1, 1, TimeUnit.HOURS, null);
            Task<Integer> completed = pool.submitWithTimeout(() -> 2, 1, TimeUnit.HOURS, t -> t.complete(-1));
            assertTrue(cancelled.cancel(false));
            pool.shutdown();
            assertTrue(completed.complete(3));
            release.countDown();
            assertTrue(pool.awaitTermination(HANG, TimeUnit.SECONDS), "no timer entry holds the pool");
            assertEquals(3, completed.get());
            assertTrue(cancelled.isCancelled());
            assertEquals(0, pool.stats().delayedTasksPending());
        } finally {
            release.countDown();
            terminate(pool);
        }
    }

    /**
     * The timeout's interrupt is cleared as the timed call ends, but not one from
     * {@code shutdownNow} that came meanwhile: the task the call ran nested in (its joiner, on
     * the same worker) still sees it.
     */
    @Test
    void shutdownNowsInterruptSurvivesTheTimeoutsClearing() throws Exception {
        WorkStealingPool pool = pool(1);
        CountDownLatch timedOut = new CountDownLatch(1);
        CountDownLatch stopped = new CountDownLatch(1);
        try {
            Future<Boolean> outer = pool.submit(() -> {
                // The call must start before its time runs out (a stalled machine may let the
                // timer fire first, and the call then never runs): else a longer limit.
                for (long limit = 50; timedOut.getCount() > 0 && limit < TimeUnit.MINUTES.toMillis(1);
                        limit *= 4) {
                    Task<String> t = pool.submitWithTimeout(() -> {
                        try {
                            Thread.sleep(TimeUnit.SECONDS.toMillis(HANG * 2));
                        } catch (InterruptedException e) {
                            timedOut.countDown();
                            while (stopped.getCount() > 0) { // not interruptible: shutdownNow's stays set
                                Thread.onSpinWait();
                            }
                        }
                        return "late";
                    }, limit, TimeUnit.MILLISECONDS, null);
                    try {
                        t.join(); // on the only worker: runs t right here, on top of this task
                    } catch (CancellationException expected) {
                        // timed out
                    }
                }
                return Thread.currentThread().isInterrupted();
            });
            assertTrue(timedOut.await(HANG, TimeUnit.SECONDS));
            pool.shutdownNow();
            stopped.countDown();
            assertTrue(outer.get(HANG, TimeUnit.SECONDS), "shutdownNow's interrupt was kept");
        } finally {
            stopped.countDown();
            terminate(pool);
        }
    }

    @Test
    void aTaskDoneInTimeRemovesItsTimerEntry() throws Exception {
        WorkStealingPool pool = pool(2);
        try {
            List<Task<Integer>> ts = new ArrayList<>();
            AtomicInteger actions = new AtomicInteger();
            for (int i = 0; i < 1000; i++) {
                int k = i;
                ts.add(pool.submitWithTimeout(() -> k, 1, TimeUnit.HOURS, t -> actions.incrementAndGet()));
            }
            for (int i = 0; i < ts.size(); i++) {
                assertEquals(i, ts.get(i).get(HANG, TimeUnit.SECONDS));
            }
            await().atMost(HANG, TimeUnit.SECONDS).until(() -> pool.stats().delayedTasksPending() == 0);
            assertEquals(0, actions.get());
            Task<Integer> failing = pool.submitWithTimeout(() -> {
                throw new java.io.IOException("checked");
            }, 1, TimeUnit.HOURS, null);
            ExecutionException e = assertThrows(ExecutionException.class, () -> failing.get(HANG, TimeUnit.SECONDS));
            assertInstanceOf(java.io.IOException.class, e.getCause());
            await().atMost(HANG, TimeUnit.SECONDS).until(() -> pool.stats().delayedTasksPending() == 0);
        } finally {
            terminate(pool);
        }
    }

    // ------------------------------------------------------------------ races, run many times

    @Test
    void cancelRacingTheFiringEitherCancelsOrRuns() throws Exception {
        WorkStealingPool pool = pool(2);
        try {
            for (int round = 0; round < 3000; round++) {
                AtomicInteger ran = new AtomicInteger();
                ScheduledFuture<?> f = pool.schedule(ran::incrementAndGet, round % 50, TimeUnit.MICROSECONDS);
                if (round % 3 == 0) {
                    Thread.onSpinWait();
                }
                boolean cancelled = f.cancel(round % 2 == 0);
                if (cancelled) {
                    assertTrue(f.isCancelled());
                } else {
                    f.get(HANG, TimeUnit.SECONDS);
                    assertEquals(1, ran.get());
                }
                assertTrue(ran.get() <= 1);
            }
            await().atMost(HANG, TimeUnit.SECONDS).until(() -> pool.stats().delayedTasksPending() == 0);
        } finally {
            terminate(pool);
        }
    }

    @Test
    void shutdownRacingTheFiringRunsEveryOneShotTask() throws Exception {
        for (int round = 0; round < 200; round++) {
            WorkStealingPool pool = pool(2);
            AtomicInteger ran = new AtomicInteger();
            List<ScheduledFuture<?>> fs = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                fs.add(pool.schedule(ran::incrementAndGet, i * 50L, TimeUnit.MICROSECONDS));
            }
            if (round % 2 == 0) {
                Thread.sleep(0, 200_000);
            }
            pool.shutdown();
            assertTrue(pool.awaitTermination(HANG, TimeUnit.SECONDS));
            assertEquals(20, ran.get(), "round " + round);
            for (ScheduledFuture<?> f : fs) {
                assertTrue(f.isDone() && !f.isCancelled());
            }
        }
    }

    @Test
    void shutdownNowRacingTheFiringRunsReturnsOrCancelsEachTaskOnce() throws Exception {
        for (int round = 0; round < 200; round++) {
            WorkStealingPool pool = pool(2);
            ConcurrentLinkedQueue<Integer> ran = new ConcurrentLinkedQueue<>();
            List<ScheduledFuture<?>> fs = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                int k = i;
                fs.add(pool.schedule(() -> ran.add(k), i * 20L, TimeUnit.MICROSECONDS));
            }
            if (round % 2 == 0) {
                Thread.sleep(0, 200_000);
            }
            List<Runnable> returned = pool.shutdownNow();
            assertTrue(pool.awaitTermination(HANG, TimeUnit.SECONDS));
            int accounted = 0;
            for (ScheduledFuture<?> f : fs) {
                int ways = (f.isCancelled() ? 1 : 0) + (returned.contains(f) ? 1 : 0)
                        + (f.isDone() && !f.isCancelled() ? 1 : 0);
                assertEquals(1, ways, "round " + round + ": ran, returned or cancelled, once");
                accounted++;
            }
            assertEquals(20, accounted);
            assertEquals(ran.size(), fs.stream().filter(f -> f.isDone() && !f.isCancelled()).count());
        }
    }

    @Test
    void manyTasksDueAtOnceWakeTheSleeperWhileTheOtherWorkerIsBusy() throws Exception {
        // One worker runs a task that waits for all the others; the other worker sleeps. More
        // tasks fall due at one instant than the timer hands over under one notice: they are
        // queued, and only a notice wakes the sleeper. Each runs exactly once.
        WorkStealingPool pool = pool(2);
        try {
            for (int round = 0; round < 10; round++) {
                int tasks = 200;
                CountDownLatch others = new CountDownLatch(tasks);
                CountDownLatch blocking = new CountDownLatch(1);
                Future<Boolean> blocker = pool.submit(() -> {
                    blocking.countDown();
                    return others.await(HANG, TimeUnit.SECONDS);
                });
                blocking.await();
                await().atMost(HANG, TimeUnit.SECONDS)
                        .until(() -> pool.stats().parkedWorkers() == 1);
                AtomicIntegerArray runs = new AtomicIntegerArray(tasks);
                long due = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1);
                for (int i = 0; i < tasks; i++) {
                    int k = i;
                    pool.schedule(() -> {
                        runs.incrementAndGet(k);
                        others.countDown();
                    }, due - System.nanoTime(), TimeUnit.NANOSECONDS);
                }
                assertTrue(blocker.get(), "round " + round + ": the sleeper ran the due tasks");
                for (int i = 0; i < tasks; i++) {
                    assertEquals(1, runs.get(i), "round " + round + ", task " + i);
                }
            }
        } finally {
            terminate(pool);
        }
    }

    @Test
    void shutdownNowRacingABatchOfDueTasksRunsReturnsOrCancelsEachOnce() throws Exception {
        // As above with shutdownNow landing while the timer hands batches over: each task
        // runs, is returned or is cancelled, exactly once.
        for (int round = 0; round < 100; round++) {
            WorkStealingPool pool = pool(2);
            int tasks = 150;
            AtomicIntegerArray runs = new AtomicIntegerArray(tasks);
            List<ScheduledFuture<?>> fs = new ArrayList<>();
            long due = System.nanoTime() + TimeUnit.MICROSECONDS.toNanos(300);
            for (int i = 0; i < tasks; i++) {
                int k = i;
                fs.add(pool.schedule(() -> runs.incrementAndGet(k),
                        due - System.nanoTime(), TimeUnit.NANOSECONDS));
            }
            while (System.nanoTime() - due < (round % 4) * 20_000L) {
                Thread.onSpinWait(); // at the deadline, or during the batches that follow it
            }
            List<Runnable> returned = pool.shutdownNow();
            assertTrue(pool.awaitTermination(HANG, TimeUnit.SECONDS));
            for (int i = 0; i < tasks; i++) {
                ScheduledFuture<?> f = fs.get(i);
                boolean ran = f.isDone() && !f.isCancelled();
                int ways = (f.isCancelled() ? 1 : 0) + (returned.contains(f) ? 1 : 0)
                        + (ran ? 1 : 0);
                String which = "round " + round + ", task " + i;
                assertEquals(1, ways, which + ": ran, returned or cancelled, once");
                assertEquals(ran ? 1 : 0, runs.get(i), which + ": ran as its future says");
            }
        }
    }

    @Test
    void aTimeoutRacingTheCompletionGivesOneOutcome() throws Exception {
        WorkStealingPool pool = pool(2);
        try {
            for (int round = 0; round < 2000; round++) {
                long spin = ThreadLocalRandom.current().nextLong(0, 60_000);
                AtomicInteger actions = new AtomicInteger();
                Task<String> t = pool.submitWithTimeout(() -> {
                    long end = System.nanoTime() + spin;
                    while (System.nanoTime() < end) {
                        Thread.onSpinWait();
                    }
                    return "value";
                }, 30, TimeUnit.MICROSECONDS, round % 2 == 0 ? null : task -> {
                    actions.incrementAndGet();
                    task.complete("fallback");
                });
                String v;
                try {
                    v = t.get(HANG, TimeUnit.SECONDS);
                } catch (CancellationException e) {
                    v = null;
                }
                assertTrue(v == null || v.equals("value") || v.equals("fallback"));
                assertTrue(actions.get() <= 1);
                if (v == null) {
                    assertTrue(round % 2 == 0 && t.isCancelled());
                }
            }
            for (int i = 0; i < 50; i++) {
                assertFalse(pool.submit(() -> Thread.currentThread().isInterrupted()).get(HANG, TimeUnit.SECONDS),
                        "no interrupt left over from a timeout");
            }
            await().atMost(HANG, TimeUnit.SECONDS).until(() -> pool.stats().delayedTasksPending() == 0);
        } finally {
            terminate(pool);
        }
    }
}
