package io.github.stealpool;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Misuse gets an answer, not a hang or a silent pass: a Task joined from outside that nothing
 * will run, a Task forked or submitted twice, inherited ExecutorService methods with unnamed
 * arguments; and a failure rethrown in another thread shows where that thread joined.
 */
class MisuseTest {

    private static final long HANG = 30; // seconds: a hang detector, not a speed claim

    private final WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build();

    @AfterEach
    void close() throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(HANG, TimeUnit.SECONDS));
    }

    // ------------------------------------------------------------------ never forked

    @Test
    void joinOrGetFromOutsideOnATaskNothingWillRunThrowsInsteadOfWaitingForever() {
        CountingTask t = new CountingTask();
        IllegalStateException e = assertThrows(IllegalStateException.class, t::join);
        assertTrue(e.getMessage().contains("pool.invoke(task)"), e.getMessage());
        assertTrue(e.getMessage().startsWith("join()"), e.getMessage());
        IllegalStateException g = assertThrows(IllegalStateException.class, t::get);
        assertTrue(g.getMessage().startsWith("get()"), g.getMessage());
        assertEquals(0, t.runs.get());
        // What the message says to do works, with the same task.
        assertEquals(1, pool.invoke(t));
        assertEquals(1, t.join());
    }

    @Test
    void anInterruptedCallerOfGetIsToldOfTheInterruptBeforeTheMisuse() {
        // As FutureTask and ForkJoinTask answer it (the JSR-166 TCK's preamble relies on it):
        // the interrupt first, and the status is consumed.
        CountingTask t = new CountingTask();
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, t::get);
        assertFalse(Thread.interrupted());
        // Not interrupted, the misuse answer stands.
        assertThrows(IllegalStateException.class, t::get);
        // A task already done answers with its result, interrupted or not, as FutureTask does.
        assertEquals(1, pool.invoke(t));
        Thread.currentThread().interrupt();
        try {
            assertEquals(1, assertDoesNotThrow(() -> t.get()));
        } finally {
            assertTrue(Thread.interrupted());
        }
        assertEquals(0, t.runs.get() - 1);
    }

    @Test
    void aTaskCompletedByHandCanBeJoinedFromOutsideWithoutEverBeingForked() throws Exception {
        CountingTask t = new CountingTask();
        assertTrue(t.complete(42));
        assertEquals(42, t.join());
        assertEquals(42, t.get());
        assertEquals(0, t.runs.get());
    }

    @Test
    void aTaskRunByHandCountsAsStarted() throws Exception {
        CountingTask t = new CountingTask();
        t.run(); // RunnableFuture.run, on this (outside) thread
        assertEquals(1, t.join());
        assertEquals(1, t.get());
    }

    @Test
    void aTaskSubmittedAsAPlainRunnableCountsAsSubmitted() throws Exception {
        java.util.concurrent.ExecutorService es = pool;
        CountingTask t = new CountingTask();
        java.util.concurrent.Future<?> f = es.submit((Runnable) t);
        assertSame(t, f, "submitted as itself, as ForkJoinPool does");
        assertEquals(1, t.join(), "joined from outside: submitted through ExecutorService.submit");
        assertThrows(IllegalStateException.class, () -> es.submit((Runnable) t));
        assertThrows(IllegalStateException.class, () -> es.submit(t, "result"));
        assertEquals(1, t.runs.get());

        CountingTask u = new CountingTask();
        java.util.concurrent.Future<String> withResult = es.submit(u, "result");
        assertEquals("result", withResult.get(HANG, TimeUnit.SECONDS));
        assertTrue(withResult.isDone());
        assertEquals(1, u.join());
    }

    /**
     * A Task submitted as a plain Runnable is still a fork/join piece: shutdownNow cancels it
     * (and does not return it), and cancelling the Future of submit(task, result) cancels it;
     * either way a joiner is released instead of waiting for ever.
     */
    @Test
    void aTaskSubmittedAsARunnableIsCancelledByShutdownNowAndByItsFuture() throws Exception {
        WorkStealingPool one = WorkStealingPool.builder().parallelism(1).build();
        CountDownLatch hold = new CountDownLatch(1);
        one.execute(() -> {
            try {
                hold.await(HANG, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        CountingTask viaFuture = new CountingTask();
        java.util.concurrent.Future<String> f = one.submit(viaFuture, "r");
        assertTrue(f.cancel(false));
        assertTrue(viaFuture.isCancelled());
        assertThrows(CancellationException.class, viaFuture::join);
        CountingTask queued = new CountingTask();
        one.submit((Runnable) queued);
        List<Runnable> returned = one.shutdownNow();
        hold.countDown();
        assertFalse(returned.contains(queued), "a fork/join piece is cancelled, not returned");
        assertTrue(queued.isCancelled(), String.valueOf(queued));
        assertThrows(CancellationException.class, queued::join);
        assertTrue(one.awaitTermination(HANG, TimeUnit.SECONDS));
        assertEquals(0, viaFuture.runs.get() + queued.runs.get());
    }

    @Test
    void aSubmittedTaskCanBeJoinedFromOutside() throws Exception {
        CountingTask t = new CountingTask();
        assertSame(t, pool.submit(t));
        assertEquals(1, t.join());
        CountingTask viaExecute = new CountingTask();
        pool.execute(viaExecute); // a Task given to execute counts as submitted too
        assertEquals(1, viaExecute.get(HANG, TimeUnit.SECONDS));
        assertEquals(1, viaExecute.get());
    }

    // ------------------------------------------------------------------ at most once

    @Test
    void forkingTheSameTaskTwiceThrows() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> pool.invoke(new Task<Void>() {
            @Override
            protected Void compute() {
                CountingTask child = new CountingTask();
                child.fork();
                try {
                    child.fork();
                } finally {
                    child.join(); // the first fork still runs, once
                    assertEquals(1, child.runs.get());
                }
                return null;
            }
        }));
        assertTrue(e.getMessage().startsWith("fork() on a task that was already forked"), e.getMessage());
    }

    @Test
    void submittingOrInvokingATaskTwiceThrowsAndRunsItOnce() throws Exception {
        CountingTask t = new CountingTask();
        pool.submit(t);
        assertEquals(1, t.get(HANG, TimeUnit.SECONDS));
        assertThrows(IllegalStateException.class, () -> pool.submit(t));
        assertThrows(IllegalStateException.class, () -> pool.execute(t));
        assertThrows(IllegalStateException.class, () -> pool.invoke(t));
        // invoke() inside the pool, and fork() of a submitted task, likewise.
        assertThrows(IllegalStateException.class, () -> pool.invoke(new Task<Void>() {
            @Override
            protected Void compute() {
                t.invoke();
                return null;
            }
        }));
        assertThrows(IllegalStateException.class, () -> pool.invoke(new Task<Void>() {
            @Override
            protected Void compute() {
                t.fork();
                return null;
            }
        }));
        assertEquals(1, t.runs.get());
    }

    @Test
    void invokeAllWithATaskTwiceThrowsBeforeAnythingRuns() {
        CountingTask a = new CountingTask();
        CountingTask b = new CountingTask();
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> pool.invoke(new Task<Void>() {
            @Override
            protected Void compute() {
                Task.invokeAll(a, b, a);
                return null;
            }
        }));
        assertTrue(e.getMessage().contains("tasks[2]"), e.getMessage());
        assertEquals(0, a.runs.get());
        assertEquals(0, b.runs.get());
        // Nothing was claimed: both can still run.
        assertEquals(1, pool.invoke(a));
        assertEquals(1, pool.invoke(b));
    }

    @Test
    void aRejectedSubmissionLeavesTheTaskFreeToRunElsewhere() throws Exception {
        WorkStealingPool closed = WorkStealingPool.builder().parallelism(1).build();
        closed.shutdown();
        CountingTask t = new CountingTask();
        assertThrows(RejectedExecutionException.class, () -> closed.submit(t));
        assertThrows(IllegalStateException.class, t::join, "rejected: still nothing will run it");
        assertEquals(1, pool.invoke(t));
        assertTrue(closed.awaitTermination(HANG, TimeUnit.SECONDS));
    }

    // ------------------------------------------------------------------ named arguments

    @Test
    void inheritedSubmitAndInvokeAnyNameTheirBadArguments() {
        NullPointerException c = assertThrows(NullPointerException.class, () -> pool.submit((Callable<Integer>) null));
        assertEquals("task", c.getMessage());
        NullPointerException r = assertThrows(NullPointerException.class, () -> pool.submit((Runnable) null));
        assertEquals("task", r.getMessage());
        NullPointerException rr = assertThrows(NullPointerException.class, () -> pool.submit(null, 1));
        assertEquals("task", rr.getMessage());
        IllegalArgumentException empty = assertThrows(IllegalArgumentException.class,
                () -> pool.invokeAny(List.<Callable<Integer>>of()));
        assertTrue(empty.getMessage().contains("tasks is empty"), empty.getMessage());
        IllegalArgumentException emptyTimed = assertThrows(IllegalArgumentException.class,
                () -> pool.invokeAny(List.<Callable<Integer>>of(), 1, TimeUnit.SECONDS));
        assertTrue(emptyTimed.getMessage().contains("tasks is empty"), emptyTimed.getMessage());
    }

    // ------------------------------------------------------------------ where the caller joined

    private static boolean hasFrame(Throwable t, String method) {
        return Arrays.stream(t.getStackTrace()).anyMatch(f -> f.getMethodName().equals(method));
    }

    @Test
    void aFailureRethrownInAnotherThreadShowsWhereTheCallerJoined() throws Exception {
        IllegalStateException original = new IllegalStateException("from a worker");
        Task<Void> failing = new Task<>() {
            @Override
            protected Void compute() {
                throw original;
            }
        };
        IllegalStateException thrown = assertThrows(IllegalStateException.class,
                () -> joinHere(pool.submit(failing)));
        assertNotSame(original, thrown, "rethrown in another thread: a copy made here");
        assertSame(original, thrown.getCause());
        assertEquals("from a worker", thrown.getMessage());
        assertTrue(hasFrame(thrown, "joinHere"), "the copy's frames are the joiner's");
        assertFalse(hasFrame(original, "joinHere"), "the original's frames are the worker's");
        assertSame(original, failing.getException(), "getException() gives the original");

        // pool.join, a scope and a range loop, called from outside: each shows this thread.
        IllegalArgumentException fromB = new IllegalArgumentException("b");
        IllegalArgumentException viaJoin = assertThrows(IllegalArgumentException.class,
                () -> pool.join(() -> 1, () -> { throw fromB; }, (x, y) -> 1));
        Rethrown.assertRethrown(fromB, viaJoin);
        assertNotSame(fromB, viaJoin);
        assertTrue(hasFrame(viaJoin, "aFailureRethrownInAnotherThreadShowsWhereTheCallerJoined"));
        UnsupportedOperationException inLoop = new UnsupportedOperationException("loop");
        UnsupportedOperationException viaLoop = assertThrows(UnsupportedOperationException.class,
                () -> pool.range(0, 100).forEach(i -> {
                    throw inLoop;
                }));
        Rethrown.assertRethrown(inLoop, viaLoop);
        assertNotSame(inLoop, viaLoop);
        assertTrue(hasFrame(viaLoop, "aFailureRethrownInAnotherThreadShowsWhereTheCallerJoined"));
    }

    private static void joinHere(Task<?> t) {
        t.join();
    }

    @Test
    void aFailureRethrownInTheThreadThatThrewItIsTheOriginal() {
        IllegalStateException original = new IllegalStateException("here");
        Task<Void> failing = new Task<>() {
            @Override
            protected Void compute() {
                throw original;
            }
        };
        failing.run(); // on this thread
        assertSame(original, assertThrows(IllegalStateException.class, failing::join));
    }

    /** Only a constructor the copy cannot use: the original is rethrown. */
    public static final class Uncopyable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public Uncopyable(int code) {
            super("code " + code);
        }
    }

    /** Its (String, Throwable) constructor drops the cause: a copy would lose the original. */
    public static final class DropsCause extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public DropsCause(String message, Throwable cause) {
            super(message);
        }
    }

    /** Copyable, but only without a message: the copy is made, the message kept by the cause. */
    public static final class NoMessage extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public NoMessage() {
        }
    }

    @Test
    void whenNoCopyCanBeMadeTheOriginalIsRethrown() {
        Uncopyable u = new Uncopyable(7);
        assertSame(u, assertThrows(Uncopyable.class, () -> pool.join(() -> {
            throw u;
        }, () -> { })));
        DropsCause d = new DropsCause("d", null);
        assertSame(d, assertThrows(DropsCause.class, () -> pool.join(() -> {
            throw d;
        }, () -> { })));
        NoMessage n = new NoMessage();
        NoMessage copy = assertThrows(NoMessage.class, () -> pool.join(() -> {
            throw n;
        }, () -> { }));
        assertNotSame(n, copy);
        assertSame(n, copy.getCause());
    }

    @Test
    void aCancellationSeenByAnotherThreadIsACopyToo() {
        CountDownLatch hold = new CountDownLatch(1);
        WorkStealingPool one = WorkStealingPool.builder().parallelism(1).build();
        try {
            one.execute(() -> {
                try {
                    hold.await(HANG, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            CountingTask queued = new CountingTask();
            one.submit(queued);
            assertTrue(queued.cancel(false));
            CancellationException c = assertThrows(CancellationException.class, queued::join);
            assertSame(queued.getException(), c, "cancelled on this thread: the original");
            CancellationException elsewhere = assertThrows(CancellationException.class, () -> pool.invoke(new Task<Void>() {
                @Override
                protected Void compute() {
                    queued.join();
                    return null;
                }
            }));
            assertSame(queued.getException(), elsewhere.getCause().getCause(),
                    "the worker's copy, copied again for this thread");
        } finally {
            hold.countDown();
            one.shutdown();
        }
    }
}
