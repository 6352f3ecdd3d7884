package io.github.stealpool;

import static io.github.stealpool.Rethrown.assertRethrown;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Issue 14: one shape for int ranges, long ranges, lists and arrays ({@code range}, {@code items}). */
class RangeFormsTest {

    private WorkStealingPool pool;

    private WorkStealingPool pool(int parallelism) {
        pool = WorkStealingPool.builder().parallelism(parallelism).loopBatch(1, 16).build();
        return pool;
    }

    @AfterEach
    void tearDown() throws Exception {
        if (pool != null) {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(60, TimeUnit.SECONDS));
        }
    }

    @ParameterizedTest(name = "parallelism={0}")
    @ValueSource(ints = {1, 2, 8})
    void intAndLongRangesHaveTheSameFormsAndVisitEveryIndexOnce(int parallelism) {
        WorkStealingPool p = pool(parallelism);
        int n = 10_000;

        IntRange ints = p.range(-3, n - 3);
        AtomicIntegerArray seen = new AtomicIntegerArray(n);
        ints.forEach(i -> seen.incrementAndGet(i + 3));
        assertAllOnce(seen, "IntRange.forEach");
        AtomicIntegerArray chunks = new AtomicIntegerArray(n);
        ints.forEachChunk((lo, hi) -> {
            for (long i = lo; i < hi; i++) {
                chunks.incrementAndGet((int) i + 3);
            }
        });
        assertAllOnce(chunks, "IntRange.forEachChunk");

        // A long bound picks LongRange, with no second method name for long indexes.
        long base = Long.MAX_VALUE - n;
        LongRange longs = p.range(base, Long.MAX_VALUE);
        AtomicIntegerArray seenLong = new AtomicIntegerArray(n);
        longs.forEach(i -> seenLong.incrementAndGet((int) (i - base)));
        assertAllOnce(seenLong, "LongRange.forEach");
        AtomicIntegerArray chunksLong = new AtomicIntegerArray(n);
        longs.forEachChunk((lo, hi) -> {
            for (long i = lo; i < hi; i++) {
                chunksLong.incrementAndGet((int) (i - base));
            }
        });
        assertAllOnce(chunksLong, "LongRange.forEachChunk");

        String expected = IntStream.range(0, n).mapToObj(i -> i + ",").collect(Collectors.joining());
        assertEquals(expected, p.range(0, n).reduce("", i -> i + ",", String::concat));
        assertEquals(expected, p.range(0L, n).reduce("", i -> i + ",", String::concat));
        long sum = (long) n * (n - 1) / 2;
        assertEquals(sum, p.range(0, n).reduceLong(0, i -> i, Long::sum));
        assertEquals(sum, p.range(0L, n).reduceLong(0, i -> i, Long::sum));
        assertEquals(n, p.range(0, n).reduceDouble(0, i -> 1.0, Double::sum), 0.0);
        assertEquals(n, p.range(0L, n).reduceDouble(0, i -> 1.0, Double::sum), 0.0);

        assertEquals("id", p.range(7, 7).reduce("id", i -> "x", String::concat), "empty: the identity");
        assertEquals(-1L, p.range(7L, 7L).reduceLong(-1, i -> 5, Long::sum));
        assertEquals(0, ints.from() + 3);
        assertEquals(Long.MAX_VALUE, longs.to());
    }

    @ParameterizedTest(name = "parallelism={0}")
    @ValueSource(ints = {1, 2, 8})
    void itemsOfListsAndArraysKeepTheirOrder(int parallelism) {
        WorkStealingPool p = pool(parallelism);
        int n = 5_000;
        String[] words = IntStream.range(0, n).mapToObj(i -> "w" + i).toArray(String[]::new);
        String joined = String.join("", words);
        List<List<String>> lists = List.of(Arrays.asList(words), new ArrayList<>(Arrays.asList(words)),
                new LinkedList<>(Arrays.asList(words)), List.of(words));
        for (List<String> list : lists) {
            String kind = list.getClass().getSimpleName();
            Items<String> items = p.items(list);
            assertEquals(n, items.size());

            AtomicIntegerArray seen = new AtomicIntegerArray(n);
            items.forEach(w -> seen.incrementAndGet(Integer.parseInt(w.substring(1))));
            assertAllOnce(seen, kind + " forEach");

            Integer[] numbers = items.map(w -> Integer.parseInt(w.substring(1)), Integer[]::new);
            assertArrayEquals(IntStream.range(0, n).boxed().toArray(), numbers, kind + " map");

            assertEquals(joined, items.reduce("", w -> w, String::concat), kind + " reduce");
            assertEquals((long) n * (n - 1) / 2, items.reduceLong(0, w -> Integer.parseInt(w.substring(1)), Long::sum));
            assertEquals(n, items.reduceDouble(0, w -> 1.0, Double::sum), 0.0);
        }
        assertEquals(joined, p.items(words).reduce("", w -> w, String::concat), "array");
        assertArrayEquals(new Integer[0], p.items(new String[0]).map(String::length, Integer[]::new));
        assertEquals("none", p.items(List.<String>of()).reduce("none", w -> w, String::concat));
    }

    @Test
    void aFailingElementReachesTheCallerWithItsClass() {
        WorkStealingPool p = pool(2);
        IllegalStateException boom = new IllegalStateException("element 4321");
        List<Integer> list = IntStream.range(0, 10_000).boxed().collect(Collectors.toList());
        assertRethrown(boom, assertThrows(IllegalStateException.class, () -> p.items(list).forEach(x -> {
            if (x == 4321) {
                throw boom;
            }
        })));
        assertRethrown(boom, assertThrows(IllegalStateException.class, () -> p.range(0L, 10_000L).forEach(i -> {
            if (i == 4321) {
                throw boom;
            }
        })));
        assertEquals(10_000, p.items(list).map(x -> x, Integer[]::new).length, "the pool carries on");
    }

    @Test
    void loopsOfEveryFormNest() {
        WorkStealingPool p = pool(4);
        List<int[]> rows = IntStream.range(0, 40).mapToObj(r -> new int[50]).collect(Collectors.toList());
        p.items(rows).forEach(row -> p.range(0, row.length).forEach(i -> row[i]++));
        long total = p.items(rows).reduceLong(0, row -> p.range(0L, row.length).reduceLong(0, i -> row[(int) i], Long::sum),
                Long::sum);
        assertEquals(40 * 50, total);
    }

    @Test
    void badInputIsRefusedByName() {
        WorkStealingPool p = pool(2);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> p.range(5, 3));
        assertEquals("from (5) must not be greater than to (3)", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> p.range(1L, 0L));
        assertEquals("list", assertThrows(NullPointerException.class, () -> p.items((List<String>) null)).getMessage());
        assertEquals("array", assertThrows(NullPointerException.class, () -> p.items((String[]) null)).getMessage());
        assertEquals("body", assertThrows(NullPointerException.class, () -> p.range(0, 1).forEach(null)).getMessage());
        assertEquals("body", assertThrows(NullPointerException.class, () -> p.range(0L, 1L).forEachChunk(null)).getMessage());
        assertEquals("mapper", assertThrows(NullPointerException.class,
                () -> p.range(0, 1).reduceLong(0, null, Long::sum)).getMessage());
        assertEquals("mapper", assertThrows(NullPointerException.class,
                () -> p.range(0L, 1L).reduce("", null, String::concat)).getMessage());
        assertEquals("combiner", assertThrows(NullPointerException.class,
                () -> p.range(0, 1).reduceDouble(0, i -> 0, null)).getMessage());
        Items<String> items = p.items(List.of("a", "b"));
        assertEquals("body", assertThrows(NullPointerException.class, () -> items.forEach(null)).getMessage());
        assertEquals("mapper", assertThrows(NullPointerException.class,
                () -> items.map(null, String[]::new)).getMessage());
        assertEquals("generator", assertThrows(NullPointerException.class,
                () -> items.map(w -> w, null)).getMessage());
        assertEquals("combiner", assertThrows(NullPointerException.class,
                () -> items.reduce("", w -> w, null)).getMessage());
        IllegalStateException wrongLength = assertThrows(IllegalStateException.class,
                () -> items.map(w -> w, len -> new String[len + 1]));
        assertEquals("generator made an array of length 3 when asked for 2", wrongLength.getMessage());
        assertEquals("the array made by generator", assertThrows(NullPointerException.class,
                () -> items.map(w -> w, len -> null)).getMessage());
        assertEquals("ab", items.reduce("", w -> w, String::concat), "the pool is as it was");
    }

    private static void assertAllOnce(AtomicIntegerArray seen, String what) {
        for (int i = 0; i < seen.length(); i++) {
            assertEquals(1, seen.get(i), what + ": index " + i);
        }
    }
}
