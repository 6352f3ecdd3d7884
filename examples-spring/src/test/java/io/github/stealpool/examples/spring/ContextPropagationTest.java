package io.github.stealpool.examples.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.stealpool.SaturationPolicy;
import io.github.stealpool.Task;
import io.github.stealpool.WorkStealingPool;
import io.micrometer.context.ContextRegistry;
import io.micrometer.context.ContextSnapshot;
import io.micrometer.context.ContextSnapshotFactory;
import io.micrometer.context.integration.Slf4jThreadLocalAccessor;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/**
 * The task decorator with the libraries a user has (issue 38): Micrometer's context-propagation
 * ({@code ContextSnapshot.wrap} as the decorator) carrying SLF4J's MDC and an application
 * {@code ThreadLocal} to the workers, for every kind of submission; the worker clean after the
 * task; forks not decorated, and a snapshot the parent captured carrying the context to them,
 * as docs/context-propagation.md shows. Here, not in the root src/test, because this module's
 * logging is Logback, whose MDC holds values (slf4j-simple's ignores them). Latches and bounded
 * waits only detect hangs.
 */
class ContextPropagationTest {

    private static final long HANG = 30;
    /** An application's own context, say the signed-in user. */
    private static final ThreadLocal<String> USER = new ThreadLocal<>();

    private final ContextSnapshotFactory snapshots = ContextSnapshotFactory.builder()
            .contextRegistry(new ContextRegistry()
                    .registerThreadLocalAccessor(new Slf4jThreadLocalAccessor()) // the whole MDC
                    .registerThreadLocalAccessor("user", USER))
            .build();
    /** What each task saw: "requestId/user@worker" or "@" and the thread's name. */
    private final Map<String, String> seen = new ConcurrentHashMap<>();

    @AfterEach
    void clear() {
        MDC.clear();
        USER.remove();
    }

    /** Built before the test sets its context, so only the decorator can carry it to a worker. */
    private WorkStealingPool pool(WorkStealingPool.Builder builder) {
        return builder.threadNamePrefix("ctx").taskDecorator(task -> snapshots.captureAll().wrap(task)).build();
    }

