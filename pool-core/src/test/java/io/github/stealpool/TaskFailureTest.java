package io.github.stealpool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.Assertions;

/** A task that throws, whatever it throws, never costs the pool a worker. */
class TaskFailureTest {

    private static final long HANG = 30;

    private static int recurse(int depth) {
        return recurse(depth + 1) + 1;
    }

    @Test
    void everyThrowableFromExecuteReachesTheHandlerAndTheWorkerCarriesOn() throws Exception {
        List<Throwable> reported = new CopyOnWriteArrayList<>();
        List<Thread> reportedOn = new CopyOnWriteArrayList<>();
        RecordingThreadFactory threads = new RecordingThreadFactory();
        // One worker: if a failure killed it, nothing after the failure would run.
        WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).threadFactory(threads)
                .uncaughtExceptionHandler((t, e) -> {
                    reportedOn.add(t);
                    reported.add(e);
                }).build();
        try {
            RuntimeException runtime = new IllegalArgumentException("runtime");
            Error error = new AssertionError("error");
            OutOfMemoryError oom = new OutOfMemoryError("thrown, not real");
            pool.execute(() -> {
                throw runtime;
            });
            pool.execute(() -> {
                throw error;
            });
            pool.execute(() -> {
                throw oom;
            });
            pool.execute(() -> recurse(0)); // a real StackOverflowError
            CompletableFuture<Thread> after = new CompletableFuture<>();
            pool.execute(() -> after.complete(Thread.currentThread()));
            Thread worker = after.get(HANG, TimeUnit.SECONDS);
            assertEquals(4, reported.size());
            assertSame(runtime, reported.get(0));
            assertSame(error, reported.get(1));
            assertSame(oom, reported.get(2));
            assertInstanceOf(StackOverflowError.class, reported.get(3));
            assertEquals(1, threads.threads.size(), "the worker must survive, not be replaced");
            assertSame(threads.threads.get(0), worker);
            for (Thread t : reportedOn) {
                assertSame(worker, t);
            }
        } finally {
            pool.shutdown();
            assertTrue(pool.awaitTermination(HANG, TimeUnit.SECONDS));
        }
    }

    /**
     * With no handler in the builder, a failure goes to the worker thread's uncaught-exception
     * handler, as if it had ended the thread: a process-wide default handler sees it, as it
     * would with newFixedThreadPool.
     */
    @Test
    void withoutABuilderHandlerTheFailureReachesTheDefaultUncaughtExceptionHandler() throws Exception {
        Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
        List<Throwable> reported = new CopyOnWriteArrayList<>();
        List<Thread> reportedOn = new CopyOnWriteArrayList<>();
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
            reportedOn.add(t);
            reported.add(e);
        });
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).threadNamePrefix("ueh").build()) {
            IllegalStateException x = new IllegalStateException("expected in this test: default handler");
            pool.execute(() -> {
                throw x;
            });
            assertEquals("ueh-worker-0", pool.submit(() -> Thread.currentThread().getName()).get(HANG, TimeUnit.SECONDS));
            assertEquals(List.of(x), reported);
            assertEquals("ueh-worker-0", reportedOn.get(0).getName());
            assertTrue(reportedOn.get(0).isAlive(), "the worker carries on");
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(before);
        }
    }

    /** With no handler anywhere, the JVM's own default prints the stack trace, as for a fixed pool. */
    @Test
    void withoutAnyHandlerTheStackTraceIsPrintedToStandardError() throws Exception {
        Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler(null);
        String text;
        try {
            text = StandardError.of(() -> {
                try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).threadNamePrefix("printed").build()) {
                    pool.execute(() -> {
                        throw new IllegalStateException("expected in this test: printed");
                    });
                    assertEquals(7, pool.submit(() -> 7).get(HANG, TimeUnit.SECONDS));
                }
            });
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(before);
        }
        assertTrue(text.contains("Exception in thread \"printed-worker-0\" java.lang.IllegalStateException: "
                + "expected in this test: printed"), text);
        // "at io.github.stealpool@<version>/io.github...." when the tests run on the module path
        assertTrue(java.util.regex.Pattern.compile("\\tat (\\S+/)?io\\.github\\.stealpool\\.TaskFailureTest")
                .matcher(text).find(), text);
    }


    /** A thread factory's threads keep their own handler, and the builder's overrides it. */
    @Test
    void aThreadsOwnHandlerIsUsedAndTheBuildersHandlerWinsOverIt() throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        java.util.concurrent.ThreadFactory withHandler = r -> {
            Thread t = new Thread(r);
            t.setDaemon(true);
            t.setUncaughtExceptionHandler((th, e) -> seen.add("thread's: " + e.getMessage()));
            return t;
        };
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).threadFactory(withHandler).build()) {
            pool.execute(() -> {
                throw new IllegalStateException("one");
            });
            assertEquals(1, pool.submit(() -> 1).get(HANG, TimeUnit.SECONDS));
        }
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).threadFactory(withHandler)
                .uncaughtExceptionHandler((th, e) -> seen.add("builder's: " + e.getMessage())).build()) {
            pool.execute(() -> {
                throw new IllegalStateException("two");
            });
            assertEquals(2, pool.submit(() -> 2).get(HANG, TimeUnit.SECONDS));
        }
        assertEquals(List.of("thread's: one", "builder's: two"), seen);
    }

    /** The task's failure, with the handler's as suppressed, is logged (slf4j-simple: stderr). */
    @Test
    void aHandlerThatThrowsDoesNotKillTheWorker() throws Exception {
        String text = StandardError.of(() -> {
            try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).threadNamePrefix("failing-handler")
                    .uncaughtExceptionHandler((t, e) -> {
                        throw new IllegalStateException("expected in this test: the handler fails");
                    }).build()) {
                pool.execute(() -> {
                    throw new IllegalArgumentException("expected in this test");
                });
                assertEquals(8, pool.submit(() -> 8).get(HANG, TimeUnit.SECONDS));
            }
        });
        assertTrue(text.contains("WARN io.github.stealpool.internal.Scheduler - failing-handler: task "), text);
        assertTrue(text.contains("threw and the uncaught-exception handler failed; the worker carries on"), text);
        assertTrue(text.contains("java.lang.IllegalArgumentException: expected in this test"), text);
        assertTrue(text.contains("Suppressed: java.lang.IllegalStateException: expected in this test: the handler fails"),
                text);
    }

    @Test
    void submitDeliversErrorsThroughTheFuture() throws Exception {
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).build()) {
            Future<Integer> f = pool.submit(() -> recurse(0));
            ExecutionException e = Assertions.assertThrows(ExecutionException.class, () -> f.get(HANG, TimeUnit.SECONDS));
            assertInstanceOf(StackOverflowError.class, e.getCause());
            assertEquals(9, pool.submit(() -> 9).get(HANG, TimeUnit.SECONDS));
        }
    }

    @Test
    void aTasksInterruptStatusDoesNotLeakIntoTheNextTask() throws Exception {
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).build()) {
            CountDownLatch hold = new CountDownLatch(1);
            pool.execute(() -> {
                try {
                    hold.await(HANG, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                Thread.currentThread().interrupt(); // and return with the flag set
            });
            Future<Boolean> next = pool.submit(() -> Thread.currentThread().isInterrupted());
            hold.countDown();
            assertFalse(next.get(HANG, TimeUnit.SECONDS));
        }
    }

    @Test
    void anInterruptOfAnIdleWorkerNeitherKillsItNorReachesATask() throws Exception {
        RecordingThreadFactory threads = new RecordingThreadFactory();
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).threadFactory(threads).build()) {
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(HANG))
                    .until(() -> pool.sleepingWorkers() == 2);
            threads.threads.forEach(Thread::interrupt);
            for (int i = 0; i < 20; i++) {
                assertFalse(pool.submit(() -> Thread.currentThread().isInterrupted()).get(HANG, TimeUnit.SECONDS));
            }
            for (Thread t : threads.threads) {
                assertTrue(t.isAlive());
            }
        }
    }
}
