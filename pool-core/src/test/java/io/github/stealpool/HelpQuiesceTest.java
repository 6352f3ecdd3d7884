package io.github.stealpool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link Task#helpQuiesce()}: the ForkJoinTask pattern that forks many tasks, joins none, and
 * waits for all of them at the end. Each forked leaf takes a millisecond, so a helpQuiesce that
 * returned early would find leaves not yet run.
 */
class HelpQuiesceTest {

    private static final long HANG = 60; // seconds: a hang detector, not a speed claim

    private WorkStealingPool pool;

    private WorkStealingPool pool(int parallelism) {
        pool = WorkStealingPool.builder().parallelism(parallelism).build();
        return pool;
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        if (pool != null) {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(HANG, TimeUnit.SECONDS));
        }
    }

    /** Forks {@code fanOut} children per level down to {@code depth}; leaves sleep 1 ms. Never joins. */
    private static final class Spread extends Task<Void> {
        final int depth;
        final int fanOut;
        final LongAdder leaves;
        final List<Task<?>> all;

        Spread(int depth, int fanOut, LongAdder leaves, List<Task<?>> all) {
            this.depth = depth;
            this.fanOut = fanOut;
            this.leaves = leaves;
            this.all = all;
        }

        @Override
        protected Void compute() {
            if (depth == 0) {
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                leaves.increment();
                return null;
            }
            for (int i = 0; i < fanOut; i++) {
                Spread child = new Spread(depth - 1, fanOut, leaves, all);
                synchronized (all) {
                    all.add(child);
                }
                child.fork();
            }
            return null;
        }
    }

    @ParameterizedTest(name = "parallelism={0}")
    @ValueSource(ints = {1, 2, 3})
    void helpQuiesceReturnsOnlyAfterEveryForkedTaskRan(int parallelism) {
        WorkStealingPool p = pool(parallelism);
        for (int round = 0; round < 5; round++) {
            LongAdder leaves = new LongAdder();
            List<Task<?>> all = new ArrayList<>();
            long seen = p.invoke(Task.adapt(() -> {
                new Spread(3, 4, leaves, all).compute(); // 4 + 16 + 64 tasks, none joined
                Task.helpQuiesce();
                return leaves.sum();
            }));
            assertEquals(64, seen, "helpQuiesce returned with leaves not yet run");
            synchronized (all) {
                assertEquals(84, all.size());
                for (Task<?> t : all) {
                    assertTrue(t.isDone(), "not done after helpQuiesce: " + t);
                }
            }
        }
    }

    @Test
    void helpQuiesceWaitsForATaskRunningOnAnotherWorker() throws Exception {
        WorkStealingPool p = pool(2);
        CountDownLatch blockerRuns = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        p.execute(() -> {
            blockerRuns.countDown();
            try {
                release.await(HANG, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertTrue(blockerRuns.await(HANG, TimeUnit.SECONDS));
        AtomicBoolean released = new AtomicBoolean();
        Task<Boolean> quiescer = p.submit(Task.adapt(() -> {
            Task.helpQuiesce();
            return released.get();
        }));
        // Not a speed claim: a correct helpQuiesce never returns while the blocker runs.
        assertFalse(quiescer.isDone());
        Thread.sleep(200);
        assertFalse(quiescer.isDone(), "helpQuiesce returned while another worker ran a task");
        released.set(true);
        release.countDown();
        assertTrue(quiescer.get(HANG, TimeUnit.SECONDS), "returned before the blocker was released");
    }

    @Test
    void twoWorkersCallingHelpQuiesceAtOnceBothReturn() throws Exception {
        // Found in review: each waiter counted the other as busy, forever.
        WorkStealingPool p = pool(2);
        CountDownLatch both = new CountDownLatch(2);
        List<java.util.concurrent.Future<String>> done = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            String name = "t" + i;
            done.add(p.submit(() -> {
                both.countDown();
                assertTrue(both.await(HANG, TimeUnit.SECONDS));
                Task.helpQuiesce();
                return name;
            }));
        }
        assertEquals("t0", done.get(0).get(HANG, TimeUnit.SECONDS));
        assertEquals("t1", done.get(1).get(HANG, TimeUnit.SECONDS));
    }

    @Test
    void pastTheHelpDepthBoundAOneWorkerPoolStillQuiesces() throws Exception {
        // Found in review: past the bound helpQuiesce ran only the running task's own forks, and
        // with one worker nobody else ran the older ones.
        LongAdder leaves = new LongAdder();
        pool(1).submit(new Deep(0, leaves, Task::helpQuiesce)).get(HANG, TimeUnit.SECONDS);
        assertEquals(40, leaves.sum());
    }

    /** Forks a sleeping leaf and the next level, then joins the leaf first. */
    private static final class DeepJoin extends Task<Void> {
        static final int TARGET = 33; // past the help-depth bound (32) when its joiner waits
        final int level;
        final AtomicBoolean targetStarted;
        final AtomicBoolean quiesced;

        DeepJoin(int level, AtomicBoolean targetStarted, AtomicBoolean quiesced) {
            this.level = level;
            this.targetStarted = targetStarted;
            this.quiesced = quiesced;
        }

        @Override
        protected Void compute() {
            if (level == TARGET + 1) { // hold this worker until the other one runs the target
                long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(HANG);
                while (!targetStarted.get() && System.nanoTime() < end) {
                    Thread.onSpinWait();
                }
                return null;
            }
            int k = level;
            Task<Void> leaf = Task.adapt(() -> {
                if (k == TARGET) {
                    targetStarted.set(true);
                    Task.helpQuiesce(); // its joiner waits past the depth bound meanwhile
                    quiesced.set(true);
                } else {
                    sleepQuietly(1);
                }
            });
            leaf.fork();
            DeepJoin next = new DeepJoin(level + 1, targetStarted, quiesced);
            next.fork();
            leaf.join();
            next.join();
            return null;
        }
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void aJoinerParkedPastTheDepthBoundCountsAsIdle() throws Exception {
        // Found in review: a worker parked in a join past the bound counted as busy, so a
        // helpQuiesce inside the very task it waited for never returned.
        AtomicBoolean targetStarted = new AtomicBoolean();
        AtomicBoolean quiesced = new AtomicBoolean();
        pool(2).submit(new DeepJoin(0, targetStarted, quiesced)).get(HANG, TimeUnit.SECONDS);
        assertTrue(quiesced.get());
    }

    /**
     * Each level forks a leaf (counted in {@code leaves}) and the next level and joins both;
     * the deepest, past the help-depth bound, runs {@code atBottom}.
     */
    private static final class Deep extends Task<Void> {
        final int level;
        final LongAdder leaves;
        final Runnable atBottom;

        Deep(int level, LongAdder leaves, Runnable atBottom) {
            this.level = level;
            this.leaves = leaves;
            this.atBottom = atBottom;
        }

        @Override
        protected Void compute() {
            if (level == 40) { // past the help-depth bound (32)
                atBottom.run();
                return null;
            }
            Task<Void> leaf = Task.adapt(leaves::increment);
            leaf.fork();
            Deep next = new Deep(level + 1, leaves, atBottom);
            next.fork();
            leaf.join();
            next.join();
            return null;
        }
    }

    @Test
    void aCallerPastTheDepthBoundStealsWhatOnlyItCanRun() throws Exception {
        // Found in review: a helpQuiesce past the bound stole nothing, while the other worker,
        // parked in a join past the bound on the very task that waited, left older tasks in
        // its deque that only a thief could run. The order is forced so that neither worker
        // can run the other's nesting (which would have it join its own ancestor): worker B
        // nests first while A holds x, then parks joining x; then A nests inside x.
        AtomicBoolean xStarted = new AtomicBoolean();
        AtomicBoolean bParked = new AtomicBoolean();
        AtomicBoolean quiesced = new AtomicBoolean();
        LongAdder bLeaves = new LongAdder();
        Task<Void> x = Task.adapt(() -> {
            xStarted.set(true);
            spinUntil(bParked);
            new Deep(0, new LongAdder(), () -> {
                Task.helpQuiesce(); // must run B's leaves: nobody else will
                quiesced.set(true);
            }).compute();
        });
        WorkStealingPool p = pool(2);
        p.submit(Task.adapt(() -> {
            x.fork();
            spinUntil(xStarted); // the other worker took x: it is not on this stack
            new Deep(0, bLeaves, () -> {
                bParked.set(true); // about to park past the bound, its leaves queued
                x.join();
            }).compute();
        })).get(HANG, TimeUnit.SECONDS);
        assertTrue(quiesced.get());
        assertEquals(40, bLeaves.sum());
    }

    private static void spinUntil(AtomicBoolean flag) {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(HANG);
        while (!flag.get() && System.nanoTime() < end) {
            Thread.onSpinWait();
        }
        assertTrue(flag.get(), "hang detector");
    }

    @Test
    void offThePoolHelpQuiesceWaitsForTheCommonPool() {
        LongAdder ran = new LongAdder();
        List<Task<?>> forked = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            forked.add(Task.adapt(() -> {
                Thread.sleep(2);
                ran.increment();
                return null;
            }).fork()); // off the pool: into the common pool
        }
        Task.helpQuiesce();
        assertEquals(50, ran.sum(), "returned before the common pool was quiescent");
        for (Task<?> t : forked) {
            assertTrue(t.isDone(), t.toString());
        }
    }

    @Test
    void helpQuiesceKeepsTheInterruptStatus() {
        WorkStealingPool p = pool(1);
        boolean stillInterrupted = p.invoke(Task.adapt(() -> {
            LongAdder leaves = new LongAdder();
            new Spread(2, 4, leaves, new ArrayList<>()).compute();
            Thread.currentThread().interrupt();
            Task.helpQuiesce();
            assertEquals(16, leaves.sum());
            return Thread.interrupted();
        }));
        assertTrue(stillInterrupted);
    }
}