    private static void terminate(WorkStealingPool pool) throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(HANG, TimeUnit.SECONDS));
    }

    private void note(String name) {
        String thread = Thread.currentThread().getName();
        seen.put(name, MDC.get("requestId") + "/" + USER.get()
                + (thread.startsWith("ctx-worker-") ? "@worker" : "@" + thread));
    }

    private static void await(CountDownLatch latch) throws InterruptedException {
        assertTrue(latch.await(HANG, TimeUnit.SECONDS), "hang");
    }

    @Test
    void theMdcAndAThreadLocalReachEveryKindOfSubmission() throws Exception {
        WorkStealingPool pool = pool(WorkStealingPool.builder().parallelism(2));
        try {
            MDC.put("requestId", "r-42");
            USER.set("alice");
            CountDownLatch executed = new CountDownLatch(1);
            pool.execute(() -> {
                note("execute");
                executed.countDown();
            });
            pool.submit(() -> note("submit(Runnable)")).get(HANG, TimeUnit.SECONDS);
            pool.submit(() -> {
                note("submit(Callable)");
                return 1;
            }).get(HANG, TimeUnit.SECONDS);
            Callable<Integer> call = () -> {
                note("invokeAll");
                return 1;
            };
            for (Future<Integer> f : pool.invokeAll(List.of(call))) {
                f.get();
            }
            pool.invokeAny(List.of(() -> {
                note("invokeAny");
                return 1;
            }));
            pool.schedule(() -> note("schedule(Runnable)"), 1, TimeUnit.MILLISECONDS).get(HANG, TimeUnit.SECONDS);
            pool.schedule(() -> {
                note("schedule(Callable)");
                return 1;
            }, 1, TimeUnit.MILLISECONDS).get(HANG, TimeUnit.SECONDS);
            periodic(pool, "scheduleAtFixedRate", true);
            periodic(pool, "scheduleWithFixedDelay", false);
            pool.submitWithTimeout(() -> {
                note("submitWithTimeout");
                return 1;
            }, 1, TimeUnit.HOURS, null).get(HANG, TimeUnit.SECONDS);
            await(executed);

            MDC.clear();
            USER.remove();
            for (String name : List.of("execute", "submit(Runnable)", "submit(Callable)", "invokeAll",
                    "invokeAny", "schedule(Runnable)", "schedule(Callable)", "scheduleAtFixedRate",
                    "scheduleWithFixedDelay", "submitWithTimeout")) {
                assertEquals("r-42/alice@worker", seen.get(name), name);
            }
            // Every worker is clean again: a Task (not decorated) on each sees nothing. Each
            // probe waits until all have started, so each worker must run one.
            CountDownLatch allStarted = new CountDownLatch(pool.parallelism());
            Set<String> probeThreads = ConcurrentHashMap.newKeySet();
            Task<?>[] probes = new Task<?>[pool.parallelism()];
            for (int i = 0; i < probes.length; i++) {
                int n = i;
                probes[i] = Task.adapt(() -> {
                    note("after " + n);
                    probeThreads.add(Thread.currentThread().getName());
                    allStarted.countDown();
                    await(allStarted);
                    return null;
                });
            }
            pool.invokeAll(List.of(probes));
            assertEquals(pool.parallelism(), probeThreads.size(), probeThreads::toString);
            for (int i = 0; i < probes.length; i++) {
                assertEquals("null/null@worker", seen.get("after " + i));
            }
        } finally {
            terminate(pool);
        }
    }

    /** A periodic task noting its third run, then cancelled. */
    private void periodic(WorkStealingPool pool, String name, boolean fixedRate) throws Exception {
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch third = new CountDownLatch(1);
        Runnable r = () -> {
            if (runs.incrementAndGet() == 3) {
                note(name);
                third.countDown();
            }
        };
        ScheduledFuture<?> f = fixedRate
                ? pool.scheduleAtFixedRate(r, 0, 1, TimeUnit.MILLISECONDS)
                : pool.scheduleWithFixedDelay(r, 0, 1, TimeUnit.MILLISECONDS);
        await(third);
        f.cancel(false);
    }

    @Test
    void theCallerRunsTheTaskInItsOwnContextAndKeepsIt() throws Exception {
        WorkStealingPool pool = pool(WorkStealingPool.builder().parallelism(1).maxQueuedSubmissions(1)
                .saturationPolicy(SaturationPolicy.CALLER_RUNS));
        CountDownLatch release = new CountDownLatch(1);
        try {
            CountDownLatch holding = new CountDownLatch(1);
            pool.execute(() -> {
                holding.countDown();
                try {
                    release.await(HANG, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    // shutdownNow
                }
            });
            await(holding);
            pool.execute(() -> { }); // queued: the bound is reached
            MDC.put("requestId", "r-43");
            USER.set("bob");
            pool.execute(() -> {
                note("caller runs");
                MDC.put("requestId", "changed by the task");
            });
            assertEquals("r-43/bob@" + Thread.currentThread().getName(), seen.get("caller runs"));
            assertEquals("r-43", MDC.get("requestId"), "the snapshot's scope restored the caller's MDC");
        } finally {
            release.countDown();
            terminate(pool);
        }
    }

    @Test
    @SuppressWarnings("try") // a scope that is only closed: it sets the context, then restores it
    void forksAreNotDecoratedButASnapshotCarriesTheContextToThem() throws Exception {
        WorkStealingPool pool = pool(WorkStealingPool.builder().parallelism(2));
        try {
            MDC.put("requestId", "r-44");
            USER.set("carol");
            AtomicReference<String> bare = new AtomicReference<>("unset");
            pool.submit(() -> {
                // The way docs/context-propagation.md shows: capture once in the task (which the
                // decorator put in context), open the snapshot in each piece.
                ContextSnapshot snapshot = snapshots.captureAll();
                CountDownLatch started = new CountDownLatch(2);
                Task<Void> plainFork = Task.adapt(() -> {
                    bare.set(MDC.get("requestId") + "/" + USER.get());
                    started.countDown();
                });
                Task<Void> carried = Task.adapt(snapshot.wrap(() -> {
                    note("fork with the snapshot");
                    started.countDown();
                }));
                plainFork.fork();
                carried.fork();
                await(started); // this worker is busy: the other one stole both
                plainFork.join();
                carried.join();
                pool.range(0, 64).forEachChunk((lo, hi) -> {
                    try (ContextSnapshot.Scope scope = snapshot.setThreadLocals()) {
                        note("chunk " + lo);
                    }
                });
                return null;
            }).get(HANG, TimeUnit.SECONDS);
            assertEquals("null/null", bare.get(), "a stolen fork runs with what its worker holds");
            assertEquals("r-44/carol@worker", seen.get("fork with the snapshot"));
            seen.forEach((name, saw) -> {
                if (name.startsWith("chunk ")) {
                    assertEquals("r-44/carol@worker", saw, name);
                }
            });
            assertTrue(seen.containsKey("chunk 0"), seen::toString);
        } finally {
            terminate(pool);
        }
    }

    @Test
    void aPoolWithoutTheDecoratorCarriesNothing() throws Exception {
        WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).threadNamePrefix("ctx").build();
        try {
            MDC.put("requestId", "r-45");
            pool.submit(() -> note("undecorated")).get(HANG, TimeUnit.SECONDS);
            assertEquals("null/null@worker", seen.get("undecorated"));
            assertNull(USER.get());
        } finally {
            terminate(pool);
        }
    }
}
