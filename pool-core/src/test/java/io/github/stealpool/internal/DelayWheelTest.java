package io.github.stealpool.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The timer's queue ({@link DelayWheel}) against a sorted set: entries come out by deadline,
 * then by sequence number, whichever part holds them (the front, the wheel's buckets, the far
 * heap, a full bucket's overflow), through adds, removals from anywhere, polls, and the
 * shutdown's filtering; and every entry's {@code heapIndex} says whether it is held.
 */
class DelayWheelTest {

    private static final DelayScheduler TIMER =
            new DelayScheduler(new Scheduler(SchedulerConfig.basic(2, "wheel", 8, 0)), false);

    private static final Comparator<DelayedTask<?>> ORDER =
            Comparator.<DelayedTask<?>>comparingLong(t -> t.time).thenComparingLong(t -> t.seq);

    private static final long TICK = 1L << DelayWheel.TICK_SHIFT;
    private static final long SPAN = TICK * DelayWheel.TICKS;

    private long seq;

    private DelayedTask<Void> entry(long time) {
        return new DelayedTask<Void>(TIMER, () -> { }, null, time, seq++);
    }

    /**
     * A deadline around {@code now}: already due, within the wheel, at its edges, or far
     * beyond it; few distinct values in some draws, so ties meet across the parts.
     */
    private static long deadline(Random random, long now) {
        switch (random.nextInt(6)) {
            case 0:
                return now - random.nextInt(1_000_000); // due already: the front
            case 1:
                return now + TICK * random.nextInt(4); // the first few ticks, many ties
            case 2:
                return now + (long) (random.nextDouble() * SPAN); // anywhere in the wheel
            case 3:
                return now + SPAN - TICK + random.nextInt((int) (2 * TICK)); // the wheel's far edge
            case 4:
                return now + SPAN + (long) (random.nextDouble() * 1e10); // beyond: the far heap
            default:
                return now + 1_000L * random.nextInt(20); // ties within a tick
        }
    }

    private static void assertHeld(DelayWheel wheel, TreeSet<DelayedTask<?>> expected, List<DelayedTask<?>> all) {
        assertEquals(expected.size(), wheel.size());
        for (DelayedTask<?> t : all) {
            assertEquals(expected.contains(t), t.heapIndex >= 0, "held iff its index says so");
        }
    }

    @Test
    void entriesComeOutInOrderThroughAddsRemovalsAndPollsInEveryPart() {
        Random random = new Random(41);
        for (int round = 0; round < 60; round++) {
            // Small buckets in half the rounds: a full bucket's entries go to the far heap.
            DelayWheel wheel = round % 2 == 0 ? new DelayWheel() : new DelayWheel(1 + random.nextInt(4));
            TreeSet<DelayedTask<?>> expected = new TreeSet<>(ORDER);
            List<DelayedTask<?>> all = new ArrayList<>();
            long now = System.nanoTime();
            for (int step = 0; step < 3_000; step++) {
                int op = random.nextInt(10);
                if (op < 5) {
                    DelayedTask<?> t = entry(deadline(random, now));
                    wheel.add(t, now);
                    expected.add(t);
                    all.add(t);
                    assertSame(expected.first(), wheel.first(), "first after an add, round " + round);
                } else if (op < 7 && !all.isEmpty()) {
                    DelayedTask<?> t = all.get(random.nextInt(all.size()));
                    wheel.remove(t); // held or not: the timer's Removal of a cancelled entry
                    expected.remove(t);
                    assertEquals(DelayedTask.OUT, t.heapIndex);
                } else if (op < 9) {
                    DelayedTask<?> first = expected.isEmpty() ? null : expected.first();
                    // first(now) may move a begun tick into the front: the same answer
                    DelayedTask<?> seen = random.nextBoolean() ? wheel.first() : wheel.first(now);
                    assertSame(first, seen, "first, round " + round + " step " + step);
                    assertSame(first, wheel.pollFirst(), "poll, round " + round + " step " + step);
                    if (first != null) {
                        expected.remove(first);
                        assertEquals(DelayedTask.OUT, first.heapIndex);
                    }
                } else {
                    now += random.nextInt((int) (4 * TICK)); // time passes: the front moves on
                }
                if (step % 100 == 0) {
                    assertHeld(wheel, expected, all);
                }
            }
            assertHeld(wheel, expected, all);
            for (DelayedTask<?> t; (t = expected.pollFirst()) != null; ) {
                assertSame(t, wheel.pollFirst(), "draining, round " + round);
            }
            assertNull(wheel.pollFirst());
            assertTrue(wheel.isEmpty());
        }
    }

    /**
     * Thousands of entries in one tick, one after another: a bucket and then the front grow
     * past the size at which they give their arrays back once emptied, and they still give
     * everything out in order and take new entries after; cancelled whole, a grown bucket
     * empties by removals alone.
     */
    @Test
    void aCrowdedTickComesOutInOrderAndTheQueueGoesOnAfter() {
        Random random = new Random(47);
        long now = System.nanoTime();
        DelayWheel wheel = new DelayWheel();
        for (int round = 0; round < 4; round++) {
            TreeSet<DelayedTask<?>> expected = new TreeSet<>(ORDER);
            List<DelayedTask<?>> all = new ArrayList<>();
            long tick = now + 3 * TICK;
            for (int i = 0; i < 3_000; i++) {
                DelayedTask<?> t = entry(tick + random.nextInt((int) TICK / 2));
                wheel.add(t, now);
                expected.add(t);
                all.add(t);
            }
            if (round % 2 == 1) { // cancelled, all of it, while still in its bucket
                for (DelayedTask<?> t : all) {
                    wheel.remove(t);
                    assertEquals(DelayedTask.OUT, t.heapIndex);
                }
                assertTrue(wheel.isEmpty());
                assertNull(wheel.first());
            } else {
                for (DelayedTask<?> t; (t = expected.pollFirst()) != null; ) {
                    assertSame(t, wheel.first(), "round " + round);
                    assertSame(t, wheel.pollFirst(), "round " + round);
                }
                assertNull(wheel.pollFirst());
            }
            now += 5 * TICK;
        }
    }

    /**
     * Where entries land, which is what makes a pop cheap: {@code first} only looks into the
     * wheel, so an entry due before the one it found still goes into the wheel, not the front;
     * and a wheel that waited while time passed moves on with it, so an entry due soon after
     * goes into the wheel, not the far heap.
     */
    @Test
    void firstLeavesTheWheelWhereItIsAndTheWheelKeepsUpWithTheClock() {
        long now = System.nanoTime() & -TICK;
        DelayWheel wheel = new DelayWheel();
        DelayedTask<?> later = entry(now + SPAN / 2);
        wheel.add(later, now);
        assertSame(later, wheel.first());
        assertSame(later, wheel.first(now + TICK)); // its tick has not begun: only a look
        DelayedTask<?> sooner = entry(now + SPAN / 4);
        wheel.add(sooner, now);
        assertTrue(sooner.heapIndex >= DelayWheel.WHEEL_BASE, "in the wheel, not the front: " + sooner.heapIndex);
        assertSame(sooner, wheel.first());

        assertSame(sooner, wheel.first(now + SPAN / 4)); // its tick has begun: into the front
        DelayedTask<?> dueNow = entry(now + SPAN / 4 + 1);
        wheel.add(dueNow, now + SPAN / 4);
        assertTrue(dueNow.heapIndex < DelayWheel.FAR_BASE, "into the front with its tick: " + dueNow.heapIndex);
        assertSame(sooner, wheel.pollFirst()); // the wheel now begins just past sooner's tick
        assertSame(dueNow, wheel.pollFirst());
        long muchLater = now + SPAN / 2 - TICK; // later still waits, a tick away
        DelayedTask<?> next = entry(muchLater + SPAN * 7 / 8); // beyond where the wheel began
        wheel.add(next, muchLater);
        assertTrue(next.heapIndex >= DelayWheel.WHEEL_BASE, "in the wheel, not the far heap: " + next.heapIndex);
        assertSame(later, wheel.pollFirst());
        assertSame(next, wheel.pollFirst());
        assertNull(wheel.pollFirst());

        // Catching up stops at a bucket that holds an entry, even one overdue.
        long t0 = muchLater + SPAN;
        DelayedTask<?> overdue = entry(t0 + 2 * TICK);
        wheel.add(overdue, t0);
        DelayedTask<?> between = entry(t0 + 5 * TICK);
        wheel.add(between, t0 + 10 * TICK);
        assertSame(overdue, wheel.pollFirst());
        assertSame(between, wheel.pollFirst());
        assertTrue(wheel.isEmpty());

        // The earliest the wheel knows of, taken out by the shutdown's filtering or a cancel.
        long t1 = t0 + SPAN;
        DelayedTask<?> a = entry(t1 + 2 * TICK);
        DelayedTask<?> b = entry(t1 + 3 * TICK);
        DelayedTask<?> c = entry(t1 + 4 * TICK);
        for (DelayedTask<?> t : List.of(a, b, c)) {
            wheel.add(t, t1);
        }
        assertSame(a, wheel.first());
        wheel.removeIf(t -> t == a, t -> { });
        assertSame(b, wheel.first(), "filtered out, no longer the first");
        wheel.remove(b);
        assertSame(c, wheel.first(), "removed, no longer the first");
        assertSame(c, wheel.pollFirst());
        assertTrue(wheel.isEmpty());
    }

    /**
     * The shutdown's filtering over all three parts: each dropped entry is handed over once,
     * out of the queue; the rest come out in order, and the queue takes new entries after.
     */
    @Test
    void filteringOverEveryPartKeepsTheRestInOrderAndHandsEachDroppedEntryOverOnce() {
        Random random = new Random(43);
        for (int round = 0; round < 40; round++) {
            DelayWheel wheel = round % 2 == 0 ? new DelayWheel() : new DelayWheel(2);
            TreeSet<DelayedTask<?>> expected = new TreeSet<>(ORDER);
            List<DelayedTask<?>> all = new ArrayList<>();
            long now = System.nanoTime();
            for (int i = 0, n = random.nextInt(500); i < n; i++) {
                DelayedTask<?> t = entry(deadline(random, now));
                wheel.add(t, now);
                all.add(t);
                if (random.nextInt(4) == 0) { // a poll now and then: some ticks already in front
                    expected.add(t);
                    DelayedTask<?> first = expected.pollFirst();
                    assertSame(first, wheel.pollFirst());
                    all.remove(first);
                } else {
                    expected.add(t);
                }
            }
            assertSame(expected.isEmpty() ? null : expected.first(), wheel.first()); // known before filtering
            Set<DelayedTask<?>> handed = new HashSet<>();
            boolean failing = round % 4 == 1; // a cancel that throws: the others still come
            RuntimeException thrown = null;
            try {
                wheel.removeIf(t -> t.seq % 3 == 0, t -> {
                    assertEquals(DelayedTask.OUT, t.heapIndex, "out as it is handed over");
                    assertTrue(handed.add(t), "handed over once");
                    if (failing && t.seq % 2 == 0) {
                        throw new IllegalStateException("cancel failed");
                    }
                });
            } catch (IllegalStateException e) {
                thrown = e;
            }
            boolean anyFailed = failing && handed.stream().anyMatch(t -> t.seq % 2 == 0);
            assertEquals(anyFailed, thrown != null, "the first failure thrown at the end");
            TreeSet<DelayedTask<?>> left = new TreeSet<>(ORDER);
            for (DelayedTask<?> t : all) {
                if (t.seq % 3 != 0 && expected.contains(t)) {
                    left.add(t);
                }
            }
            assertSame(left.isEmpty() ? null : left.first(), wheel.first(), "not a dropped entry");
            for (DelayedTask<?> t : all) {
                if (t.seq % 3 == 0) {
                    assertTrue(handed.remove(t), "dropped: handed over");
                    expected.remove(t);
                }
            }
            assertTrue(handed.isEmpty(), "nothing handed over that was not dropped");
            assertHeld(wheel, expected, all);
            for (DelayedTask<?> t : all) { // the kept ones' indexes still find them
                if (t.heapIndex >= 0 && random.nextInt(4) == 0) {
                    wheel.remove(t);
                    expected.remove(t);
                }
            }
            assertHeld(wheel, expected, all);
            DelayedTask<?> late = entry(now + TICK); // the queue goes on after filtering
            wheel.add(late, now);
            expected.add(late);
            for (DelayedTask<?> t; (t = expected.pollFirst()) != null; ) {
                assertSame(t, wheel.pollFirst(), "round " + round);
            }
            assertTrue(wheel.isEmpty());
        }
    }
}
