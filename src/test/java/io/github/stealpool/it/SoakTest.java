package io.github.stealpool.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.stealpool.Task;
import io.github.stealpool.WorkStealingPool;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/**
 * A randomized mix of everything the pool offers, from many outside threads at once, for a
 * bounded time: {@code -Dstealpool.soak.seconds=N} (default 45) makes it longer. Every task must
 * run exactly once, every result must be right, failures must reach their caller once, and no
 * pool thread may be left after shutdown.
 */
class SoakTest {

    private static final long SECONDS = Long.getLong("stealpool.soak.seconds", 45);
    private static final int PRODUCERS = 6;
    private static final int WORKERS = 3; // more workers than CI's 2 cores: preemption in the middle of everything
    private static final String PREFIX = "soak";

    /** A task that must run exactly once: a second run is recorded as a failure. */
    private static final class Once implements Runnable {
        private final AtomicBoolean ran = new AtomicBoolean();
        private final LongAdder runs;
        private final AtomicReference<Throwable> failure;

        Once(LongAdder runs, AtomicReference<Throwable> failure) {
            this.runs = runs;
            this.failure = failure;
        }

        @Override
        public void run() {
            if (!ran.compareAndSet(false, true)) {
                failure.compareAndSet(null, new AssertionError("a task ran twice"));
            }
            runs.increment();
        }
    }

    private static final class Fib extends Task<Long> {
        private final int n;

        Fib(int n) {
            this.n = n;
        }

        @Override
        protected Long compute() {
            if (n < 2) {
                return (long) n;
            }
            Fib f1 = new Fib(n - 1);
            f1.fork();
            return new Fib(n - 2).compute() + f1.join();
        }
    }

    private static long fib(int n) {
        return n < 2 ? n : fib(n - 1) + fib(n - 2);
    }

    /** Counts of what the producers did, checked at the end. */
    private final LongAdder accepted = new LongAdder();
    private final LongAdder ran = new LongAdder();
    private final LongAdder operations = new LongAdder();
    private final LongAdder expectedFailures = new LongAdder();
    private final LongAdder reportedFailures = new LongAdder();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();

    @Test
    void aMinuteOfEverythingLosesNothingAndLeavesNoThread() throws Exception {
        // It runs for long without a word otherwise: say what it does, and for how long.
        System.out.println("soak: " + PRODUCERS + " outside threads mixing tasks, failing tasks, fork/join, joins,"
                + " scopes, loops, cancels and invokeAll on " + WORKERS + " workers for " + SECONDS
                + " s (-Dstealpool.soak.seconds=N to change)");
        long start = System.nanoTime();
        WorkStealingPool pool = WorkStealingPool.builder()
                .parallelism(WORKERS)
                .threadNamePrefix(PREFIX)
                .uncaughtExceptionHandler((t, e) -> {
                    if (e instanceof ExpectedFailure) {
                        reportedFailures.increment();
                    } else {
                        failure.compareAndSet(null, e);
                    }
                })
                .build();
        long deadline = start + TimeUnit.SECONDS.toNanos(SECONDS);
        List<Thread> producers = new ArrayList<>();
        for (int p = 0; p < PRODUCERS; p++) {
            Thread t = new Thread(() -> {
                try {
                    while (System.nanoTime() < deadline && failure.get() == null) {
                        oneOperation(pool);
                        operations.increment();
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "soak-producer-" + p);
            t.start();
            producers.add(t);
        }
        for (Thread t : producers) {
            t.join(TimeUnit.SECONDS.toMillis(SECONDS + 120));
            assertFalse(t.isAlive(), t.getName() + " hung; pool: " + pool);
        }
        pool.shutdown();
        assertTrue(pool.awaitTermination(2, TimeUnit.MINUTES), "did not terminate: " + pool);

        if (failure.get() != null) {
            throw new AssertionError("after " + operations.sum() + " operations", failure.get());
        }
        assertEquals(accepted.sum(), ran.sum(), "accepted tasks must all run, once");
        assertEquals(expectedFailures.sum(), reportedFailures.sum(), "each failure reported once");
        assertEquals(pool.stats().submittedTasks(), pool.stats().completedTasks(), pool.stats().toString());
        assertTrue(operations.sum() > 0);
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            assertFalse(e.getKey().getName().startsWith(PREFIX + "-worker"),
                    "left alive: " + e.getKey());
        }
        System.out.printf("soak: passed: %,d operations in %d s, %,d counted tasks each run once, %,d failures each"
                + " reported once, no worker left; %s%n", operations.sum(),
                TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start), ran.sum(), reportedFailures.sum(),
                pool.stats());
    }

    /** A failure a test task throws on purpose. */
    private static final class ExpectedFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ExpectedFailure() {
            super("expected", null, false, false);
        }
    }

