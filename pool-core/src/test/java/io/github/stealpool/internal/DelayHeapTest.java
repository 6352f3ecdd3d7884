package io.github.stealpool.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The delay timer's 4-ary heap, driven by hand on a timer whose thread never starts: entries
 * come out by deadline, then by sequence number, through removals from anywhere in the heap;
 * and equal deadlines, which a real clock seldom gives, go in one thread's scheduling order.
 */
class DelayHeapTest {

    private static DelayScheduler timer() {
        return new DelayScheduler(new Scheduler(SchedulerConfig.basic(2, "heap", 8, 0)), false);
    }

    private static DelayedTask<Void> entry(DelayScheduler timer, long time, long seq) {
        return new DelayedTask<Void>(timer, () -> { }, null, time, 0L, seq);
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
}
