package io.github.stealpool.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ChaseLevDequeTest {

    @Test
    void emptyDequeGivesNothing() {
        ChaseLevDeque<Integer> d = new ChaseLevDeque<>();
        assertTrue(d.isEmpty());
        assertEquals(0, d.size());
        assertNull(d.pop());
        assertNull(d.steal());
        assertTrue(d.isEmpty(), "a pop on an empty deque must leave it consistent");
    }

    @Test
    void pushSaysWhetherTheDequeWasEmpty() {
        ChaseLevDeque<Integer> d = new ChaseLevDeque<>(2);
        assertTrue(d.push(1), "onto an empty deque");
        assertFalse(d.push(2));
        assertFalse(d.push(3), "and while it grows");
        assertEquals(1, d.steal());
        assertEquals(3, d.pop());
        assertEquals(2, d.steal()); // emptied by a thief
        assertTrue(d.push(4));
    }

    @Test
    void ownerIsLifoAndThievesAreFifo() {
        ChaseLevDeque<Integer> d = new ChaseLevDeque<>();
        for (int i = 0; i < 5; i++) {
            d.push(i);
        }
        assertEquals(5, d.size());
        assertEquals(4, d.pop());
        assertEquals(0, d.steal());
        assertEquals(3, d.pop());
        assertEquals(1, d.steal());
        assertEquals(2, d.pop()); // the last element, through the CAS path
        assertNull(d.pop());
        assertNull(d.steal());
        d.push(7);
        assertEquals(7, d.steal()); // last element taken by a thief
        assertNull(d.pop());
        assertTrue(d.isEmpty());
    }

    @Test
    void tryUnpushTakesBackOnlyTheBottomElement() {
        ChaseLevDeque<Integer> d = new ChaseLevDeque<>();
        Integer a = 1000;
        Integer b = 2000;
        assertFalse(d.tryUnpush(a), "empty");
        d.push(a);
        d.push(b);
        assertFalse(d.tryUnpush(a), "a is not at the bottom");
        assertTrue(d.tryUnpush(b));
        assertEquals(1, d.size());
        assertSame(a, d.steal());
        assertFalse(d.tryUnpush(a), "stolen");
        assertTrue(d.isEmpty());
    }

    @Test
    void growsAndKeepsOrder() {
        ChaseLevDeque<Integer> d = new ChaseLevDeque<>(2);
        assertEquals(2, d.capacity());
        int n = 10_000;
        for (int i = 0; i < n; i++) {
            d.push(i);
        }
        assertTrue(d.capacity() >= n);
        assertEquals(n, d.size());
        for (int i = 0; i < 100; i++) {
            assertEquals(i, d.steal());
        }
        for (int i = n - 1; i >= 100; i--) {
            assertEquals(i, d.pop());
        }
        assertNull(d.pop());
    }

    @Test
    void growsWhileTheRingHasWrappedAround() {
        ChaseLevDeque<Integer> d = new ChaseLevDeque<>(4);
        int next = 0;
        int expectedSteal = 0;
        // Advance top and bottom past the capacity several times, then overflow.
        for (int round = 0; round < 10; round++) {
            d.push(next++);
            d.push(next++);
            assertEquals(expectedSteal++, d.steal());
            assertEquals(expectedSteal++, d.steal());
        }
        for (int i = 0; i < 9; i++) {
            d.push(next++);
        }
        assertTrue(d.capacity() >= 9);
        while (!d.isEmpty()) {
            assertEquals(expectedSteal++, d.steal());
        }
        assertEquals(next, expectedSteal);
    }

    @Test
    void pushAllIsPushingEachInTurn() {
        ChaseLevDeque<Integer> d = new ChaseLevDeque<>();
        d.push(0);
        d.pushAll(new Integer[] {-1, 1, 2, 3, -1}, 1, 4);
        assertEquals(4, d.size());
        assertEquals(3, d.pop(), "the last of the range is the bottom");
        assertEquals(0, d.steal(), "what was there before stays nearest the top");
        assertEquals(1, d.steal(), "the first of the range is next for thieves");
        assertEquals(2, d.poll());
        assertTrue(d.isEmpty());
    }

    @Test
    void pushAllGrowsAsOftenAsItNeedsWhileTheRingHasWrappedAround() {
        ChaseLevDeque<Integer> d = new ChaseLevDeque<>(2);
        int next = 0;
        int expectedSteal = 0;
        for (int round = 0; round < 5; round++) { // top and bottom past the capacity
            d.push(next++);
            assertEquals(expectedSteal++, d.steal());
        }
        d.push(next++);
        Integer[] batch = new Integer[37];
        for (int i = 0; i < batch.length; i++) {
            batch[i] = next++;
        }
        d.pushAll(batch, 0, batch.length); // 1 + 37 elements: from 2 slots to 64, in one call
        assertEquals(64, d.capacity());
        assertEquals(38, d.size());
        assertEquals(next - 1, d.pop());
        while (!d.isEmpty()) {
            assertEquals(expectedSteal++, d.steal());
        }
        assertEquals(next - 1, expectedSteal);
    }

    @Test
    void pushAllFillsTheArrayExactlyBeforeItGrows() {
        ChaseLevDeque<Integer> d = new ChaseLevDeque<>(4);
        int next = 0;
        int expectedSteal = 0;
        for (int i = 0; i < 3; i++) { // wrap the ring
            d.push(next++);
            assertEquals(expectedSteal++, d.steal());
        }
        d.push(next++);
        d.pushAll(new Integer[] {next++, next++, next++}, 0, 3);
        assertEquals(4, d.capacity(), "four elements fit four slots: no growth");
        d.pushAll(new Integer[] {next++}, 0, 1);
        assertEquals(8, d.capacity(), "the fifth needs it");
        while (!d.isEmpty()) {
            assertEquals(expectedSteal++, d.steal());
        }
        assertEquals(next, expectedSteal);
    }

    @Test
    void pushAllOfNothingChangesNothingAndABadRangeNothingEither() {
        ChaseLevDeque<Integer> d = new ChaseLevDeque<>(2);
        d.push(1);
        Integer[] src = {7, 8};
        d.pushAll(src, 1, 1);
        assertThrows(IndexOutOfBoundsException.class, () -> d.pushAll(src, 1, 3));
        assertThrows(IndexOutOfBoundsException.class, () -> d.pushAll(src, 2, 1));
        assertThrows(IndexOutOfBoundsException.class, () -> d.pushAll(src, -1, 1));
        assertEquals(1, d.size());
        assertEquals(2, d.capacity());
        assertEquals(1, d.pop());
        assertNull(d.pop());
    }

    @Test
    void roundsCapacityUpToAPowerOfTwo() {
        assertEquals(8, new ChaseLevDeque<>(5).capacity());
        assertEquals(2, new ChaseLevDeque<>(1).capacity());
        assertEquals(64, new ChaseLevDeque<>().capacity());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ChaseLevDeque<>(0));
        assertTrue(e.getMessage().contains("initialCapacity"));
    }

    @Test
    void doesNotKeepTakenElementsReachable() throws Exception {
        ChaseLevDeque<Object> d = new ChaseLevDeque<>(8);
        for (int i = 0; i < 6; i++) {
            d.push(new Object());
        }
        d.steal();
        d.steal();
        d.pop();
        d.pop();
        d.pop();
        d.pop(); // last one: the deque is empty now, so stolen slots are cleared as well
        assertEverySlotNull(d);
    }

    @Test
    void ownerPollIsFifoAndKeepsNothingReachable() throws Exception {
        ChaseLevDeque<Object> d = new ChaseLevDeque<>(8);
        Object[] pushed = new Object[6];
        for (int i = 0; i < 6; i++) {
            d.push(pushed[i] = new Object());
        }
        assertSame(pushed[0], d.steal());
        assertSame(pushed[1], d.steal());
        for (int i = 2; i < 6; i++) {
            assertSame(pushed[i], d.poll(), "oldest first");
            assertNull(slots(d)[i], "a polled slot is cleared at once, not when the deque empties");
        }
        assertNull(d.poll()); // finds it empty: stolen slots are cleared as well
        assertEverySlotNull(d);
    }

    private static void assertEverySlotNull(ChaseLevDeque<Object> d) throws Exception {
        for (Object slot : slots(d)) {
            assertNull(slot);
        }
    }

    private static Object[] slots(ChaseLevDeque<Object> d) throws Exception {
        java.lang.reflect.Field f = null;
        for (Class<?> c = d.getClass(); f == null; c = c.getSuperclass()) {
            for (java.lang.reflect.Field candidate : c.getDeclaredFields()) {
                if (candidate.getName().equals("array")) {
                    f = candidate;
                }
            }
        }
        f.setAccessible(true);
        return (Object[]) f.get(d);
    }

    /**
     * One owner pushes and pops, several thieves steal: every item is taken exactly once, and
     * the owner sees its own items in LIFO order relative to each other.
     */
    @ParameterizedTest(name = "thieves={0}, initialCapacity={1}, owner polls={2}, bursts by pushAll={3}")
    @CsvSource({"1, 2, false, false", "3, 2, false, false", "3, 64, false, false", "6, 4, false, false",
        "1, 2, true, false", "3, 4, true, false",
        "1, 2, false, true", "3, 2, false, true", "6, 4, false, true", "3, 4, true, true"})
    void everyItemIsTakenExactlyOnceUnderStealing(int thieves, int initialCapacity, boolean fifo, boolean bulk)
            throws Exception {
        final int items = 300_000;
        ChaseLevDeque<Integer> d = new ChaseLevDeque<>(initialCapacity);
        AtomicIntegerArray taken = new AtomicIntegerArray(items);
        AtomicBoolean ownerDone = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < thieves; t++) {
            Thread thief = new Thread(() -> {
                try {
                    start.await();
                    while (!ownerDone.get() || !d.isEmpty()) {
                        Integer x = d.steal();
                        if (x != null) {
                            taken.incrementAndGet(x);
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "thief-" + t);
            threads.add(thief);
            thief.start();
        }
        Thread owner = new Thread(() -> {
            try {
                start.await();
                ThreadLocalRandom rnd = ThreadLocalRandom.current();
                int next = 0;
                int lastPolled = -1;
                while (next < items) {
                    int burst = Math.min(items - next, 1 + rnd.nextInt(40));
                    if (bulk) {
                        Integer[] src = new Integer[burst + 2]; // a range inside, as the injection queue's
                        for (int i = 1; i <= burst; i++) {
                            src[i] = next++;
                        }
                        d.pushAll(src, 1, burst + 1);
                    } else {
                        for (int i = 0; i < burst; i++) {
                            d.push(next++);
                        }
                    }
                    int pops = rnd.nextInt(burst + 1);
                    int previous = fifo ? lastPolled : Integer.MAX_VALUE;
                    for (int i = 0; i < pops; i++) {
                        Integer x = fifo ? d.poll() : d.pop();
                        if (x == null) {
                            break;
                        }
                        if (fifo ? x <= previous : x >= previous) {
                            throw new AssertionError("owner take out of order: " + x + " after " + previous);
                        }
                        previous = x;
                        taken.incrementAndGet(x);
                    }
                    if (fifo) {
                        lastPolled = previous; // the top only grows: polls are oldest first throughout
                    }
                }
                for (Integer x; (x = fifo ? d.poll() : d.pop()) != null; ) {
                    taken.incrementAndGet(x);
                }
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            } finally {
                ownerDone.set(true);
            }
        }, "owner");
        threads.add(owner);
        owner.start();
        start.countDown();
        for (Thread t : threads) {
            t.join(TimeUnit.MINUTES.toMillis(2));
            assertFalse(t.isAlive(), t.getName() + " hung");
        }
        if (failure.get() != null) {
            throw new AssertionError("a thread failed", failure.get());
        }
        for (int i = 0; i < items; i++) {
            assertEquals(1, taken.get(i), "item " + i + " taken " + taken.get(i) + " times");
        }
        assertTrue(d.isEmpty());
    }
}
