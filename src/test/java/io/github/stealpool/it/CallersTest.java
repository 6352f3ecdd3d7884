package io.github.stealpool.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.stealpool.Task;
import io.github.stealpool.WorkStealingPool;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Callers the README promises work: {@code CompletableFuture} on the pool, clean-up through
 * {@code terminationFuture()}, and virtual threads (JDK 21+, found by reflection since the
 * project compiles for 17) using every blocking entry point at once.
 */
class CallersTest {

    @Test
    void completableFuturesRunOnThePool() {
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).threadNamePrefix("cf").build()) {
            CompletableFuture<String> where = CompletableFuture
                    .supplyAsync(() -> Thread.currentThread().getName(), pool)
                    .thenApplyAsync(first -> first + "|" + Thread.currentThread().getName(), pool);
            String[] names = where.join().split("\\|");
            assertTrue(names[0].startsWith("cf-worker-"), names[0]);
            assertTrue(names[1].startsWith("cf-worker-"), names[1]);
        }
    }

    @Test
    void terminationFutureCompletesAfterTheLastWorkerEnds() throws Exception {
        WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build();
        AtomicReference<Boolean> terminatedWhenRun = new AtomicReference<>();
        CompletableFuture<Void> cleanedUp = new CompletableFuture<>();
        pool.terminationFuture().thenRun(() -> {
            terminatedWhenRun.set(pool.isTerminated());
            cleanedUp.complete(null);
        });
        pool.submit(() -> 42).get();
        assertFalse(cleanedUp.isDone(), "completed while the pool runs");
        pool.shutdown();
        cleanedUp.get(30, TimeUnit.SECONDS); // a hang detector, not a timing
        assertEquals(Boolean.TRUE, terminatedWhenRun.get());
    }

    @Test
    void virtualThreadsUseEveryBlockingEntryPoint() throws Exception {
        ExecutorService virtualThreads = virtualThreadPerTaskExecutor();
        assumeTrue(virtualThreads != null, "this JDK has no virtual threads (JDK 21+)");
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build()) {
            List<Future<Long>> callers = new ArrayList<>();
            for (int c = 0; c < 64; c++) {
                final long k = c;
                callers.add(virtualThreads.submit(() -> {
                    long viaSubmit = pool.submit(() -> k).get();
                    long viaTask = pool.invoke(new Sum(0, 1000 + k));
                    long viaJoin = pool.join(() -> k, () -> 1L, Long::sum);
                    long viaRange = pool.range(0L, 1000 + k).reduceLong(0, i -> i, Long::sum);
                    return viaSubmit + viaTask + viaJoin + viaRange;
                }));
            }
            for (int c = 0; c < callers.size(); c++) {
                long n = 1000 + c;
                long sum = n * (n - 1) / 2;
                assertEquals(c + sum + (c + 1) + sum, callers.get(c).get(60, TimeUnit.SECONDS), "caller " + c);
            }
        } finally {
            virtualThreads.shutdown();
        }
    }

    /** {@code Executors.newVirtualThreadPerTaskExecutor()} where the JDK has it, else null. */
    private static ExecutorService virtualThreadPerTaskExecutor() throws Exception {
        Method m;
        try {
            m = Executors.class.getMethod("newVirtualThreadPerTaskExecutor");
        } catch (NoSuchMethodException e) {
            return null;
        }
        return (ExecutorService) m.invoke(null);
    }

    /** Sum of {@code [lo, hi)} by halving. */
    static final class Sum extends Task<Long> {
        private final long lo;
        private final long hi;

        Sum(long lo, long hi) {
            this.lo = lo;
            this.hi = hi;
        }

        @Override
        protected Long compute() {
            if (hi - lo <= 64) {
                long s = 0;
                for (long i = lo; i < hi; i++) {
                    s += i;
                }
                return s;
            }
            long mid = (lo + hi) >>> 1;
            Sum left = new Sum(lo, mid);
            left.fork();
            return new Sum(mid, hi).compute() + left.join();
        }
    }
}
