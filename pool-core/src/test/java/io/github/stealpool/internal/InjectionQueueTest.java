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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
    void roundsStripesToAPowerOfTwo() {
        assertEquals(1, new InjectionQueue(1).stripes());
        assertEquals(4, new InjectionQueue(3).stripes());
        assertEquals(4, new InjectionQueue(4).stripes());
        assertEquals(InjectionQueue.MAX_STRIPES, new InjectionQueue(1000).stripes());
        assertThrows(IllegalArgumentException.class, () -> new InjectionQueue(0));
    }

    @Test
    void oneSubmittersTasksComeOutInOrderThroughTheBatchAndTheDeque() {
        InjectionQueue q = new InjectionQueue(4);
        ChaseLevDeque<Runnable> deque = new ChaseLevDeque<>();
        assertTrue(q.isEmpty());
        assertNull(q.poll(0, deque));
        int n = 3 * InjectionQueue.BATCH + 5;
        for (int i = 0; i < n; i++) {
            q.offer(new Numbered(i));
        }
        assertEquals(n, q.size());
        assertFalse(q.isEmpty());
        // A worker that pops its own deque before polling again runs them in submission order.
        int expected = 0;
        for (int cursor = 0; expected < n; cursor++) {
            Runnable t = deque.pop();
            if (t == null) {
                t = q.poll(cursor, deque);
                assertEquals(Math.min(InjectionQueue.BATCH, n - expected) - 1, deque.size());
            }
            assertEquals(expected++, ((Numbered) t).id);
        }
        assertNull(q.poll(0, deque));
        assertTrue(q.isEmpty());
    }

    @Test
    void thievesTakeTheNewestOfABatch() {
        InjectionQueue q = new InjectionQueue(1);
        ChaseLevDeque<Runnable> deque = new ChaseLevDeque<>();
        for (int i = 0; i < 10; i++) {
            q.offer(new Numbered(i));
        }
        assertEquals(0, ((Numbered) q.poll(0, deque)).id);
        assertEquals(9, ((Numbered) deque.steal()).id);
        assertEquals(1, ((Numbered) deque.pop()).id);
    }

    @Test
    void drainTakesEverything() {
        InjectionQueue q = new InjectionQueue(8);
        for (int i = 0; i < 7 * InjectionQueue.CHUNK; i++) {
            q.offer(new Numbered(i));
        }
        List<Runnable> sink = new ArrayList<>();
        assertEquals(7 * InjectionQueue.CHUNK, q.drainTo(sink));
        assertEquals(7 * InjectionQueue.CHUNK, sink.size());
        assertTrue(q.isEmpty());
        assertEquals(0, q.size());
    }

    /**
     * Many producers, many consumers that run part of each batch and let others steal the rest:
     * each task is taken exactly once.
     */
    @ParameterizedTest(name = "stripes={0}")
    @ValueSource(ints = {1, 2, 8})
    void everyTaskIsTakenExactlyOnce(int stripes) throws Exception {
        final int producers = 4;
        final int consumers = 4;
        final int perProducer = 100_000;
        final int total = producers * perProducer;
        InjectionQueue q = new InjectionQueue(stripes);
        List<ChaseLevDeque<Runnable>> deques = new ArrayList<>();
        for (int c = 0; c < consumers; c++) {
            deques.add(new ChaseLevDeque<>());
        }
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
            ChaseLevDeque<Runnable> own = deques.get(c);
            ChaseLevDeque<Runnable> victim = deques.get((c + 1) % consumers);
            int id = c;
            threads.add(new Thread(() -> {
                try {
                    start.await();
                    int cursor = id;
                    while (producersDone.getCount() > 0 || !q.isEmpty() || !own.isEmpty()) {
                        Runnable t = own.pop();
                        if (t == null) {
                            t = q.poll(cursor++, own);
                        }
                        if (t == null) {
                            t = victim.steal();
                        }
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

    @Test
    void aSubmittersTasksStayInOneStripe() {
        InjectionQueue q = new InjectionQueue(8);
        ChaseLevDeque<Runnable> deque = new ChaseLevDeque<>();
        Runnable only = new Numbered(1);
        // Whatever the cursor, the one stripe holding the task is found.
        for (int cursor = 0; cursor < 8; cursor++) {
            q.offer(only);
            assertSame(only, q.poll(cursor, deque));
            assertTrue(deque.isEmpty());
        }
        assertTrue(q.isEmpty());
    }
}
