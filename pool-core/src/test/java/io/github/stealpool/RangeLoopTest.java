package io.github.stealpool;

import static io.github.stealpool.Rethrown.assertRethrown;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The range loops: forEach, forEachChunk and the reductions of IntRange and LongRange. */
class RangeLoopTest {

    private static final long HANG = 60;

    private WorkStealingPool pool;

    private WorkStealingPool pool(int parallelism) {
        return pool(WorkStealingPool.builder().parallelism(parallelism));
    }

    private WorkStealingPool pool(WorkStealingPool.Builder b) {
        pool = b.build();
        return pool;
    }

    @AfterEach
    void tearDown() throws Exception {
        if (pool != null) {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(HANG, TimeUnit.SECONDS));
        }
    }

    /**
     * Issue 14: an owner whose batches grew over a cheap stretch must not claim the expensive
     * tail in one batch nobody can split. No batch may take more than a quarter of what is left
     * in its range, so no chunk the body gets (a batch, or a run of one) covers more than a quarter of what lies beyond its start. The other worker is held, so the loop runs on one thread through both
     * participants' code and the batches are the same on every run; without the bound the
     * batch at index 1023 covers 1024 indexes.
     */
    @Test
    void noBatchTakesMoreThanItsShareOfWhatIsLeft() throws Exception {
        WorkStealingPool p = pool(WorkStealingPool.builder().parallelism(2).loopBatch(1, 1024));
        CountDownLatch hold = new CountDownLatch(1);
        CountDownLatch held = new CountDownLatch(1);
        p.execute(() -> {
            held.countDown();
            try {
                hold.await(HANG, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertTrue(held.await(HANG, TimeUnit.SECONDS));
        int n = 4096;
        List<long[]> chunks = java.util.Collections.synchronizedList(new ArrayList<>());
        try {
            p.submit(() -> p.range(0L, n).forEachChunk((lo, hi) -> chunks.add(new long[] {lo, hi})))
                    .get(HANG, TimeUnit.SECONDS);
        } finally {
            hold.countDown();
        }
        long covered = 0;
        for (long[] c : chunks) {
            long size = c[1] - c[0];
            covered += size;
            assertTrue(size <= Math.max(1, (n - c[0]) / 4),
                    "chunk [" + c[0] + ", " + c[1] + ") takes more than a quarter of what is left");
        }
        assertEquals(n, covered);
    }

    /**
     * Runs of a claimed batch near the top of {@code long}: a run's end must not overflow (with
     * batches of at least 16 the last batch before Long.MAX_VALUE is several indexes long).
     */
    @Test
    void runsOfABatchEndingAtTheTopOfLongDoNotOverflow() throws Exception {
        WorkStealingPool p = pool(WorkStealingPool.builder().parallelism(2).loopBatch(16, 64));
        int n = 1000;
        long base = Long.MAX_VALUE - n;
        AtomicIntegerArray seen = new AtomicIntegerArray(n);
        AtomicIntegerArray chunks = new AtomicIntegerArray(n);
        p.submit(() -> {
            p.range(base, Long.MAX_VALUE).forEach(i -> seen.incrementAndGet((int) (i - base)));
            p.range(base, Long.MAX_VALUE).forEachChunk((lo, hi) -> {
                assertTrue(lo < hi && lo >= base, "[" + lo + ", " + hi + ")");
                for (long i = lo; i < hi; i++) {
                    chunks.incrementAndGet((int) (i - base));
                }
            });
        }).get(HANG, TimeUnit.SECONDS);
        assertAllOnce(seen, "LongRange.forEach");
        assertAllOnce(chunks, "LongRange.forEachChunk");
    }

    @ParameterizedTest(name = "parallelism={0}")
    @ValueSource(ints = {1, 2, 3, 8})
    void everyIndexIsVisitedExactlyOnce(int parallelism) {
        Random rnd = new Random(parallelism);
        long[][] batches = {{1, 1}, {1, 7}, {1, 1024}, {4, 64}, {1000, 1000}};
        for (long[] batch : batches) {
            WorkStealingPool p = pool(WorkStealingPool.builder().parallelism(parallelism).loopBatch(batch[0], batch[1]));
            int[] sizes = {0, 1, 2, parallelism - 1, parallelism, parallelism + 1, 1000, 100_000 + rnd.nextInt(1000)};
            for (int size : sizes) {
                if (size < 0) {
                    continue;
                }
                int from = rnd.nextInt(1000) - 500;
                AtomicIntegerArray seen = new AtomicIntegerArray(size);
                p.range(from, from + size).forEach(i -> seen.incrementAndGet(i - from));
                assertAllOnce(seen, "IntRange.forEach size " + size + " batch " + batch[0] + ".." + batch[1]);

                AtomicIntegerArray seenLong = new AtomicIntegerArray(size);
                long base = rnd.nextLong() / 2;
                p.range(base, base + size).forEach(i -> seenLong.incrementAndGet((int) (i - base)));
                assertAllOnce(seenLong, "LongRange.forEach size " + size);

                AtomicIntegerArray seenChunks = new AtomicIntegerArray(size);
                p.range(from, from + size).forEachChunk((lo, hi) -> {
                    assertTrue(lo < hi);
                    for (long i = lo; i < hi; i++) {
                        seenChunks.incrementAndGet((int) (i - from));
                    }
                });
                assertAllOnce(seenChunks, "IntRange.forEachChunk size " + size);
            }
            p.shutdownNow();
        }
    }

    private static void assertAllOnce(AtomicIntegerArray seen, String what) {
        for (int i = 0; i < seen.length(); i++) {
            assertEquals(1, seen.get(i), what + ": index " + i);
        }
    }

    @Test
    void boundsAtTheIntegerLimitsDoNotOverflow() {
        WorkStealingPool p = pool(3);
        AtomicIntegerArray top = new AtomicIntegerArray(1000);
        p.range(Integer.MAX_VALUE - 1000, Integer.MAX_VALUE).forEach(i -> top.incrementAndGet(i - (Integer.MAX_VALUE - 1000)));
        assertAllOnce(top, "int top");
        AtomicIntegerArray bottom = new AtomicIntegerArray(1000);
        p.range(Integer.MIN_VALUE, Integer.MIN_VALUE + 1000).forEach(i -> bottom.incrementAndGet(i - Integer.MIN_VALUE));
        assertAllOnce(bottom, "int bottom");
        AtomicIntegerArray longTop = new AtomicIntegerArray(1000);
        p.range(Long.MAX_VALUE - 1000, Long.MAX_VALUE).forEach(i -> longTop.incrementAndGet((int) (i - (Long.MAX_VALUE - 1000))));
        assertAllOnce(longTop, "long top");
        assertEquals(1000L, p.range(Long.MIN_VALUE, Long.MIN_VALUE + 1000).reduceLong(0, i -> 1, Long::sum));
    }

    @Test
    void rangesLongerThanOneWindowAreCoveredExactly() {
        // 3 * 2^30 + 5 indexes on one worker: several windows of at most 2^30 per participant.
        WorkStealingPool p = pool(WorkStealingPool.builder().parallelism(1).loopBatch(1 << 20, 1 << 24));
        long n = 3L * (1L << 30) + 5;
        LongAdder count = new LongAdder();
        AtomicLong lastEnd = new AtomicLong(-7);
        p.range(-7L, -7 + n).forEachChunk((lo, hi) -> {
            assertEquals(lastEnd.get(), lo, "one worker takes its range in order");
            lastEnd.set(hi);
            count.add(hi - lo);
        });
        assertEquals(n, count.sum());
    }

    @ParameterizedTest(name = "parallelism={0}")
    @ValueSource(ints = {1, 2, 4})
    void reduceKeepsIndexOrderForANonCommutativeCombiner(int parallelism) {
        WorkStealingPool p = pool(WorkStealingPool.builder().parallelism(parallelism).loopBatch(1, 8));
        int n = 5_000;
        StringBuilder expected = new StringBuilder();
        for (int i = 0; i < n; i++) {
            expected.append(i).append(',');
        }
        assertEquals(expected.toString(), p.range(0, n).reduce("", i -> i + ",", String::concat));

        // 2x2 matrix products do not commute either.
        long[] identity = {1, 0, 0, 1};
        long[] sequential = identity;
        for (int i = 0; i < 2_000; i++) {
            sequential = multiply(sequential, matrix(i));
        }
        assertArrayEquals(sequential, p.range(0, 2_000).reduce(identity, RangeLoopTest::matrix, RangeLoopTest::multiply));

        assertEquals("", p.range(5, 5).reduce("", i -> "x", String::concat), "empty range gives the identity");
        assertEquals((long) n * (n - 1) / 2, p.range(0L, n).reduceLong(0, i -> i, Long::sum));
        assertEquals(n, p.range(0L, n).reduceDouble(0.0, i -> 1.0, Double::sum), 0.0);
    }

    static long[] matrix(int i) {
        return new long[] {1, i % 7, (i * 3) % 5, 1};
    }

    static long[] multiply(long[] a, long[] b) {
        final long m = 1_000_000_007L;
        return new long[] {
            (a[0] * b[0] + a[1] * b[2]) % m, (a[0] * b[1] + a[1] * b[3]) % m,
            (a[2] * b[0] + a[3] * b[2]) % m, (a[2] * b[1] + a[3] * b[3]) % m};
    }

    @Test
    void aFailureStopsTheLoopAndReachesTheCallerWithItsClass() {
        WorkStealingPool p = pool(2);
        IllegalStateException boom = new IllegalStateException("index 3");
        LongAdder visited = new LongAdder();
        int n = 50_000_000;
        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> p.range(0, n).forEach(i -> {
            visited.increment();
            if (i == 3) {
                throw boom;
            }
        }));
        assertRethrown(boom, thrown);
        assertTrue(visited.sum() < n, "the loop ran on after the failure: " + visited.sum());

        // Inside the pool too, and the pool still works afterwards.
        assertRethrown(boom, assertThrows(IllegalStateException.class, () -> p.invoke(new Task<Void>() {
            @Override
            protected Void compute() {
                p.range(0L, 1000L).forEach(i -> {
                    if (i == 999) {
                        throw boom;
                    }
                });
                return null;
            }
        })));
        assertEquals(499_500L, p.range(0L, 1000L).reduceLong(0, i -> i, Long::sum));
    }

    @Test
    void shutdownNowStopsARunningLoop() throws Exception {
        WorkStealingPool p = pool(2);
        LongAdder visited = new LongAdder();
        java.util.concurrent.CompletableFuture<Throwable> outcome = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                p.range(0L, Long.MAX_VALUE).forEach(i -> visited.increment()); // would take centuries
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(HANG)).until(() -> visited.sum() > 1_000_000);
        p.shutdownNow();
        assertTrue(p.awaitTermination(HANG, TimeUnit.SECONDS), "the loop kept the pool alive");
        assertTrue(outcome.get(HANG, TimeUnit.SECONDS) instanceof java.util.concurrent.CancellationException,
                String.valueOf(outcome.get()));
        pool = null;
    }

    @Test
    void nestedLoopsAndLoopsInsideTasksShareThePool() {
        WorkStealingPool p = pool(3);
        int n = 300;
        AtomicIntegerArray seen = new AtomicIntegerArray(n * n);
        p.range(0, n).forEach(i -> p.range(0, n).forEach(j -> seen.incrementAndGet(i * n + j)));
        assertAllOnce(seen, "nested");
        long viaTask = p.invoke(new Task<Long>() {
            @Override
            protected Long compute() {
                return p.range(0L, 10_000L).reduceLong(0, i -> p.range(0L, 10L).reduceLong(0, j -> 1, Long::sum), Long::sum);
            }
        });
        assertEquals(100_000L, viaTask);
        // A loop inside a join inside a scope.
        LongAdder total = new LongAdder();
        p.scope(s -> s.spawn(() -> p.join(() -> p.range(0, 1000).forEach(i -> total.increment()),
                () -> p.range(0, 1000).forEach(i -> total.increment()))));
        assertEquals(2000, total.sum());
    }

    @Test
    void unevenWorkIsShared() {
        WorkStealingPool p = pool(2);
        // The expensive indexes are all in the first worker's half: the second must steal them.
        ConcurrentHashMap.KeySetView<Thread, Boolean> expensiveRunners = ConcurrentHashMap.newKeySet();
        p.range(0, 64).forEach(i -> {
            if (i < 32) {
                expensiveRunners.add(Thread.currentThread());
                long x = 0;
                for (int k = 0; k < 2_000_000; k++) {
                    x += k ^ i;
                }
                if (x == 42) {
                    throw new AssertionError();
                }
            }
        });
        assertEquals(2, expensiveRunners.size(), "no expensive index was stolen");
    }

    @Test
    void badInputIsRejectedAndLeavesThePoolUsable() {
        WorkStealingPool p = pool(2);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> p.range(5, 3).forEach(i -> { }));
        assertTrue(e.getMessage().contains("5") && e.getMessage().contains("3"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> p.range(1L, 0L).forEach(i -> { }));
        assertThrows(IllegalArgumentException.class, () -> p.range(1, 0).reduce("", i -> "", String::concat));
        assertEquals("body", assertThrows(NullPointerException.class, () -> p.range(0, 1).forEach(null)).getMessage());
        assertEquals("body", assertThrows(NullPointerException.class, () -> p.range(0L, 1L).forEachChunk(null)).getMessage());
        assertEquals("mapper", assertThrows(NullPointerException.class, () -> p.range(0L, 1L).reduceLong(0, null, Long::sum)).getMessage());
        assertEquals("combiner", assertThrows(NullPointerException.class, () -> p.range(0L, 1L).reduceDouble(0, i -> 0, null)).getMessage());
        WorkStealingPool.Builder b = WorkStealingPool.builder();
        assertThrows(IllegalArgumentException.class, () -> b.loopBatch(0, 10));
        assertThrows(IllegalArgumentException.class, () -> b.loopBatch(10, 5));
        assertThrows(IllegalArgumentException.class, () -> b.loopBatch(1, 1L << 31));
        assertEquals(3L, p.range(0L, 3L).reduceLong(0, i -> 1, Long::sum));
    }

    /** The cost profiles of issue 14's benchmark, as a busy-work count per index of {@code n}. */
    enum Profile {
        CHEAP_THEN_EXPENSIVE, EXPENSIVE_THEN_CHEAP, HOT_INDEX, SPARSE_SPIKES, RAMP;

        int work(int i, int n) {
            switch (this) {
                case CHEAP_THEN_EXPENSIVE: return i < n * 3 / 4 ? 1 : 400;
                case EXPENSIVE_THEN_CHEAP: return i < n / 4 ? 400 : 1;
                case HOT_INDEX: return i == n / 3 ? 50_000 : 1;
                case SPARSE_SPIKES: return (i * 2_654_435_761L >>> 7) % 61 == 0 ? 4_000 : 1;
                default: return 1 + 400 * i / n;
            }
        }
    }

    private static volatile long sink;

    private static void busy(int work) {
        long x = work;
        for (int k = 0; k < work; k++) {
            x = x * 6_364_136_223_846_793_005L + 1;
        }
        sink = x;
    }

    /**
     * Issue 14: every index exactly once and index order kept by reduce, for every cost profile,
     * batch bound and parallelism, so the balancing (guided bounds, steals of what an owner has
     * left) never loses or repeats work whatever the costs make the workers do.
     */
    @ParameterizedTest(name = "parallelism={0}")
    @ValueSource(ints = {2, 3, 8})
    void everyCostProfileVisitsEveryIndexOnceAndReduceKeepsOrder(int parallelism) {
        int n = 2_048;
        String expected = java.util.stream.IntStream.range(0, n).mapToObj(i -> i + ",")
                .collect(java.util.stream.Collectors.joining());
        long[][] batches = {{1, 1024}, {1, 7}, {16, 64}};
        for (long[] batch : batches) {
            WorkStealingPool p = pool(WorkStealingPool.builder().parallelism(parallelism).loopBatch(batch[0], batch[1]));
            for (Profile profile : Profile.values()) {
                String what = profile + " batch " + batch[0] + ".." + batch[1];
                AtomicIntegerArray seen = new AtomicIntegerArray(n);
                p.range(0, n).forEach(i -> {
                    busy(profile.work(i, n));
                    seen.incrementAndGet(i);
                });
                assertAllOnce(seen, what);
                assertEquals(expected, p.range(0, n).reduce("", i -> {
                    busy(profile.work(i, n));
                    return i + ",";
                }, String::concat), what + ": reduce order");
            }
            p.shutdownNow();
        }
    }
}
