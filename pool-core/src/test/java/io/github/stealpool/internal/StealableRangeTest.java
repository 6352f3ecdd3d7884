package io.github.stealpool.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class StealableRangeTest {

    @Test
    void ownerTakesFromTheLowEndThievesTakeTheUpperHalf() {
        StealableRange r = new StealableRange(100, 10);
        long c = r.take(3);
        assertEquals(100, r.start(c));
        assertEquals(3, StealableRange.count(c));
        long s = r.steal(); // 7 left: the thief takes the upper 4
        assertEquals(106, r.start(s));
        assertEquals(4, StealableRange.count(s));
        assertEquals(3, r.remaining());
        c = r.take(100);
        assertEquals(103, r.start(c));
        assertEquals(3, StealableRange.count(c));
        assertEquals(-1, r.take(1));
        assertEquals(-1, r.steal());
    }

    @Test
    void aThiefMayTakeTheLastIndex() {
        StealableRange r = new StealableRange(5, 1);
        long s = r.steal();
        assertEquals(5, r.start(s));
        assertEquals(1, StealableRange.count(s));
        assertEquals(-1, r.take(1));
    }

    @Test
    void rejectsBadLengths() {
        assertThrows(IllegalArgumentException.class, () -> new StealableRange(0, -1));
        assertThrows(IllegalArgumentException.class, () -> new StealableRange(0, StealableRange.MAX_LENGTH + 1));
        assertEquals(StealableRange.MAX_LENGTH, new StealableRange(Long.MAX_VALUE - StealableRange.MAX_LENGTH,
                StealableRange.MAX_LENGTH).remaining());
    }

    /**
     * One owner takes growing batches; thieves keep splitting every live range (also ranges made
     * of earlier steals, which they then drain themselves): every index is taken exactly once.
     */
    @ParameterizedTest(name = "thieves={0}, length={1}")
    @CsvSource({"1, 1000", "3, 1000", "3, 200000", "6, 200000"})
    void everyIndexIsTakenExactlyOnce(int thieves, int length) throws Exception {
        for (int round = 0; round < 20; round++) {
            StealableRange root = new StealableRange(0, length);
            ConcurrentLinkedQueue<StealableRange> live = new ConcurrentLinkedQueue<>();
            live.add(root);
            AtomicIntegerArray taken = new AtomicIntegerArray(length);
            AtomicBoolean ownerDone = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> threads = new ArrayList<>();
            threads.add(new Thread(() -> {
                try {
                    start.await();
                    drain(root, taken);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                } finally {
                    ownerDone.set(true);
                }
            }, "owner"));
            for (int t = 0; t < thieves; t++) {
                threads.add(new Thread(() -> {
                    try {
                        start.await();
                        while (!ownerDone.get() || live.stream().anyMatch(x -> x.remaining() > 0)) {
                            for (StealableRange victim : live) {
                                long c = victim.steal();
                                if (c != -1) {
                                    StealableRange mine = new StealableRange(victim.start(c), StealableRange.count(c));
                                    live.add(mine);
                                    drain(mine, taken);
                                }
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }, "thief-" + t));
            }
            threads.forEach(Thread::start);
            start.countDown();
            for (Thread t : threads) {
                t.join(TimeUnit.MINUTES.toMillis(2));
                assertFalse(t.isAlive(), t.getName() + " hung");
            }
            if (failure.get() != null) {
                throw new AssertionError("a thread failed", failure.get());
            }
            for (int i = 0; i < length; i++) {
                assertEquals(1, taken.get(i), "round " + round + ": index " + i);
            }
        }
    }

    private static void drain(StealableRange r, AtomicIntegerArray taken) {
        long batch = 1;
        for (long c; (c = r.take(batch)) != -1; batch = Math.min(64, batch * 2)) {
            long lo = r.start(c);
            for (long i = lo; i < lo + StealableRange.count(c); i++) {
                taken.incrementAndGet((int) i);
            }
        }
    }
}
