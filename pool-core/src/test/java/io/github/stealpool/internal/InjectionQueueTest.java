package io.github.stealpool.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class InjectionQueueTest {

    /** A task that knows its number. */
    private static final class Numbered implements Runnable {
        final int id;

        Numbered(int id) {
            this.id = id;
        }

        @Override
        public void run() {
        }
    }

    @Test
    void isFifoAcrossTheOverflow() {
        InjectionQueue q = new InjectionQueue(4);
        assertTrue(q.isEmpty());
        assertNull(q.poll());
        List<Numbered> in = new ArrayList<>();
        for (int i = 0; i < 20; i++) { // 4 in the fast queue, 16 in the overflow
            Numbered t = new Numbered(i);
            in.add(t);
            q.offer(t);
        }
        assertEquals(20, q.size());
        assertFalse(q.isEmpty());
        for (int i = 0; i < 2; i++) {
            assertSame(in.get(i), q.poll());
        }
        // The fast queue has room again, but the overflow is not empty: new tasks go behind it.
        Numbered late = new Numbered(20);
        q.offer(late);
        for (int i = 2; i < 20; i++) {
            assertSame(in.get(i), q.poll());
        }
        assertSame(late, q.poll());
        assertNull(q.poll());
        assertTrue(q.isEmpty());
        // Back to the fast path.
        q.offer(late);
        assertEquals(1, q.size());
    }

    @Test
    void drainTakesEverything() {
        InjectionQueue q = new InjectionQueue(2);
        for (int i = 0; i < 7; i++) {
            q.offer(new Numbered(i));
        }
        List<Runnable> sink = new ArrayList<>();
        assertEquals(7, q.drainTo(sink));
        assertEquals(7, sink.size());
        assertTrue(q.isEmpty());
    }

    /** Many producers, many consumers, tiny or default fast path: each task polled once. */
    @ParameterizedTest(name = "fastCapacity={0}")
    @ValueSource(ints = {2, 64, InjectionQueue.FAST_CAPACITY})
    void everyTaskIsPolledExactlyOnce(int fastCapacity) throws Exception {
        final int producers = 4;
        final int consumers = 4;
        final int perProducer = 100_000;
        final int total = producers * perProducer;
        InjectionQueue q = new InjectionQueue(fastCapacity);
        AtomicIntegerArray seen = new AtomicIntegerArray(total);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch start = new CountDownLatch(1);
        CountDownLatch producersDone = new CountDownLatch(producers);
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            int base = p * perProducer;
            threads.add(new Thread(() -> {
                try {
                    start.await();
                    for (int i = 0; i < perProducer; i++) {
                        q.offer(new Numbered(base + i));
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                } finally {
                    producersDone.countDown();
                }
            }, "producer-" + p));
        }
        for (int c = 0; c < consumers; c++) {
            threads.add(new Thread(() -> {
                try {
                    start.await();
                    while (producersDone.getCount() > 0 || !q.isEmpty()) {
                        Runnable t = q.poll();
                        if (t != null) {
                            seen.incrementAndGet(((Numbered) t).id);
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "consumer-" + c));
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
        for (int i = 0; i < total; i++) {
            assertEquals(1, seen.get(i), "task " + i);
        }
    }
}
