package io.github.stealpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The methods of {@code ForkJoinTask} that ported code uses besides fork, join and invoke, with
 * its semantics: quietlyJoin, quietlyInvoke, quietlyComplete, getRawResult, tryUnfork, adapt.
 * (helpQuiesce: HelpQuiesceTest; getPool, inWorkStealingPool and off-pool calls: CommonPoolTest.)
 */
class ForkJoinTaskMethodsTest {

    private static final long HANG = 30; // seconds: a hang detector, not a speed claim

    private final WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build();

    @AfterEach
    void close() throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(HANG, TimeUnit.SECONDS));
    }

    /** Runs {@code body} as a task of {@code p} and waits for it. */
    private static void onWorker(WorkStealingPool p, Runnable body) {
        p.invoke(Task.adapt(body));
    }

    // ------------------------------------------------------------------ quietlyJoin, quietlyInvoke

    @Test
    void quietlyJoinOfAFailingTaskDoesNotThrowAndGetExceptionHasTheFailure() {
        IllegalStateException boom = new IllegalStateException("boom");
        // From outside, on a submitted task that another thread runs.
        CountingTask submitted = new CountingTask(boom);
        pool.submit(submitted);
        submitted.quietlyJoin();
        assertTrue(submitted.isDone());
        assertSame(boom, submitted.getException());
        assertTrue(submitted.isCompletedAbnormally());
        // On a worker, on its own fork (taken back and run here) and on a stolen one.
        onWorker(pool, () -> {
            CountingTask forked = new CountingTask(boom);
            forked.fork();
            forked.quietlyJoin();
            assertSame(boom, forked.getException());
            assertEquals(1, forked.runs.get());
        });
        // A later join() reports what quietlyJoin swallowed.
        assertThrows(IllegalStateException.class, submitted::join);
    }

    @Test
    void quietlyJoinWaitsForTheTask() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Task<String> slow = Task.adapt(() -> {
            assertTrue(release.await(HANG, TimeUnit.SECONDS));
            return "done";
        });
        pool.submit(slow);
        AtomicReference<Throwable> joined = new AtomicReference<>();
        CountDownLatch returned = new CountDownLatch(1);
        Thread joiner = new Thread(() -> {
            try {
                slow.quietlyJoin();
            } catch (Throwable t) {
                joined.set(t);
            }
            returned.countDown();
        });
        joiner.start();
        assertFalse(returned.await(100, TimeUnit.MILLISECONDS), "quietlyJoin returned before the task was done");
        release.countDown();
        assertTrue(returned.await(HANG, TimeUnit.SECONDS));
        assertNull(joined.get());
        assertEquals("done", slow.getRawResult());
    }

    @Test
    void quietlyJoinFromOutsideOnATaskNothingWillRunThrowsAsJoinDoes() {
        CountingTask never = new CountingTask();
        IllegalStateException e = assertThrows(IllegalStateException.class, never::quietlyJoin);
        assertTrue(e.getMessage().startsWith("quietlyJoin()"), e.getMessage());
        assertEquals(0, never.runs.get());
    }

    @Test
    void quietlyInvokeRunsTheTaskOnceAndKeepsItsFailure() {
        IllegalArgumentException boom = new IllegalArgumentException("boom");
        onWorker(pool, () -> {
            CountingTask failing = new CountingTask(boom);
            failing.quietlyInvoke();
            assertSame(boom, failing.getException());
            CountingTask fine = new CountingTask();
            fine.quietlyInvoke();
            assertEquals(1, fine.getRawResult());
            assertThrows(IllegalStateException.class, fine::quietlyInvoke, "a second run");
            assertEquals(1, fine.runs.get());
        });
        CountingTask offPool = new CountingTask(boom); // off the pool: in the common pool
        offPool.quietlyInvoke();
        assertSame(boom, offPool.getException());
        assertEquals(1, offPool.runs.get());
    }

    // ------------------------------------------------------------------ quietlyComplete, getRawResult

    @Test
    void quietlyCompleteCompletesNormallyWithNullUnlessAlreadyComplete() throws Exception {
        CountingTask t = new CountingTask();
        t.quietlyComplete();
        assertTrue(t.isCompletedNormally());
        assertNull(t.join());
        assertNull(t.get());
        assertNull(pool.invoke(t), "completed: compute never runs");
        assertEquals(0, t.runs.get());

        CountingTask done = new CountingTask();
        assertTrue(done.complete(7));
        done.quietlyComplete();
        assertEquals(7, done.join(), "already complete: unchanged");
        CountingTask failed = new CountingTask();
        failed.completeExceptionally(new IOException("x"));
        failed.quietlyComplete();
        assertTrue(failed.isCompletedAbnormally(), "already complete: unchanged");
    }

    @Test
    void getRawResultIsTheResultOnlyIfCompletedNormallyAndNeverThrows() {
        CountingTask pending = new CountingTask();
        assertNull(pending.getRawResult());
        CountingTask failed = new CountingTask(new IllegalStateException("x"));
        failed.quietlyInvoke();
        assertTrue(failed.isCompletedAbnormally());
        assertNull(failed.getRawResult());
        CountingTask cancelled = new CountingTask();
        cancelled.cancel(false);
        assertNull(cancelled.getRawResult());
        CountingTask checked = new CountingTask();
        checked.completeExceptionally(new IOException("x"));
        assertNull(checked.getRawResult());
        CountingTask ok = new CountingTask();
        assertEquals(1, pool.invoke(ok));
        assertEquals(1, ok.getRawResult());
    }

    // ------------------------------------------------------------------ tryUnfork

    @Test
    void aForkTakenBackWithTryUnforkRunsExactlyOnceWhenInvoked() {
        WorkStealingPool one = WorkStealingPool.builder().parallelism(1).build(); // nobody can steal it
        try {
            Integer r = one.invoke(Task.adapt(() -> {
                CountingTask t = new CountingTask();
                t.fork();
                assertTrue(t.tryUnfork(), "at the bottom of this worker's deque");
                assertFalse(t.tryUnfork(), "not in the deque any more");
                int v = t.invoke(); // the run given back: invoke may claim it
                assertEquals(1, t.join());
                assertThrows(IllegalStateException.class, t::invoke, "run once only");
                return v + t.runs.get();
            }));
            assertEquals(2, r);
            // Taken back counts as completed, as a join's fast path does: at quiescence
            // completed equals submitted (the adapted task, the fork).
            await().atMost(Duration.ofSeconds(HANG)).untilAsserted(() -> {
                PoolStats s = one.stats();
                assertEquals(s.submittedTasks(), s.completedTasks(), s.toString());
            });
        } finally {
            one.shutdown();
        }
    }

    @Test
    void aTaskTakenBackMayBeComputedOrForkedAgainAndAnOutsideJoinerIsTold() {
        WorkStealingPool one = WorkStealingPool.builder().parallelism(1).build();
        try {
            one.invoke(Task.adapt(() -> {
                CountingTask t = new CountingTask();
                t.fork();
                assertTrue(t.tryUnfork());
                assertEquals(1, t.compute(), "compute() runs the code and records nothing");
                assertFalse(t.isDone());
                t.fork(); // forked again: allowed once more
                assertEquals(2, t.join());
                assertEquals(2, t.runs.get());

                CountingTask back = new CountingTask();
                back.fork();
                assertTrue(back.tryUnfork());
                // Nothing will run it now: a thread outside the pool is told, not left waiting.
                AtomicReference<Throwable> outside = new AtomicReference<>();
                Thread joiner = new Thread(() -> {
                    try {
                        back.join();
                    } catch (Throwable e) {
                        outside.set(e);
                    }
                });
                joiner.start();
                try {
                    joiner.join(TimeUnit.SECONDS.toMillis(HANG));
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
                assertTrue(outside.get() instanceof IllegalStateException, String.valueOf(outside.get()));
            }));
            await().atMost(Duration.ofSeconds(HANG)).untilAsserted(() -> {
                PoolStats s = one.stats();
                assertEquals(s.submittedTasks(), s.completedTasks(), s.toString());
            });
        } finally {
            one.shutdown();
        }
    }

    @Test
    void tryUnforkFailsOffThePoolUnderALaterForkAndOnAStolenTask() throws Exception {
        CountingTask offPool = new CountingTask();
        assertFalse(offPool.tryUnfork(), "never forked");
        offPool.fork(); // to the common pool
        assertFalse(offPool.tryUnfork(), "off the pool: false");
        assertEquals(1, offPool.join());
        assertEquals(1, offPool.runs.get());

        onWorker(pool, () -> {
            CountingTask lower = new CountingTask();
            CountingTask upper = new CountingTask();
            lower.fork();
            upper.fork();
            if (upper.tryUnfork()) { // the other worker may have stolen it (it steals the oldest)
                upper.invoke();
            }
            assertEquals(1, upper.join());
            assertEquals(1, lower.join());
            assertEquals(1, upper.runs.get(), "taken back or stolen, it ran once");
        });

        // A task the other worker stole and runs: not in this worker's deque.
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Task<Boolean> victim = Task.adapt(() -> {
            started.countDown();
            return release.await(HANG, TimeUnit.SECONDS);
        });
        onWorker(pool, () -> {
            victim.fork();
            try {
                assertTrue(started.await(HANG, TimeUnit.SECONDS), "the other worker did not steal it");
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            assertFalse(victim.tryUnfork(), "stolen and running elsewhere");
            release.countDown();
            assertTrue(victim.join());
        });
    }

    @Test
    void aForkUnderALaterForkIsNotAtTheBottom() {
        WorkStealingPool one = WorkStealingPool.builder().parallelism(1).build();
        try {
            one.invoke(Task.adapt(() -> {
                CountingTask lower = new CountingTask();
                CountingTask upper = new CountingTask();
                lower.fork();
                upper.fork();
                assertFalse(lower.tryUnfork(), "upper was pushed after it");
                assertTrue(upper.tryUnfork());
                assertTrue(lower.tryUnfork(), "now at the bottom");
                assertEquals(1, upper.invoke());
                assertEquals(1, lower.invoke());
            }));
        } finally {
            one.shutdown();
        }
    }

    // ------------------------------------------------------------------ adapt

    @Test
    void anAdaptedCallableKeepsItsCheckedExceptionAsTheFailure() {
        IOException io = new IOException("disk");
        Task<String> failing = Task.adapt(() -> {
            throw io;
        });
        pool.submit(failing);
        ExecutionException viaGet = assertThrows(ExecutionException.class, failing::get);
        assertSame(io, viaGet.getCause());
        CompletionException viaJoin = assertThrows(CompletionException.class, failing::join);
        assertSame(io, viaJoin.getCause());
        assertSame(io, failing.getException());

        Task<String> invoked = Task.adapt(() -> {
            throw io;
        });
        assertSame(io, assertThrows(CompletionException.class, invoked::invoke).getCause(), "off the pool too");
        IllegalStateException unchecked = new IllegalStateException("unchecked");
        Task<String> uncheckedFailure = Task.adapt(() -> {
            throw unchecked;
        });
        Rethrown.assertRethrown(unchecked, assertThrows(IllegalStateException.class, () -> pool.invoke(uncheckedFailure)));
    }

    @Test
    void adaptedCallablesAndRunnablesRunOnceAndGiveTheirResults() throws Exception {
        AtomicInteger ran = new AtomicInteger();
        assertEquals(42, pool.invoke(Task.adapt(() -> 42)));
        Task<Void> runnable = Task.adapt((Runnable) ran::incrementAndGet);
        assertNull(pool.invoke(runnable));
        Task<String> withResult = Task.adapt(ran::incrementAndGet, "result");
        assertEquals("result", pool.submit(withResult).get(HANG, TimeUnit.SECONDS));
        assertEquals(2, ran.get());
        // Forked and joined inside a task, like any Task.
        int sum = pool.invoke(Task.adapt(() -> {
            Task<Integer> a = Task.adapt(() -> 20).fork();
            Task<Integer> b = Task.adapt(() -> 22).fork();
            return a.join() + b.join();
        }));
        assertEquals(42, sum);
        assertThrows(CancellationException.class, () -> {
            Task<Integer> c = Task.adapt(() -> 1);
            c.cancel(false);
            c.join();
        });
    }
}
