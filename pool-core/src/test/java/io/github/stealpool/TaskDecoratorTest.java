package io.github.stealpool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * {@code Builder.taskDecorator} (issue 38): every {@code ExecutorService} and
 * {@code ScheduledExecutorService} submission is decorated in the submitting thread, from
 * outside and from a worker; fork/join work is not; the futures, failures, interrupts and
 * {@code shutdownNow} stay the pool's; a decorator that throws or returns null fails the
 * submitter and leaves the pool as it was. A plain {@code ThreadLocal} stands for the context
 * here; examples-spring's {@code ContextPropagationTest} uses SLF4J's MDC and Micrometer's
 * library. Bounded waits on latches only detect hangs.
 */
class TaskDecoratorTest {

    private static final long HANG = 30;
    private static final ThreadLocal<String> CONTEXT = new ThreadLocal<>();

    /**
     * Captures {@link #CONTEXT} in the submitting thread, sets it around the task, and restores
     * what the thread held before (as a decorator must); counts its calls and runs, and keeps
     * what it was given.
     */
    private static final class Propagating implements UnaryOperator<Runnable> {
        final AtomicInteger calls = new AtomicInteger();
        final AtomicInteger runs = new AtomicInteger();
        final List<Runnable> given = Collections.synchronizedList(new ArrayList<>());

        @Override
        public Runnable apply(Runnable task) {
            calls.incrementAndGet();
            given.add(task);
            String captured = CONTEXT.get();
            return () -> {
                runs.incrementAndGet();
                String before = CONTEXT.get();
                CONTEXT.set(captured);
                try {
                    task.run();
                } finally {
                    if (before == null) {
                        CONTEXT.remove();
                    } else {
                        CONTEXT.set(before);
                    }
                }
            };
        }
    }

    private final Propagating decorator = new Propagating();
    /** What each task saw: its name to the context it read and the thread it ran on. */
    private final Map<String, String> seen = new ConcurrentHashMap<>();

    @AfterEach
    void clearContext() {
        CONTEXT.remove();
    }

    private WorkStealingPool pool(int parallelism) {
        return WorkStealingPool.builder().parallelism(parallelism).threadNamePrefix("decorated")
                .taskDecorator(decorator).build();
    }

