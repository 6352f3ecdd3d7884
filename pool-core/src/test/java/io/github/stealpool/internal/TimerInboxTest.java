package io.github.stealpool.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The delay timer's inbox: a striped Treiber stack of entries and removals, and its counts. */
class TimerInboxTest {

    private static final DelayScheduler TIMER =
            new DelayScheduler(new Scheduler(SchedulerConfig.basic(2, "inbox", 8, 0)), false);

    private static DelayedTask<Void> entry(TimerInbox inbox) {
        return new DelayedTask<Void>(TIMER, () -> { }, null, 0L, inbox.nextSequence());
    }

    /** Takes everything, unlinking, in the order the batches come. */
    private static List<Object> takeAll(TimerInbox inbox) {
        List<Object> out = new ArrayList<>();
        for (Object batch; (batch = inbox.takeAny()) != null; ) {
            for (Object o = batch; o != null; o = TimerInbox.unlinkNext(o)) {
                out.add(o);
            }
        }
        return out;
    }

    @Test
    void roundsStripesToAPowerOfTwo() {
        assertEquals(1, new TimerInbox(1).stripes());
        assertEquals(4, new TimerInbox(3).stripes());
        assertEquals(TimerInbox.MAX_STRIPES, new TimerInbox(1000).stripes());
    }

    @Test
    void oneThreadsEntriesComeOutNewestFirstUnlinkedAndCounted() {
        TimerInbox inbox = new TimerInbox(4);
        assertTrue(inbox.isEmpty());
        assertNull(inbox.takeAny());
        List<DelayedTask<Void>> offered = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            DelayedTask<Void> t = entry(inbox);
            offered.add(t);
            inbox.offer(t);
            inbox.countScheduledOnce(t);
        }
        DelayScheduler.Removal r = new DelayScheduler.Removal(offered.get(0));
        inbox.offer(r);
        assertFalse(inbox.isEmpty());
        assertEquals(5, inbox.offered(), "removals are not entries");
        assertEquals(5, inbox.scheduledOnce());
        List<Object> taken = takeAll(inbox);
        assertTrue(inbox.isEmpty());
        assertEquals(6, taken.size());
        assertSame(r, taken.get(0));
        for (int i = 0; i < 5; i++) {
            assertSame(offered.get(4 - i), taken.get(i + 1), "one stripe, newest first");
            assertNull(offered.get(i).inboxNext, "unlinked: an entry in the heap references no other");
        }
        assertNull(r.next);
        for (int i = 1; i < 5; i++) {
            assertTrue(offered.get(i - 1).seq < offered.get(i).seq, "one thread's numbers increase");
        }
    }

    @Test
    void concurrentOffersAreEachTakenExactlyOnceWhileTheConsumerTakes() throws Exception {
        TimerInbox inbox = new TimerInbox(2); // fewer stripes than producers: they share tops
        int producers = 4;
        int perProducer = 50_000;
        List<List<DelayedTask<Void>>> made = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            made.add(new ArrayList<>(perProducer));
        }
        CountDownLatch start = new CountDownLatch(1);
        AtomicBoolean producing = new AtomicBoolean(true);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            List<DelayedTask<Void>> mine = made.get(p);
            threads.add(new Thread(() -> {
                try {
                    start.await();
                    for (int i = 0; i < perProducer; i++) {
                        DelayedTask<Void> t = entry(inbox);
                        mine.add(t);
                        inbox.offer(t);
                        if ((i & 7) == 0) {
                            inbox.offer(new DelayScheduler.Removal(t));
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "producer-" + p));
        }
        Map<Object, Integer> seen = new IdentityHashMap<>();
        Thread consumer = new Thread(() -> {
            try {
                start.await();
                while (producing.get()) {
                    for (Object o : takeAll(inbox)) {
                        seen.merge(o, 1, Integer::sum);
                    }
                }
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            }
        }, "consumer");
        threads.forEach(Thread::start);
        consumer.start();
        start.countDown();
        for (Thread t : threads) {
            t.join(TimeUnit.MINUTES.toMillis(2));
            assertFalse(t.isAlive(), "a producer hangs");
        }
        producing.set(false);
        consumer.join(TimeUnit.MINUTES.toMillis(2));
        assertFalse(consumer.isAlive(), "the consumer hangs");
        assertNull(failure.get());
        for (Object o : takeAll(inbox)) { // what came after the consumer's last take
            seen.merge(o, 1, Integer::sum);
        }
        int entries = 0;
        int removals = 0;
        for (Map.Entry<Object, Integer> e : seen.entrySet()) {
            assertEquals(1, e.getValue(), "taken exactly once: " + e.getKey());
            if (e.getKey() instanceof DelayScheduler.Removal) {
                removals++;
            } else {
                entries++;
            }
        }
        assertEquals(producers * perProducer, entries, "every entry taken");
        assertEquals(producers * (perProducer / 8), removals, "every removal taken");
        assertEquals(producers * perProducer, inbox.offered());
        Set<Long> numbers = new HashSet<>();
        for (List<DelayedTask<Void>> mine : made) {
            for (int i = 0; i < mine.size(); i++) {
                assertTrue(numbers.add(mine.get(i).seq), "sequence numbers are unique");
                assertTrue(seen.containsKey(mine.get(i)));
                assertNull(mine.get(i).inboxNext);
                if (i > 0) {
                    assertTrue(mine.get(i - 1).seq < mine.get(i).seq, "one thread's numbers increase");
                }
            }
        }
    }
}