    private void oneOperation(WorkStealingPool pool) throws Exception {
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        switch (rnd.nextInt(9)) {
            case 0: { // a burst of plain tasks
                int n = 1 + rnd.nextInt(500);
                for (int i = 0; i < n; i++) {
                    pool.execute(new Once(ran, failure));
                    accepted.increment();
                }
                break;
            }
            case 1: { // a task that throws, reported to the handler once
                expectedFailures.increment();
                pool.execute(() -> {
                    throw new ExpectedFailure();
                });
                break;
            }
            case 2: { // fork/join
                int n = 8 + rnd.nextInt(12);
                check(fib(n), pool.invoke(new Fib(n)), "fib " + n);
                break;
            }
            case 3: { // join from outside, nested inside
                long r = pool.join(() -> pool.join(() -> 1L, () -> 2L, Long::sum), () -> 3L, Long::sum);
                check(6, r, "join");
                break;
            }
            case 4: { // a scope spawning tasks that spawn tasks
                AtomicInteger count = new AtomicInteger();
                pool.scope(s -> {
                    for (int i = 0; i < 20; i++) {
                        s.spawn(() -> {
                            count.incrementAndGet();
                            pool.execute(new Once(ran, failure));
                        });
                        accepted.increment();
                    }
                });
                check(20, count.get(), "scope");
                break;
            }
            case 5: { // nested loops with a reduction inside
                int n = 1 + rnd.nextInt(200);
                long[] sums = new long[n];
                pool.range(0, n).forEach(i -> sums[i] = pool.range(0L, i + 1).reduceLong(0, k -> k, Long::sum));
                for (int i = 0; i < n; i++) {
                    check((long) i * (i + 1) / 2, sums[i], "loop row " + i);
                }
                break;
            }
            case 6: { // submit and cancel: a task cancelled in time never runs
                AtomicBoolean started = new AtomicBoolean();
                Future<?> f = pool.submit(() -> started.set(true));
                boolean cancelled = f.cancel(rnd.nextBoolean());
                if (cancelled) {
                    assertTrueOrRecord(f.isCancelled(), "cancelled future says so");
                } else {
                    f.get();
                    assertTrueOrRecord(started.get(), "an uncancelled task ran");
                }
                break;
            }
            case 7: { // invokeAll with one failing task
                List<Callable<Integer>> calls = new ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    int k = i;
                    calls.add(() -> {
                        if (k == 3) {
                            throw new ExpectedFailure();
                        }
                        return k;
                    });
                }
                List<Future<Integer>> fs = pool.invokeAll(calls);
                for (int i = 0; i < 10; i++) {
                    try {
                        check(i, fs.get(i).get(), "invokeAll " + i);
                        assertTrueOrRecord(i != 3, "task 3 should have failed");
                    } catch (ExecutionException e) {
                        assertTrueOrRecord(i == 3 && e.getCause() instanceof ExpectedFailure, "only task 3 fails");
                    }
                }
                break;
            }
            default: { // a task that submits and waits inside the pool
                Future<Integer> f = pool.submit(() -> pool.submit(() -> 41).get() + 1);
                check(42, f.get(), "nested submit");
                break;
            }
        }
    }

    private void check(long expected, long actual, String what) {
        if (expected != actual) {
            failure.compareAndSet(null, new AssertionError(what + ": expected " + expected + " but was " + actual));
        }
    }

    private void assertTrueOrRecord(boolean condition, String what) {
        if (!condition) {
            failure.compareAndSet(null, new AssertionError(what));
        }
    }
}
