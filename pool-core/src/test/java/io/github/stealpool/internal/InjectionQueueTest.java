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

    private static final long HANG = 30; // seconds: a hang detector, not a speed claim

    private static void await(CountDownLatch latch, String what) {
        try {
            if (!latch.await(HANG, TimeUnit.SECONDS)) {
                throw new AssertionError("hung waiting for " + what);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted waiting for " + what, e);
        }
    }

    private static void join(Thread t) throws InterruptedException {
        t.join(TimeUnit.SECONDS.toMillis(HANG));
        assertFalse(t.isAlive(), t.getName() + " hung");
    }

    /**
     * Issue 35, item 6: a stripe whose producer links a new chunk. JCTools' offer CASes the
     * producer index to an odd value, links the chunk, then publishes the next even index; in
     * between, the stripe is not empty (the odd index counts) but {@code poll} answers null. The
     * producer is held there through {@code fill}'s supplier, which JCTools calls inside that
     * window. {@code drainTo} (shutdownNow's sweep) must come back with the task in transit too:
     * the submitter's re-check of the run state may already have read RUNNING, so nobody else
     * hands it back. Before the fix drainTo returned CHUNK - 1 tasks and left the last one
     * behind.
     */
    @Test
    void drainWaitsForATaskInTransit() throws Exception {
        InjectionQueue q = new InjectionQueue(1);
        CountDownLatch drainerWaitsOrReturned = new CountDownLatch(1);
        q.transitProbe = drainerWaitsOrReturned::countDown;
        for (int i = 0; i < InjectionQueue.CHUNK - 1; i++) { // the first chunk's last free slot
            q.offer(new Numbered(i));
        }
        Runnable last = new Numbered(InjectionQueue.CHUNK - 1);
        CountDownLatch linking = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread producer = new Thread(() -> q.stripe(0).queue.fill(() -> {
            linking.countDown(); // the producer index is odd from here until fill returns
            await(release, "release");
            return last;
        }, 1), "producer");
        producer.start();
        await(linking, "the producer to start linking");
        assertEquals(1, q.stripe(0).queue.lvProducerIndex() & 1, "a link in progress");
        assertFalse(q.isEmpty(), "a task in transit counts");

        List<Runnable> sink = java.util.Collections.synchronizedList(new ArrayList<>());
        Thread drainer = new Thread(() -> {
            try {
                q.drainTo(sink);
            } finally {
                drainerWaitsOrReturned.countDown();
            }
        }, "drainer");
        drainer.start();
        await(drainerWaitsOrReturned, "the drainer to wait or return");
        release.countDown();
        join(producer);
        join(drainer);

        assertEquals(InjectionQueue.CHUNK, sink.size(), "every task, the one in transit too");
        assertSame(last, sink.get(InjectionQueue.CHUNK - 1));
        assertTrue(q.isEmpty());
    }

    /**
     * The hazard only JCTools can fix, reproduced: an error thrown inside its chunk link (here by
     * {@code fill}'s supplier, called in that window; in life a stack overflow) leaves the
     * producer index odd for good, so every later offer to the stripe would spin. The pool's
     * own sweep must still return: the stripe is marked as {@code offer} marks it when its call
     * into JCTools throws. If a JCTools release restores the index, the first assertion fails:
     * then the mark and this paragraph of InjectionQueue's header can go.
     */
    @Test
    void anErrorInsideJctoolsChunkLinkWedgesTheStripeAndTheSweepStillReturns() {
        InjectionQueue q = new InjectionQueue(1);
        for (int i = 0; i < InjectionQueue.CHUNK - 1; i++) { // the first chunk's last free slot
            q.offer(new Numbered(i));
        }
        StackOverflowError inLink = new StackOverflowError("thrown inside the chunk link");
        assertThrows(StackOverflowError.class, () -> q.stripe(0).queue.fill(() -> {
            throw inLink;
        }, 1));
        assertEquals(1, q.stripe(0).queue.lvProducerIndex() & 1, "JCTools left the index odd");
        q.stripe(0).offerFailed = true; // what InjectionQueue.offer's catch does
        List<Runnable> sink = new ArrayList<>();
        assertEquals(InjectionQueue.CHUNK - 1, q.drainTo(sink)); // returns, with every task
    }

    /**
     * Issue 35, item 9: a batch in transit from a stripe to a worker's deque. The deque here
     * is full (a small limit, through the real growth path), so {@code pushAll} throws after
     * the batch was polled. Every task must still be somewhere: pushed, or back where the next
     * taker and the sweeps find it. Before the fix the batch was cleared from the scratch
     * array and lost.
     */
    @ParameterizedTest(name = "fifo={0}")
    @ValueSource(booleans = {false, true})
    void aBatchThatCannotBePushedIsNotLost(boolean fifo) {
        InjectionQueue q = new InjectionQueue(1);
        int n = 10;
        for (int i = 0; i < n; i++) {
            q.offer(new Numbered(i));
        }
        ChaseLevDeque<Runnable> full = new ChaseLevDeque<>(2, 2);
        full.push(new Numbered(-1));
        full.push(new Numbered(-2));
        assertThrows(IllegalStateException.class, () -> q.poll(0, full, fifo));
        assertEquals(2, full.size(), "nothing was added to the full deque");
        assertFalse(q.isEmpty(), "the batch is back in the stripe");
        assertEquals(n, q.size());

        // The next taker gets them all, oldest first, in either mode.
        ChaseLevDeque<Runnable> deque = new ChaseLevDeque<>();
        assertEquals(0, ((Numbered) q.poll(0, deque, !fifo)).id);
        assertEquals(n - 1, deque.size());
        for (int i = 1; i < n; i++) {
            assertEquals(i, ((Numbered) (fifo ? deque.pop() : deque.poll())).id);
        }
        assertTrue(q.isEmpty());
    }

    /** As above, then the sweep: drainTo hands back the batch a failed transfer left behind. */
    @Test
    void drainFindsABatchThatCannotBePushed() {
        InjectionQueue q = new InjectionQueue(1);
        int n = 10;
        for (int i = 0; i < n; i++) {
            q.offer(new Numbered(i));
        }
        ChaseLevDeque<Runnable> full = new ChaseLevDeque<>(2, 2);
        full.push(new Numbered(-1));
        full.push(new Numbered(-2));
        assertThrows(IllegalStateException.class, () -> q.poll(0, full));
        q.offer(new Numbered(n));
        List<Runnable> sink = new ArrayList<>();
        assertEquals(n + 1, q.drainTo(sink));
        for (int i = 0; i <= n; i++) {
            assertEquals(i, ((Numbered) sink.get(i)).id);
        }
        assertTrue(q.isEmpty());
        assertEquals(0, q.size());
    }
}
