package io.github.stealpool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BuilderTest {

    @ParameterizedTest
    @ValueSource(ints = {0, -1, Integer.MIN_VALUE, WorkStealingPool.MAX_PARALLELISM + 1, Integer.MAX_VALUE})
    void rejectsParallelismOutOfRange(int parallelism) {
        WorkStealingPool.Builder b = WorkStealingPool.builder();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> b.parallelism(parallelism));
        assertTrue(e.getMessage().contains("parallelism"), e.getMessage());
        assertTrue(e.getMessage().contains(String.valueOf(parallelism)), e.getMessage());
    }

    @Test
    void aRejectedSettingLeavesTheBuilderAsItWas() throws Exception {
        WorkStealingPool.Builder b = WorkStealingPool.builder().parallelism(3);
        assertThrows(IllegalArgumentException.class, () -> b.parallelism(0));
        try (WorkStealingPool pool = b.build()) {
            assertEquals(3, pool.parallelism());
        }
    }

    @Test
    void rejectsNullsNamingTheOption() {
        WorkStealingPool.Builder b = WorkStealingPool.builder();
        assertEquals("threadFactory",
                assertThrows(NullPointerException.class, () -> b.threadFactory(null)).getMessage());
        assertEquals("uncaughtExceptionHandler",
                assertThrows(NullPointerException.class, () -> b.uncaughtExceptionHandler(null)).getMessage());
        assertEquals("threadNamePrefix",
                assertThrows(NullPointerException.class, () -> b.threadNamePrefix(null)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> b.threadNamePrefix(""));
    }

    @Test
    void theDefaultsFollowTheMachine() throws Exception {
        try (WorkStealingPool pool = WorkStealingPool.create()) {
            assertEquals(Runtime.getRuntime().availableProcessors(), pool.parallelism());
            assertEquals(42, pool.submit(() -> 42).get(30, TimeUnit.SECONDS));
        }
    }

    @Test
    void namesAndDaemonApplyToTheWorkerThreads() throws Exception {
        try (WorkStealingPool pool = WorkStealingPool.builder()
                .parallelism(2).threadNamePrefix("orders").daemon(true).build()) {
            Thread t = pool.submit(Thread::currentThread).get(30, TimeUnit.SECONDS);
            assertTrue(t.getName().startsWith("orders-worker-"), t.getName());
            assertTrue(t.isDaemon());
        }
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).build()) {
            Thread t = pool.submit(Thread::currentThread).get(30, TimeUnit.SECONDS);
            assertFalse(t.isDaemon(), "worker threads are not daemons unless asked");
        }
    }

    @Test
    void usesTheThreadFactory() throws Exception {
        RecordingThreadFactory factory = new RecordingThreadFactory();
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(3).threadFactory(factory).build()) {
            assertEquals(3, factory.threads.size());
            Thread t = pool.submit(Thread::currentThread).get(30, TimeUnit.SECONDS);
            assertTrue(factory.threads.contains(t));
            // Tasks submitted from a factory-made worker still go through its own deque.
            CompletableFuture<Thread> inner = new CompletableFuture<>();
            pool.execute(() -> pool.execute(() -> inner.complete(Thread.currentThread())));
            assertTrue(factory.threads.contains(inner.get(30, TimeUnit.SECONDS)));
        }
        assertTrue(factory.allEnded());
    }

    @Test
    void threadFactoryAndDefaultThreadSettingsAreExclusive() {
        WorkStealingPool.Builder b = WorkStealingPool.builder()
                .threadFactory(new RecordingThreadFactory()).daemon(true);
        IllegalStateException e = assertThrows(IllegalStateException.class, b::build);
        assertTrue(e.getMessage().contains("threadFactory"), e.getMessage());
    }

    @Test
    void aFactoryThatReturnsNullFailsTheBuildAndStartsNothing() throws Exception {
        List<Thread> made = new ArrayList<>();
        AtomicInteger calls = new AtomicInteger();
        WorkStealingPool.Builder b = WorkStealingPool.builder().parallelism(4).threadFactory(r -> {
            if (calls.incrementAndGet() == 3) {
                return null;
            }
            Thread t = new Thread(r);
            made.add(t);
            return t;
        });
        IllegalStateException e = assertThrows(IllegalStateException.class, b::build);
        assertTrue(e.getMessage().contains("threadFactory returned null"), e.getMessage());
        assertEquals(2, made.size());
        for (Thread t : made) {
            assertSame(Thread.State.NEW, t.getState(), "no thread may be started by a failed build");
        }
    }

    @Test
    void aFactoryThatThrowsFailsTheBuildWithTheCause() {
        RuntimeException boom = new RuntimeException("no threads today");
        WorkStealingPool.Builder b = WorkStealingPool.builder().parallelism(2).threadFactory(r -> {
            throw boom;
        });
        IllegalStateException e = assertThrows(IllegalStateException.class, b::build);
        assertSame(boom, e.getCause());
    }

    @Test
    void aFactoryThatReturnsAStartedThreadStopsTheOthers() throws Exception {
        List<Thread> made = new ArrayList<>();
        WorkStealingPool.Builder b = WorkStealingPool.builder().parallelism(3).threadFactory(r -> {
            Thread t = new Thread(r);
            made.add(t);
            if (made.size() == 3) {
                t = new Thread(() -> { });
                t.start(); // not ours to start, and not running the worker
                made.add(t);
            }
            return t;
        });
        IllegalStateException e = assertThrows(IllegalStateException.class, b::build);
        assertNotNull(e.getCause());
        for (Thread t : made) {
            t.join(TimeUnit.SECONDS.toMillis(30));
            assertFalse(t.isAlive(), "a worker of a failed build kept running");
        }
    }
}
