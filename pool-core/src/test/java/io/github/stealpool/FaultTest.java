package io.github.stealpool;

import static io.github.stealpool.Rethrown.assertRethrown;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/**
 * Faults while the pool works: worker threads interrupted from outside all the time, failures of
 * every kind in every way a task can run. The pool keeps serving, loses nothing it accepted, and
 * reports each failure once, on the same worker threads.
 */
class FaultTest {

    private static final long HANG = 60;

    private static int recurse(int depth) {
        return recurse(depth + 1) + 1;
    }

    @Test
    void interruptsFromOutsideLoseNothingAndKillNoWorker() throws Exception {
        RecordingThreadFactory threads = new RecordingThreadFactory();
        LongAdder reported = new LongAdder();
        AtomicReference<Throwable> unexpected = new AtomicReference<>();
        WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).threadFactory(threads)
                .uncaughtExceptionHandler((t, e) -> {
                    if ("planned".equals(e.getMessage())) {
                        reported.increment();
                    } else {
                        unexpected.compareAndSet(null, e);
                    }
                }).build();
        AtomicBoolean stop = new AtomicBoolean();
        Thread interrupter = new Thread(() -> {
            while (!stop.get()) {
                for (Thread t : threads.threads) {
                    t.interrupt();
                }
                Thread.onSpinWait();
            }
        });
        interrupter.start();
        try {
            int rounds = 200;
            int perRound = 500;
            AtomicIntegerArray runs = new AtomicIntegerArray(rounds * perRound);
            long failures = 0;
            for (int r = 0; r < rounds; r++) {
                CountDownLatch done = new CountDownLatch(perRound);
                for (int i = 0; i < perRound; i++) {
                    int id = r * perRound + i;
                    pool.execute(() -> {
                        runs.incrementAndGet(id);
                        done.countDown();
                    });
                }
                pool.execute(() -> {
                    throw new IllegalStateException("planned");
                });
                failures++;
                assertEquals(6765L, pool.invoke(new ForkJoinTest.Fib(20)));
                assertEquals(55L, (long) pool.join(() -> 21L, () -> 34L, Long::sum));
                assertEquals(4950L, pool.range(0L, 100L).reduceLong(0, i -> i, Long::sum));
                assertTrue(done.await(HANG, TimeUnit.SECONDS), pool::toString);
            }
            stop.set(true);
            interrupter.join();
            for (int i = 0; i < runs.length(); i++) {
                assertEquals(1, runs.get(i), "task " + i);
            }
            long expected = failures;
            org.awaitility.Awaitility.await().atMost(HANG, TimeUnit.SECONDS)
                    .until(() -> reported.sum() == expected);
            assertNull(unexpected.get());
            assertEquals(2, threads.threads.size(), "no worker died and was replaced");
        } finally {
            stop.set(true);
            pool.shutdown();
            assertTrue(pool.awaitTermination(HANG, TimeUnit.SECONDS));
        }
    }

    @Test
    void failuresInsideForkJoinAndLoopsReachTheCallerOnceAndThePoolServesOn() throws Exception {
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build()) {
            Task<Integer> overflow = new Task<>() {
                @Override
                protected Integer compute() {
                    return recurse(0); // a real StackOverflowError, on a pool thread's stack
                }
            };
            assertInstanceOf(StackOverflowError.class, assertThrows(StackOverflowError.class,
                    () -> pool.invoke(overflow)));
            OutOfMemoryError oom = new OutOfMemoryError("thrown, not real");
            assertRethrown(oom, assertThrows(OutOfMemoryError.class, () -> pool.join(() -> {
                throw oom;
            }, () -> 1, (a, b) -> 1)));
            AssertionError error = new AssertionError("an Error");
            assertRethrown(error, assertThrows(AssertionError.class,
                    () -> pool.range(0, 1000).forEach(i -> {
                        if (i == 777) {
                            throw error;
                        }
                    })));
            RuntimeException runtime = new IllegalStateException("runtime");
            Future<Object> f = pool.submit(() -> {
                throw runtime;
            });
            ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(HANG, TimeUnit.SECONDS));
            assertEquals(runtime, e.getCause());
            // Still serving, on the same two workers.
            assertEquals(832040L, pool.invoke(new ForkJoinTest.Fib(30)));
            assertEquals(2, pool.stats().poolSize());
        }
    }
}
