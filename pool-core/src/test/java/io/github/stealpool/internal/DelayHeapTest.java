package io.github.stealpool.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The delay timer's 4-ary heap, driven by hand on a timer whose thread never starts (and, for
 * the shutdown's filtering, on its own): entries come out by deadline, then by sequence
 * number, through removals from anywhere in the heap; and equal deadlines, which a real clock
 * seldom gives, go in one thread's scheduling order.
 */
class DelayHeapTest {

    private static DelayScheduler timer() {
        return new DelayScheduler(new Scheduler(SchedulerConfig.basic(2, "heap", 8, 0)), false);
    }

    private static DelayedTask<Void> entry(DelayScheduler timer, long time, long seq) {
        return new DelayedTask<Void>(timer, () -> { }, null, time, seq);
    }

    private static final Comparator<DelayedTask<?>> HEAP_ORDER =
            Comparator.<DelayedTask<?>>comparingLong(t -> t.time).thenComparingLong(t -> t.seq);

    @Test
    void entriesComeOutByDeadlineThenSequenceThroughRandomRemovals() {
        Random random = new Random(37);
        for (int round = 0; round < 20; round++) {
            DelayScheduler timer = timer();
            List<DelayedTask<?>> kept = new ArrayList<>();
            List<DelayedTask<?>> all = new ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                // Few distinct deadlines: many ties, which only the sequence numbers break.
                DelayedTask<Void> t = entry(timer, 1_000L * random.nextInt(50), i);
                all.add(t);
            }
            Collections.shuffle(all, random); // taken in out of order
            for (DelayedTask<?> t : all) {
                timer.takeIn(t, Scheduler.RUNNING);
            }
            for (DelayedTask<?> t : all) {
                if (random.nextInt(3) == 0) {
                    t.cancel(false);
                    timer.remove(t); // the Removal a cancel of a taken-in entry offers
                    assertEquals(-1, t.heapIndex, "out of the heap");
                } else {
                    kept.add(t);
                }
            }
            kept.sort(HEAP_ORDER);
            for (DelayedTask<?> expected : kept) {
                assertTrue(expected == timer.pollFirst(), "round " + round);
            }
            assertNull(timer.pollFirst());
        }
    }

    @Test
    void oneThreadsEntriesDueTogetherComeOutInItsSchedulingOrder() {
        DelayScheduler timer = timer();
        TimerInbox numbers = new TimerInbox(8);
        List<DelayedTask<?>> scheduled = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            scheduled.add(entry(timer, 42L, numbers.nextSequence()));
        }
        List<DelayedTask<?>> arriving = new ArrayList<>(scheduled);
        Collections.shuffle(arriving, new Random(1)); // another stripe's batch order, say
        for (DelayedTask<?> t : arriving) {
            timer.takeIn(t, Scheduler.RUNNING);
        }
        for (DelayedTask<?> t : scheduled) {
            assertTrue(t == timer.pollFirst(), "scheduling order");
        }
    }

    /**
     * The shutdown's filtering ({@code DelayHeap.removeIf}): every entry the predicate holds
     * for is handed over once, out of the heap; the rest still come out in heap order.
     * Deadlines near the wrap of {@code nanoTime} and many ties, so the order is the wrapping
     * one and sequence numbers matter.
     */
    @Test
    void filteringKeepsTheRestInOrderAndHandsOverEachDroppedEntryOnce() {
        Random random = new Random(39);
        DelayScheduler timer = timer();
        for (int round = 0; round < 50; round++) {
            DelayHeap heap = new DelayHeap();
            List<DelayedTask<?>> all = new ArrayList<>();
            int n = 1 + random.nextInt(300);
            for (int i = 0; i < n; i++) {
                DelayedTask<Void> t = entry(timer, Long.MAX_VALUE - 20_000L + 1_000L * random.nextInt(40), i);
                all.add(t);
                heap.add(t);
            }
            for (int i = 0; i < n / 5; i++) { // some taken out first, from anywhere
                heap.remove(all.get(random.nextInt(n)));
            }
            Set<DelayedTask<?>> dropped = new HashSet<>();
            List<DelayedTask<?>> handed = new ArrayList<>();
            heap.removeIf(t -> {
                boolean drop = random.nextBoolean();
                if (drop) {
                    dropped.add(t);
                }
                return drop;
            }, t -> {
                assertEquals(-1, t.heapIndex, "out of the heap as it is handed over");
                handed.add(t);
            });
            assertEquals(dropped.size(), handed.size(), "each dropped entry handed over once");
            assertEquals(dropped, new HashSet<>(handed));
            List<DelayedTask<?>> kept = new ArrayList<>();
            for (DelayedTask<?> t : all) {
                if (t.heapIndex >= 0) {
                    kept.add(t);
                }
            }
            assertEquals(kept.size(), heap.size());
            kept.sort((a, b) -> a.before(b) ? -1 : b.before(a) ? 1 : 0);
            for (DelayedTask<?> expected : kept) {
                assertTrue(expected == heap.pollFirst(), "round " + round);
            }
            assertTrue(heap.isEmpty());
            assertNull(heap.pollFirst());
        }
    }

    /**
     * Clearing hands over every entry, even when handing one over fails (the first failure is
     * thrown after the rest), and leaves no entry with an index into the heap.
     */
    @Test
    void clearingHandsOverEveryEntry() {
        DelayScheduler timer = timer();
        DelayHeap heap = new DelayHeap();
        List<DelayedTask<?>> all = new ArrayList<>();
        for (int i = 0; i < 5_000; i++) {
            DelayedTask<Void> t = entry(timer, 5_000L - i, i);
            all.add(t);
            heap.add(t);
        }
        List<DelayedTask<?>> handed = new ArrayList<>();
        IllegalStateException failed = new IllegalStateException("a cancel failed");
        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> heap.clear(t -> {
            handed.add(t);
            if (t.seq % 1000 == 7) {
                throw failed;
            }
        }));
        assertTrue(thrown == failed, "the first failure");
        assertEquals(all.size(), handed.size());
        assertEquals(new HashSet<>(all), new HashSet<>(handed));
        assertTrue(heap.isEmpty());
        for (DelayedTask<?> t : all) {
            assertEquals(-1, t.heapIndex);
        }
        heap.add(all.get(0)); // usable again
        assertTrue(all.get(0) == heap.first());
    }
}