    private static void terminate(WorkStealingPool pool) throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(HANG, TimeUnit.SECONDS));
    }

    /** Notes what {@code name} sees: the context and whether it runs on the pool's worker. */
    private void note(String name) {
        String thread = Thread.currentThread().getName();
        seen.put(name, CONTEXT.get() + (thread.startsWith("decorated-worker-") ? "@worker" : "@" + thread));
    }

    private Runnable noting(String name) {
        return () -> note(name);
    }

    private Callable<String> notingCall(String name) {
        return () -> {
            note(name);
            return name;
        };
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(HANG, TimeUnit.SECONDS), "hang");
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    /** Holds a worker until {@code release} opens, or shutdownNow interrupts it. */
    private static void hold(CountDownLatch release) {
        try {
            release.await(HANG, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            // shutdownNow: let the worker go
        }
    }

    @Test
    void everySubmissionRunsOnAWorkerWithTheSubmittersContext() throws Exception {
        WorkStealingPool pool = pool(2);
        try {
            CONTEXT.set("request-7");
            CountDownLatch executed = new CountDownLatch(1);
            pool.execute(() -> {
                note("execute");
                executed.countDown();
            });
            pool.submit(noting("submit(Runnable)")).get(HANG, TimeUnit.SECONDS);
            assertEquals("r", pool.submit(noting("submit(Runnable, T)"), "r").get(HANG, TimeUnit.SECONDS));
            pool.submit(notingCall("submit(Callable)")).get(HANG, TimeUnit.SECONDS);
            for (Future<String> f : pool.invokeAll(List.of(notingCall("invokeAll 1"), notingCall("invokeAll 2")))) {
                f.get();
            }
            pool.invokeAll(List.of(notingCall("invokeAll timed")), HANG, TimeUnit.SECONDS).get(0).get();
            pool.invokeAny(List.of(notingCall("invokeAny")));
            pool.invokeAny(List.of(notingCall("invokeAny timed")), HANG, TimeUnit.SECONDS);
            pool.schedule(noting("schedule(Runnable)"), 1, TimeUnit.MILLISECONDS).get(HANG, TimeUnit.SECONDS);
            pool.schedule(notingCall("schedule(Callable)"), 1, TimeUnit.MILLISECONDS).get(HANG, TimeUnit.SECONDS);
            runPeriodic(pool, true);
            runPeriodic(pool, false);
            pool.submitWithTimeout(notingCall("submitWithTimeout"), 1, TimeUnit.HOURS, null)
                    .get(HANG, TimeUnit.SECONDS);
            CountDownLatch actionRan = new CountDownLatch(1);
            Task<String> late = pool.submitWithTimeout(() -> {
                await(actionRan); // the action runs on the other worker meanwhile
                return "late";
            }, 0, TimeUnit.MILLISECONDS, t -> {
                note("submitWithTimeout's action");
                t.complete("fallback");
                actionRan.countDown();
            });
            assertEquals("fallback", late.get(HANG, TimeUnit.SECONDS));
            await(executed);

            List<String> names = List.of("execute", "submit(Runnable)", "submit(Runnable, T)",
                    "submit(Callable)", "invokeAll 1", "invokeAll 2", "invokeAll timed", "invokeAny",
                    "invokeAny timed", "schedule(Runnable)", "schedule(Callable)", "fixed rate",
                    "fixed delay", "submitWithTimeout", "submitWithTimeout's action");
            for (String name : names) {
                assertEquals("request-7@worker", seen.get(name), name);
            }
            assertEquals(names.size(), seen.size(), seen::toString);
        } finally {
            terminate(pool);
        }
    }

    /** A periodic task that notes its third run, then is cancelled; decorated once. */
    private void runPeriodic(WorkStealingPool pool, boolean fixedRate) throws Exception {
        String name = fixedRate ? "fixed rate" : "fixed delay";
        int callsBefore = decorator.calls.get();
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
        assertEquals(callsBefore + 1, decorator.calls.get(), "a periodic task is decorated once");
        assertSame(f, decorator.given.get(decorator.given.size() - 1), "the decorator gets the future");
    }

    @Test
    void theDecoratorGetsTheFutureAndTheWorkerIsCleanAfterwards() throws Exception {
        WorkStealingPool pool = pool(1);
        try {
            CONTEXT.set("request-1");
            Future<String> f = pool.submit(notingCall("first"));
            assertEquals("first", f.get(HANG, TimeUnit.SECONDS));
            assertSame(f, decorator.given.get(0), "the decorator wraps the future it returns");
            CONTEXT.remove();
            // A Task is not decorated: it sees what the one worker holds after the first task.
            AtomicReference<String> after = new AtomicReference<>("unset");
            pool.invoke(Task.adapt(() -> after.set(CONTEXT.get())));
            assertNull(after.get());
            assertEquals(1, decorator.calls.get());
        } finally {
            terminate(pool);
        }
    }

    @Test
    void aTaskSubmittedFromAWorkerCarriesItsContextOn() throws Exception {
        WorkStealingPool pool = pool(2);
        try {
            CONTEXT.set("request-2");
            CountDownLatch done = new CountDownLatch(1);
            pool.execute(() -> {
                CONTEXT.set(CONTEXT.get() + "/step-1"); // restored by the decorator afterwards
                pool.execute(() -> {
                    note("follow-up");
                    done.countDown();
                });
            });
            await(done);
            assertEquals("request-2/step-1@worker", seen.get("follow-up"));
            assertEquals(2, decorator.calls.get());
        } finally {
            terminate(pool);
        }
    }

    @Test
    void forkJoinWorkIsNotDecoratedAndACapturedContextReachesItsPieces() throws Exception {
        WorkStealingPool pool = pool(2);
        try {
            CONTEXT.set("request-3");
            pool.invoke(Task.adapt(() -> { }));
            pool.submit(Task.adapt(() -> { })).join();
            pool.execute(Task.adapt(() -> { }));
            pool.invokeAll(List.of(Task.adapt(() -> { }), Task.adapt(() -> { })));
            pool.join(() -> { }, () -> { });
            pool.scope(s -> s.spawn(() -> { }));
            pool.range(0, 1000).forEach(i -> { });
            assertEquals(0, decorator.calls.get(), "Tasks, joins, scopes and loops are not decorated");

            // A submitted task forks a piece that the other worker must steal (the parent holds
            // its own worker until the piece has started): the fork sees nothing of the
            // context, and a piece that opens the context its parent captured sees it.
            AtomicReference<String> plain = new AtomicReference<>("unset");
            AtomicReference<String> carried = new AtomicReference<>("unset");
            pool.submit(() -> {
                String captured = CONTEXT.get();
                CountDownLatch started = new CountDownLatch(2);
                Task<Void> bare = Task.adapt(() -> {
                    plain.set(CONTEXT.get());
                    started.countDown();
                });
                Task<Void> withContext = Task.adapt(() -> withContext(captured, () -> {
                    carried.set(CONTEXT.get());
                    started.countDown();
                }));
                bare.fork();
                withContext.fork();
                await(started); // this worker is busy: the other one took both
                bare.join();
                withContext.join();
            }).get(HANG, TimeUnit.SECONDS);
            assertNull(plain.get(), "a stolen fork is not decorated");
            assertEquals("request-3", carried.get());
            assertEquals(1, decorator.calls.get());
        } finally {
            terminate(pool);
        }
    }

    /** Runs {@code body} with {@link #CONTEXT} set to {@code value}, then restores the thread's own. */
    private static void withContext(String value, Runnable body) {
        String before = CONTEXT.get();
        CONTEXT.set(value);
        try {
            body.run();
        } finally {
            CONTEXT.set(before);
        }
    }

    @Test
    void theCallerRunsTheDecoratedTaskAtTheBound() throws Exception {
        WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).threadNamePrefix("decorated")
                .maxQueuedSubmissions(1).saturationPolicy(SaturationPolicy.CALLER_RUNS)
                .taskDecorator(decorator).build();
        try {
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch holding = new CountDownLatch(1);
            pool.execute(() -> {
                holding.countDown();
                hold(release);
            });
            await(holding);
            pool.execute(() -> { }); // queued: the bound is reached
            assertEquals(0, pool.stats().queueRemaining());
            CONTEXT.set("request-4");
            int runsBefore = decorator.runs.get();
            pool.execute(() -> {
                CONTEXT.set("changed by the task"); // restored by the decorator
                note("caller runs");
            });
            assertEquals("changed by the task@" + Thread.currentThread().getName(), seen.get("caller runs"));
            assertEquals(runsBefore + 1, decorator.runs.get(), "the caller ran the decorated Runnable");
            assertEquals("request-4", CONTEXT.get());
            assertEquals(1, pool.stats().callerRunSubmissions());
            release.countDown();
        } finally {
            terminate(pool);
        }
    }

    @Test
    void futuresFailuresAndInterruptsStayThePools() throws Exception {
        AtomicReference<Throwable> handled = new AtomicReference<>();
        CountDownLatch handledOnce = new CountDownLatch(1);
        WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).threadNamePrefix("decorated")
                .taskDecorator(decorator).uncaughtExceptionHandler((t, e) -> {
                    handled.set(e);
                    handledOnce.countDown();
                }).build();
        try {
            IllegalStateException boom = new IllegalStateException("boom");
            ExecutionException failed = assertThrows(ExecutionException.class,
                    () -> pool.submit(() -> {
                        throw boom;
                    }).get(HANG, TimeUnit.SECONDS));
            assertSame(boom, failed.getCause());

            pool.execute(() -> {
                throw boom;
            });
            await(handledOnce);
            assertSame(boom, handled.get());

            CountDownLatch running = new CountDownLatch(1);
            CountDownLatch interrupted = new CountDownLatch(1);
            Future<?> f = pool.submit(() -> {
                running.countDown();
                try {
                    Thread.sleep(TimeUnit.SECONDS.toMillis(HANG));
                } catch (InterruptedException e) {
                    interrupted.countDown();
                }
            });
            await(running);
            assertTrue(f.cancel(true));
            await(interrupted);

            // A worker waiting on its own submission's future runs it (one worker: nothing else
            // could). That it takes the decorated entry back rather than running it as the next
            // task of its deque, which looks the same from here, is UnforkSubmittedTest's.
            assertEquals("inner", pool.submit(() -> pool.submit(() -> "inner").get()).get(HANG, TimeUnit.SECONDS));
            assertEquals(2, pool.stats().failedTasks());
        } finally {
            terminate(pool);
        }
    }

    @Test
    void shutdownNowReturnsTheTasksAsSubmitted() throws Exception {
        WorkStealingPool pool = pool(1);
        try {
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch holding = new CountDownLatch(1);
            pool.execute(() -> {
                holding.countDown();
                hold(release);
            });
            await(holding);
            Runnable plain = () -> { };
            pool.execute(plain);
            Future<?> future = pool.submit(() -> "queued");
            pool.addTaskTimingListener((queued, ran) -> { }); // picks the next one: wrapped twice
            Future<?> timedFuture = pool.submit(() -> "timed");
            List<Runnable> never = pool.shutdownNow();
            assertEquals(3, never.size(), never::toString);
            assertSame(plain, never.get(0));
            assertSame(future, never.get(1));
            assertSame(timedFuture, never.get(2));
            release.countDown();
        } finally {
            terminate(pool);
        }
    }

    @Test
    void aDecoratorThatFailsFailsTheSubmitterAndLeavesThePoolAsItWas() throws Exception {
        IllegalStateException refusal = new IllegalStateException("no request in scope");
        AtomicReference<String> mode = new AtomicReference<>("ok");
        UnaryOperator<Runnable> failing = task -> {
            switch (mode.get()) {
                case "throw": throw refusal;
                case "null": return null;
                default: return decorator.apply(task);
            }
        };
        WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).threadNamePrefix("decorated")
                .maxQueuedSubmissions(2).taskDecorator(failing).build();
        try {
            pool.schedule(() -> { }, 1, TimeUnit.HOURS); // the timer runs; one task pending
            int calls = decorator.calls.get();
            List<Executable> submissions = List.of(
                    () -> pool.execute(() -> { }),
                    () -> pool.submit(() -> { }),
                    () -> pool.submit(() -> { }, "r"),
                    () -> pool.submit(() -> "c"),
                    () -> pool.invokeAll(List.of(() -> "a", () -> "b")),
                    () -> pool.invokeAll(List.of(() -> "a"), HANG, TimeUnit.SECONDS),
                    () -> pool.invokeAny(List.of(() -> "a", () -> "b")),
                    () -> pool.invokeAny(List.of(() -> "a"), HANG, TimeUnit.SECONDS),
                    () -> pool.schedule(() -> { }, 1, TimeUnit.MILLISECONDS),
                    () -> pool.schedule(() -> "c", 1, TimeUnit.MILLISECONDS),
                    () -> pool.scheduleAtFixedRate(() -> { }, 1, 1, TimeUnit.MILLISECONDS),
                    () -> pool.scheduleWithFixedDelay(() -> { }, 1, 1, TimeUnit.MILLISECONDS),
                    () -> pool.submitWithTimeout(() -> "c", 1, TimeUnit.HOURS, null),
                    () -> pool.submitWithTimeout(() -> "c", 1, TimeUnit.HOURS, t -> { }));
            PoolStats before = pool.stats();
            for (int i = 0; i < submissions.size(); i++) {
                int n = i;
                mode.set("throw");
                assertSame(refusal, assertThrows(IllegalStateException.class, submissions.get(i)),
                        () -> "submission " + n);
                mode.set("null");
                NullPointerException npe = assertThrows(NullPointerException.class, submissions.get(i),
                        () -> "submission " + n);
                assertTrue(npe.getMessage().startsWith("taskDecorator returned null"), npe.getMessage());
                assertUnchanged(before, pool.stats(), "submission " + n);
            }
            assertEquals(calls, decorator.calls.get());
            mode.set("ok");
            CONTEXT.set("request-5");
            pool.submit(notingCall("after")).get(HANG, TimeUnit.SECONDS);
            assertEquals("request-5@worker", seen.get("after"), "the pool serves on");
        } finally {
            terminate(pool);
        }
    }

    private static void assertUnchanged(PoolStats before, PoolStats after, String what) {
        assertEquals(before.externalSubmissions(), after.externalSubmissions(), what);
        assertEquals(before.workerSubmissions(), after.workerSubmissions(), what);
        assertEquals(before.completedTasks(), after.completedTasks(), what);
        assertEquals(before.rejectedSubmissions(), after.rejectedSubmissions(), what);
        assertEquals(before.queueRemaining(), after.queueRemaining(), what);
        assertEquals(before.queuedTasks(), after.queuedTasks(), what);
        assertEquals(before.scheduledOnce(), after.scheduledOnce(), what);
        assertEquals(before.scheduledRepetitively(), after.scheduledRepetitively(), what);
        assertEquals(before.delayedTasksPending(), after.delayedTasksPending(), what);
    }

    @Test
    void aDecoratorFailingPartWayThroughInvokeAllLeavesTheEarlierTasksCancelled() throws Exception {
        IllegalStateException refusal = new IllegalStateException("no request in scope");
        AtomicInteger untilFailure = new AtomicInteger(Integer.MAX_VALUE);
        UnaryOperator<Runnable> failsLater = task -> {
            if (untilFailure.decrementAndGet() == 0) {
                throw refusal;
            }
            return decorator.apply(task);
        };
        WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).threadNamePrefix("decorated")
                .taskDecorator(failsLater).build();
        try {
            for (boolean timed : new boolean[] {false, true}) {
                String form = timed ? "timed invokeAll" : "invokeAll";
                CountDownLatch release = new CountDownLatch(1);
                CountDownLatch holding = new CountDownLatch(1);
                pool.execute(() -> {
                    holding.countDown();
                    hold(release);
                });
                await(holding); // so the first task of invokeAll stays queued
                int given = decorator.given.size();
                untilFailure.set(2); // the second task's decoration fails
                List<Callable<String>> tasks = List.of(notingCall("a"), notingCall("b"), notingCall("c"));
                Executable invokeAll = timed
                        ? () -> pool.invokeAll(tasks, HANG, TimeUnit.SECONDS)
                        : () -> pool.invokeAll(tasks);
                assertSame(refusal, assertThrows(IllegalStateException.class, invokeAll), form);
                untilFailure.set(Integer.MAX_VALUE);
                // The JDK's invokeAll submitted the first task, then cancelled it as the
                // second one's submission failed, as after a rejection part-way.
                assertEquals(given + 1, decorator.given.size(), form);
                Future<?> first = (Future<?>) decorator.given.get(given);
                assertTrue(first.isCancelled(), form);
                release.countDown();
                CONTEXT.set("request-6");
                pool.submit(notingCall("after " + form)).get(HANG, TimeUnit.SECONDS);
                CONTEXT.remove();
                assertEquals("request-6@worker", seen.get("after " + form), "the pool serves on");
            }
            assertNull(seen.get("a"), "the cancelled task never ran");
        } finally {
            terminate(pool);
        }
    }

    @Test
    void aDecoratorThatNeverRunsItsTaskFailsATimeLimitedTask() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        WorkStealingPool pool = WorkStealingPool.builder().parallelism(1)
                .taskDecorator(task -> () -> { }).build();
        try {
            Task<String> t = pool.submitWithTimeout(() -> {
                calls.incrementAndGet();
                return "never";
            }, 1, TimeUnit.HOURS, null);
            ExecutionException e = assertThrows(ExecutionException.class, () -> t.get(HANG, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof IllegalStateException, e::toString);
            assertTrue(e.getCause().getMessage().startsWith("taskDecorator did not run the task"),
                    e.getCause().getMessage());
            assertEquals(0, calls.get());
            assertTrue(t.isCompletedAbnormally());
        } finally {
            terminate(pool); // the timer entry went with the task: the pool terminates
        }
    }

    @Test
    void aDecoratorThatReturnsItsTaskCostsNoWrapper() throws Exception {
        WorkStealingPool pool = WorkStealingPool.builder().parallelism(1)
                .taskDecorator(UnaryOperator.identity()).build();
        try {
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch holding = new CountDownLatch(1);
            pool.execute(() -> {
                holding.countDown();
                hold(release);
            });
            await(holding);
            Future<?> f = pool.submit(() -> { });
            List<Runnable> never = pool.shutdownNow();
            assertSame(f, never.get(0));
            release.countDown();
        } finally {
            terminate(pool);
        }
    }

    @Test
    void aNullDecoratorIsRefusedByName() {
        WorkStealingPool.Builder b = WorkStealingPool.builder();
        NullPointerException e = assertThrows(NullPointerException.class, () -> b.taskDecorator(null));
        assertEquals("taskDecorator", e.getMessage());
        assertSame(b, b.taskDecorator(UnaryOperator.identity()));
    }
}
