package io.github.stealpool.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.stealpool.WorkStealingPool;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The same user code, written against {@link ExecutorService}, behaves the same on
 * {@code Executors.newFixedThreadPool} and on our pool: the one-line migration the README
 * promises.
 */
class DropInReplacementTest {

    private static final long HANG = 30;

    static Stream<Arguments> executors() {
        Supplier<ExecutorService> fixed = () -> Executors.newFixedThreadPool(3);
        Supplier<ExecutorService> ours = () -> WorkStealingPool.builder().parallelism(3).build();
        return Stream.of(Arguments.of("newFixedThreadPool", fixed), Arguments.of("WorkStealingPool", ours));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("executors")
    void aRequestServiceRunsTheSameOnBoth(String name, Supplier<ExecutorService> make) throws Exception {
        ExecutorService pool = make.get();
        try {
            List<Callable<String>> requests = new ArrayList<>();
            for (int i = 0; i < 500; i++) {
                int n = i;
                requests.add(() -> "response-" + n);
            }
            List<Future<String>> responses = pool.invokeAll(requests);
            for (int i = 0; i < 500; i++) {
                assertEquals("response-" + i, responses.get(i).get());
            }
            assertEquals("fast", pool.invokeAny(List.of(() -> "fast")));
            Future<Integer> failing = pool.submit(() -> Integer.parseInt("not a number"));
            ExecutionException e = assertThrows(ExecutionException.class, () -> failing.get(HANG, TimeUnit.SECONDS));
            assertSame(NumberFormatException.class, e.getCause().getClass());
            assertEquals("async", CompletableFuture.supplyAsync(() -> "async", pool).get(HANG, TimeUnit.SECONDS));
        } finally {
            pool.shutdown();
            assertTrue(pool.awaitTermination(HANG, TimeUnit.SECONDS));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("executors")
    void shutdownBehavesTheSameOnBoth(String name, Supplier<ExecutorService> make) throws Exception {
        ExecutorService pool = make.get();
        CountDownLatch gate = new CountDownLatch(1);
        CountDownLatch busy = new CountDownLatch(3);
        for (int i = 0; i < 3; i++) {
            pool.execute(() -> {
                busy.countDown();
                try {
                    gate.await(HANG, TimeUnit.SECONDS);
                } catch (InterruptedException ignored) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        assertTrue(busy.await(HANG, TimeUnit.SECONDS));
        AtomicInteger ran = new AtomicInteger();
        for (int i = 0; i < 10; i++) {
            pool.execute(ran::incrementAndGet);
        }
        pool.shutdown();
        assertTrue(pool.isShutdown());
        assertThrows(RejectedExecutionException.class, () -> pool.execute(ran::incrementAndGet));
        gate.countDown();
        assertTrue(pool.awaitTermination(HANG, TimeUnit.SECONDS));
        assertTrue(pool.isTerminated());
        assertEquals(10, ran.get());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("executors")
    void shutdownNowAccountsForEveryTaskOnBoth(String name, Supplier<ExecutorService> make) throws Exception {
        ExecutorService pool = make.get();
        CountDownLatch busy = new CountDownLatch(3);
        CountDownLatch interrupted = new CountDownLatch(3);
        for (int i = 0; i < 3; i++) {
            pool.execute(() -> {
                busy.countDown();
                try {
                    Thread.sleep(TimeUnit.SECONDS.toMillis(HANG * 2));
                } catch (InterruptedException e) {
                    interrupted.countDown();
                }
            });
        }
        assertTrue(busy.await(HANG, TimeUnit.SECONDS));
        AtomicInteger ran = new AtomicInteger();
        for (int i = 0; i < 10; i++) {
            pool.execute(ran::incrementAndGet);
        }
        List<Runnable> never = pool.shutdownNow();
        assertTrue(interrupted.await(HANG, TimeUnit.SECONDS));
        assertTrue(pool.awaitTermination(HANG, TimeUnit.SECONDS));
        assertEquals(10, never.size() + ran.get());
        assertFalse(never.isEmpty());
    }
}
