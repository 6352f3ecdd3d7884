package io.github.stealpool;

import static io.github.stealpool.Rethrown.assertRethrown;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** join(a, b), Task fork/join, scopes: results, failures, depth, nesting. */
class ForkJoinTest {

    private static final long HANG = 60;

    private WorkStealingPool pool;

    private WorkStealingPool pool(int parallelism) {
        pool = WorkStealingPool.builder().parallelism(parallelism).build();
        return pool;
    }

    @AfterEach
    void tearDown() throws Exception {
        if (pool != null) {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(HANG, TimeUnit.SECONDS), "pool did not terminate");
        }
    }

    // ------------------------------------------------------------------ the algorithms

    static long fibSequential(int n) {
        return n < 2 ? n : fibSequential(n - 1) + fibSequential(n - 2);
    }

    /** The RecursiveTask port: fork one half, compute the other, join. No cutoff. */
    static final class Fib extends Task<Long> {
        final int n;

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

    static long fibJoin(WorkStealingPool pool, int n) {
        return n < 2 ? n : pool.join(() -> fibJoin(pool, n - 1), () -> fibJoin(pool, n - 2), Long::sum);
    }

    static void mergeSort(WorkStealingPool pool, int[] a, int[] tmp, int lo, int hi) {
        if (hi - lo < 2) {
            return;
        }
        int mid = (lo + hi) >>> 1;
        pool.join(() -> mergeSort(pool, a, tmp, lo, mid), () -> mergeSort(pool, a, tmp, mid, hi));
        System.arraycopy(a, lo, tmp, lo, hi - lo);
        for (int i = lo, l = lo, r = mid; i < hi; i++) {
            a[i] = r >= hi || (l < mid && tmp[l] <= tmp[r]) ? tmp[l++] : tmp[r++];
        }
    }

    /** A binary tree node. */
    static final class Node {
        final long value;
        final Node left;
        final Node right;

        Node(long value, Node left, Node right) {
            this.value = value;
            this.left = left;
            this.right = right;
        }
    }

    static Node randomTree(Random rnd, int depth) {
        if (depth == 0 || rnd.nextInt(10) == 0) {
            return null;
        }
        return new Node(rnd.nextInt(1000), randomTree(rnd, depth - 1), randomTree(rnd, depth - 1));
    }

    static long sumSequential(Node n) {
        return n == null ? 0 : n.value + sumSequential(n.left) + sumSequential(n.right);
    }

    static final class TreeSum extends Task<Long> {
        final Node node;

        TreeSum(Node node) {
            this.node = node;
        }

        @Override
        protected Long compute() {
            if (node == null) {
                return 0L;
            }
            TreeSum left = new TreeSum(node.left);
            TreeSum right = new TreeSum(node.right);
            invokeAll(left, right);
            return node.value + left.join() + right.join();
        }
    }

    static int queensSequential(int n, int row, int cols, int d1, int d2) {
        if (row == n) {
            return 1;
        }
        int count = 0;
        for (int c = 0; c < n; c++) {
            if ((cols & 1 << c) == 0 && (d1 & 1 << (row + c)) == 0 && (d2 & 1 << (row - c + n)) == 0) {
                count += queensSequential(n, row + 1, cols | 1 << c, d1 | 1 << (row + c), d2 | 1 << (row - c + n));
            }
        }
        return count;
    }

    /** N-queens with a scope: one spawned task per placement of the first two rows. */
    static long queensScope(WorkStealingPool pool, int n) {
        LongAdder total = new LongAdder();
        pool.scope(scope -> {
            for (int c0 = 0; c0 < n; c0++) {
                int a = c0;
                scope.spawn(() -> {
                    for (int c1 = 0; c1 < n; c1++) {
                        int b = c1;
                        if (Math.abs(a - b) > 1) {
                            scope.spawn(() -> total.add(queensSequential(n, 2, 1 << a | 1 << b,
                                    1 << a | 1 << (1 + b), 1 << (-a + n) | 1 << (1 - b + n))));
                        }
                    }
                });
            }
        });
        return total.sum();
    }

    @ParameterizedTest(name = "parallelism={0}")
    @ValueSource(ints = {1, 2, 3, 8})
    void resultsEqualTheSequentialOnes(int parallelism) {
        WorkStealingPool p = pool(parallelism);
        assertEquals(fibSequential(24), p.invoke(new Fib(24)));
        assertEquals(fibSequential(24), fibJoin(p, 24));

        int[] data = new Random(42).ints(200_000).toArray();
        int[] expected = data.clone();
        Arrays.sort(expected);
        int[] sorted = data.clone();
        mergeSort(p, sorted, new int[sorted.length], 0, sorted.length);
        assertArrayEquals(expected, sorted);

        Node tree = randomTree(new Random(7), 18);
        assertEquals(sumSequential(tree), p.invoke(new TreeSum(tree)));

        assertEquals(queensSequential(9, 0, 0, 0, 0), queensScope(p, 9));
    }

    @Test
    void fromOutsideThePoolEachEntryPointBlocksUntilDone() throws Exception {
        WorkStealingPool p = pool(2);
        assertEquals(55L, (long) p.join(() -> fibSequential(9), () -> fibSequential(8), Long::sum));
        AtomicInteger both = new AtomicInteger();
        p.join(both::incrementAndGet, both::incrementAndGet);
        assertEquals(2, both.get());
        assertEquals(fibSequential(15), p.invoke(new Fib(15)));
        Task<Long> f = p.submit(new Fib(15));
        assertEquals(fibSequential(15), f.get(HANG, TimeUnit.SECONDS));
        assertEquals(fibSequential(15), f.join());
    }

    /** Off any pool they run in the common pool (CommonPoolTest says where), as ForkJoinTask's do. */
    @Test
    void forkInvokeAndInvokeAllOffThePoolRunInTheCommonPool() {
        assertEquals(fibSequential(15), new Fib(15).fork().join());
        assertEquals(fibSequential(16), new Fib(16).invoke());
        Fib a = new Fib(17);
        Fib b = new Fib(18);
        Task.invokeAll(a, b);
        assertEquals(fibSequential(17), a.join());
        assertEquals(fibSequential(18), b.join());
    }

    @Test
    void nullArgumentsAreRejectedNamingTheArgument() {
        WorkStealingPool p = pool(1);
        assertEquals("a", assertThrows(NullPointerException.class, () -> p.join(null, () -> 1, (x, y) -> 1)).getMessage());
        assertEquals("b", assertThrows(NullPointerException.class, () -> p.join(() -> 1, null, (x, y) -> 1)).getMessage());
        assertEquals("combine", assertThrows(NullPointerException.class, () -> p.join(() -> 1, () -> 1, null)).getMessage());
        assertEquals("a", assertThrows(NullPointerException.class, () -> p.join(null, () -> { })).getMessage());
        assertEquals("task", assertThrows(NullPointerException.class, () -> p.invoke((Task<?>) null)).getMessage());
        assertEquals("task", assertThrows(NullPointerException.class, () -> p.submit((Task<?>) null)).getMessage());
        assertEquals("body", assertThrows(NullPointerException.class, () -> p.scope(null)).getMessage());
        assertThrows(NullPointerException.class, () -> Task.invokeAll((Task<?>[]) null));
        assertEquals("failure", assertThrows(NullPointerException.class, () -> new Fib(1).completeExceptionally(null)).getMessage());
        p.scope(scope -> assertEquals("task", assertThrows(NullPointerException.class, () -> scope.spawn((Runnable) null)).getMessage()));
        p.scope(scope -> assertEquals("task", assertThrows(NullPointerException.class,
                () -> scope.spawn((java.util.concurrent.Callable<Integer>) null)).getMessage()));
    }

    // ------------------------------------------------------------------ failures

    @ParameterizedTest(name = "parallelism={0}")
    @ValueSource(ints = {1, 2})
    void joinRethrowsEachSidesFailureWithItsClass(int parallelism) {
        WorkStealingPool p = pool(parallelism);
        IllegalStateException fromA = new IllegalStateException("a");
        IllegalArgumentException fromB = new IllegalArgumentException("b");
        assertRethrown(fromA, assertThrows(IllegalStateException.class,
                () -> p.join(() -> { throw fromA; }, () -> 1, (x, y) -> 1)));
        assertRethrown(fromB, assertThrows(IllegalArgumentException.class,
                () -> p.join(() -> 1, () -> { throw fromB; }, (x, y) -> 1)));
        StackOverflowError error = new StackOverflowError("b");
        assertRethrown(error, assertThrows(StackOverflowError.class, () -> p.join(() -> { }, () -> { throw error; })));
        // Inside the pool too.
        assertRethrown(fromB, assertThrows(IllegalArgumentException.class, () -> p.invoke(new Task<Integer>() {
            @Override
            protected Integer compute() {
                return p.join(() -> 1, () -> { throw fromB; }, Integer::sum);
            }
        })));
    }

    @Test
    void whenBothSidesFailTheSecondIsSuppressedAndAStolenSideIsAwaited() throws Exception {
        WorkStealingPool p = pool(2);
        for (int i = 0; i < 50; i++) {
            AtomicBoolean bFinished = new AtomicBoolean();
            CountDownLatch bStarted = new CountDownLatch(1);
            RuntimeException fromA = new RuntimeException("a");
            RuntimeException fromB = new RuntimeException("b");
            RuntimeException thrown = assertThrows(RuntimeException.class, () -> p.join(() -> {
                // Give the other worker time to steal b; then fail.
                try {
                    bStarted.await(HANG, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                throw fromA;
            }, () -> {
                bStarted.countDown();
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                bFinished.set(true);
                throw fromB;
            }, (x, y) -> null));
            assertRethrown(fromA, thrown);
            assertTrue(bFinished.get(), "join returned while b was still running");
            assertEquals(List.of(fromB), Arrays.asList(fromA.getSuppressed()));
        }
    }

    @Test
    void aTaskThatFailedRethrowsWithItsClassOrWrappedIfChecked() {
        WorkStealingPool p = pool(2);
        IllegalStateException unchecked = new IllegalStateException("x");
        Task<Integer> failing = new Task<>() {
            @Override
            protected Integer compute() {
                throw unchecked;
            }
        };
        assertRethrown(unchecked, assertThrows(IllegalStateException.class, () -> p.invoke(failing)));
        assertRethrown(unchecked, assertThrows(IllegalStateException.class, failing::join));
        assertSame(unchecked, assertThrows(ExecutionException.class, failing::get).getCause());
        assertTrue(failing.isCompletedAbnormally());
        assertSame(unchecked, failing.getException());

        Fib checked = new Fib(5);
        IOException io = new IOException("disk");
        assertTrue(checked.completeExceptionally(io));
        assertSame(io, assertThrows(CompletionException.class, checked::join).getCause());
        assertSame(io, assertThrows(ExecutionException.class, checked::get).getCause());
    }

    @Test
    void invokeAllWaitsForEveryTaskAndReportsTheFirstFailure() {
        WorkStealingPool p = pool(2);
        RuntimeException first = new RuntimeException("first");
        RuntimeException second = new RuntimeException("second");
        AtomicBoolean slowDone = new AtomicBoolean();
        RuntimeException thrown = assertThrows(RuntimeException.class, () -> p.invoke(new Task<Void>() {
            @Override
            protected Void compute() {
                Task.invokeAll(failWith(first), new Task<Void>() {
                    @Override
                    protected Void compute() {
                        fibSequential(25);
                        slowDone.set(true);
                        return null;
                    }
                }, failWith(second));
                return null;
            }
        }));
        assertRethrown(first, thrown);
        assertTrue(slowDone.get());
        assertEquals(List.of(second), Arrays.asList(first.getSuppressed()));
    }

    private static Task<Void> failWith(RuntimeException e) {
        return new Task<>() {
            @Override
            protected Void compute() {
                throw e;
            }
        };
    }

    @Test
    void aFailedScopeWaitsForItsOtherTasksThenRethrows() {
        WorkStealingPool p = pool(2);
        AtomicInteger finished = new AtomicInteger();
        IllegalStateException boom = new IllegalStateException("spawned");
        IllegalStateException thrown = assertThrows(IllegalStateException.class, () -> p.scope(scope -> {
            for (int i = 0; i < 20; i++) {
                scope.spawn(() -> {
                    fibSequential(20);
                    finished.incrementAndGet();
                });
            }
            scope.spawn(() -> {
                throw boom;
            });
        }));
        assertRethrown(boom, thrown);
        assertEquals(20, finished.get(), "scope rethrew before its other tasks finished");

        IllegalArgumentException bodyFailure = new IllegalArgumentException("body");
        AtomicBoolean spawnedRan = new AtomicBoolean();
        IllegalArgumentException fromBody = assertThrows(IllegalArgumentException.class, () -> p.scope(scope -> {
            scope.spawn(() -> {
                fibSequential(22);
                spawnedRan.set(true);
                throw boom;
            });
            throw bodyFailure;
        }));
        assertRethrown(bodyFailure, fromBody);
        assertTrue(spawnedRan.get());
        assertSame(boom, bodyFailure.getSuppressed()[0]);
    }

    @Test
    void scopesWaitForTasksSpawnedByTasksAndCloseAfterwards() {
        WorkStealingPool p = pool(3);
        LongAdder ran = new LongAdder();
        Scope[] leaked = new Scope[1];
        p.scope(scope -> {
            leaked[0] = scope;
            for (int i = 0; i < 10; i++) {
                scope.spawn(() -> {
                    for (int j = 0; j < 10; j++) {
                        scope.spawn(() -> {
                            fibSequential(12);
                            ran.increment();
                        });
                    }
                });
            }
        });
        assertEquals(100, ran.sum());
        assertThrows(IllegalStateException.class, () -> leaked[0].spawn(() -> { }));
    }

    // ------------------------------------------------------------------ cancellation, completion

    /** Keeps a one-worker pool's worker busy until {@code hold} opens, so tasks stay queued. */
    private static void holdTheOnlyWorker(WorkStealingPool p, CountDownLatch hold) {
        p.execute(() -> {
            try {
                hold.await(HANG, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    @Test
    void aCancelledTaskNeverRunsAndJoinThrowsCancellationException() throws Exception {
        WorkStealingPool p = pool(1);
        AtomicBoolean ran = new AtomicBoolean();
        CountDownLatch hold = new CountDownLatch(1);
        holdTheOnlyWorker(p, hold);
        Task<Integer> t = p.submit(new Task<>() {
            @Override
            protected Integer compute() {
                ran.set(true);
                return 1;
            }
        });
        assertTrue(t.cancel(true));
        assertFalse(t.cancel(true), "cancel succeeds once");
        assertTrue(t.isCancelled());
        assertTrue(t.isDone());
        assertThrows(CancellationException.class, t::join);
        assertThrows(CancellationException.class, t::get);
        hold.countDown();
        assertEquals(2, p.submit(() -> 2).get(HANG, TimeUnit.SECONDS));
        assertFalse(ran.get());
        assertFalse(t.complete(3), "a cancelled task stays cancelled");
    }

    @Test
    void aQueuedTaskCanBeCompletedByHandAndAwaitedFromOutsideThePool() throws Exception {
        WorkStealingPool p = pool(1);
        CountDownLatch hold = new CountDownLatch(1);
        holdTheOnlyWorker(p, hold);
        Fib t = new Fib(50);
        p.submit(t); // queued behind the blocker: completed by hand, never run
        CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(t::join);
        assertThrows(TimeoutException.class, () -> t.get(50, TimeUnit.MILLISECONDS));
        assertTrue(t.complete(7L));
        assertEquals(7L, waiter.get(HANG, TimeUnit.SECONDS));
        assertEquals(7L, t.get());
        assertTrue(t.isCompletedNormally());
        assertNull(t.getException());
        assertThrows(NullPointerException.class, () -> t.get(1, null));
        hold.countDown();
        assertEquals(3, p.submit(() -> 3).get(HANG, TimeUnit.SECONDS)); // ran t's turn: a no-op
        assertEquals(7L, t.join());
    }

    @Test
    void completableFuturesRunOnThePool() throws Exception {
        WorkStealingPool p = pool(2);
        CompletableFuture<Long> f = CompletableFuture.supplyAsync(() -> fibJoin(p, 20), p)
                .thenApplyAsync(x -> x + 1, p);
        assertEquals(fibSequential(20) + 1, f.get(HANG, TimeUnit.SECONDS));
    }

    // ------------------------------------------------------------------ depth

    static final class Spine extends Task<Long> {
        final int depth;

        Spine(int depth) {
            this.depth = depth;
        }

        @Override
        protected Long compute() {
            if (depth == 0) {
                return 1L;
            }
            Spine rest = new Spine(depth - 1);
            rest.fork();
            Task<Long> leaf = new Task<>() {
                @Override
                protected Long compute() {
                    return 1L;
                }
            };
            return leaf.invoke() + rest.join();
        }
    }

    @ParameterizedTest(name = "parallelism={0}")
    @ValueSource(ints = {1, 2, 8})
    void deepRecursionFinishesWithoutStackOverflow(int parallelism) {
        WorkStealingPool p = pool(parallelism);
        assertEquals(fibSequential(32), p.invoke(new Fib(32))); // no sequential cutoff
        assertEquals(10_001L, p.invoke(new Spine(10_000)));      // one spine 10,000 deep
        int[] data = new Random(parallelism).ints(10_000_000).toArray();
        int[] expected = data.clone();
        Arrays.sort(expected);
        mergeSort(p, data, new int[data.length], 0, data.length); // no cutoff either
        assertArrayEquals(expected, data);
    }

    @Test
    void fib35WithoutCutoff() {
        assertEquals(9_227_465L, pool(2).invoke(new Fib(35)));
    }

    /**
     * Regression (review of the fork/join change): children forked in bulk, each joining one
     * slow shared task, used to nest one wait per child on the joiner's stack (300,000 deep
     * overflowed it, and the overflow lost jobs). Past the help bound a waiter now runs only its
     * own forks, so nesting stays bounded.
     */
    @Test
    void manyChildrenWaitingOnOneSlowTaskDoNotNestWithoutBound() throws Exception {
        WorkStealingPool p = pool(2);
        int n = 300_000;
        CountDownLatch sharedStarted = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Task<Integer> shared = p.submit(new Task<>() {
            @Override
            protected Integer compute() {
                sharedStarted.countDown();
                try {
                    release.await(HANG, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return 1;
            }
        });
        assertTrue(sharedStarted.await(HANG, TimeUnit.SECONDS));
        int[] deepest = new int[1];
        ThreadLocal<int[]> depth = ThreadLocal.withInitial(() -> new int[1]);
        Task<Long> outer = p.submit(new Task<>() {
            @Override
            protected Long compute() {
                Task<?>[] children = new Task<?>[n];
                for (int i = 0; i < n; i++) {
                    children[i] = new Task<Integer>() {
                        @Override
                        protected Integer compute() {
                            int[] d = depth.get();
                            d[0]++;
                            synchronized (deepest) {
                                deepest[0] = Math.max(deepest[0], d[0]);
                            }
                            try {
                                return shared.join();
                            } finally {
                                d[0]--;
                            }
                        }
                    }.fork();
                }
                release.countDown();
                long sum = 0;
                for (Task<?> c : children) {
                    sum += (Integer) c.join();
                }
                return sum;
            }
        });
        assertEquals(n, outer.get(HANG, TimeUnit.SECONDS));
        assertTrue(deepest[0] <= 64, "nested waits: " + deepest[0]);
    }

    /**
     * Regression: a joiner asleep in the idle protocol could take the wake-up meant for a new
     * job, then leave because its own latch was set, and the job sat queued while the other
     * worker slept. A joiner that slept now passes the wake-up on.
     */
    @Test
    void aWakeUpTakenByAJoinerIsPassedOn() throws Exception {
        WorkStealingPool p = pool(2);
        for (int trial = 0; trial < 30; trial++) {
            Fib never = new Fib(40); // completed by hand, never run
            CountDownLatch jobRan = new CountDownLatch(1);
            CountDownLatch joinerDone = new CountDownLatch(1);
            AtomicBoolean jobSeenWhileJoinerWaited = new AtomicBoolean();
            p.execute(() -> {
                never.join();
                try {
                    // The joiner waits here for the job instead of looking for it itself.
                    jobSeenWhileJoinerWaited.set(jobRan.await(HANG, TimeUnit.SECONDS));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                joinerDone.countDown();
            });
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(HANG))
                    .until(() -> p.sleepingWorkers() == 2);
            p.execute(jobRan::countDown);
            never.complete(1L);
            assertTrue(joinerDone.await(HANG * 2, TimeUnit.SECONDS));
            assertTrue(jobSeenWhileJoinerWaited.get(), "trial " + trial + ": the job never ran");
        }
    }

    /**
     * A join whose fork was stolen helps the thief: it takes what the thief forked. Here the
     * thief waits, outside the pool's protocol, for the one task it forked, and the joiner is
     * the only other worker, so the join returns only if the joiner runs that task itself.
     */
    @Test
    void aJoinerWhoseForkWasStolenRunsWhatTheThiefForked() throws Exception {
        WorkStealingPool p = pool(2);
        for (int trial = 0; trial < 20; trial++) {
            AtomicReference<Thread> joiner = new AtomicReference<>();
            AtomicReference<Thread> helperRanOn = new AtomicReference<>();
            CountDownLatch stolenStarted = new CountDownLatch(1);
            CountDownLatch helperRan = new CountDownLatch(1);
            Task<Boolean> helper = new Task<>() {
                @Override
                protected Boolean compute() {
                    helperRanOn.set(Thread.currentThread());
                    helperRan.countDown();
                    return true;
                }
            };
            Task<Boolean> stolen = new Task<>() {
                @Override
                protected Boolean compute() {
                    stolenStarted.countDown();
                    helper.fork(); // onto the thief's deque, then the thief waits for it
                    try {
                        return helperRan.await(HANG, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return false;
                    }
                }
            };
            Task<Boolean> root = new Task<>() {
                @Override
                protected Boolean compute() {
                    joiner.set(Thread.currentThread());
                    stolen.fork();
                    try {
                        // Until the other worker has taken the fork: then the join must help.
                        assertTrue(stolenStarted.await(HANG, TimeUnit.SECONDS), "the fork was never stolen");
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return stolen.join();
                }
            };
            assertTrue(p.submit(root).get(HANG, TimeUnit.SECONDS), "trial " + trial);
            assertSame(joiner.get(), helperRanOn.get(), "trial " + trial + ": the joiner ran the thief's fork");
        }
    }

    /** Regression: a worker asleep inside Future.get() ignored cancel(true) until the wait ended. */
    @Test
    void aWorkerWaitingInGetIsInterruptedByCancel() throws Exception {
        WorkStealingPool p = pool(2);
        CountDownLatch innerStarted = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Future<Integer> inner = p.submit(() -> {
            innerStarted.countDown();
            release.await(HANG, TimeUnit.SECONDS);
            return 1;
        });
        assertTrue(innerStarted.await(HANG, TimeUnit.SECONDS));
        CompletableFuture<String> outcome = new CompletableFuture<>();
        CountDownLatch outerWaiting = new CountDownLatch(1);
        Future<?> outer = p.submit(() -> {
            outerWaiting.countDown();
            try {
                inner.get();
                outcome.complete("returned");
            } catch (InterruptedException e) {
                outcome.complete("interrupted");
            } catch (Exception e) {
                outcome.complete(e.toString());
            }
        });
        assertTrue(outerWaiting.await(HANG, TimeUnit.SECONDS));
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(HANG))
                .until(() -> p.sleepingWorkers() == 1); // asleep inside get()
        outer.cancel(true);
        assertEquals("interrupted", outcome.get(HANG, TimeUnit.SECONDS), "inner is still blocked: only the interrupt can end the wait");
        release.countDown();
    }

    // ------------------------------------------------------------------ nesting

    @Test
    void nestedUseDoesNotDeadlockEvenWithOneWorker() throws Exception {
        WorkStealingPool p = pool(1);
        // join inside a task submitted with submit
        assertEquals(fibSequential(18), p.submit(() -> fibJoin(p, 18)).get(HANG, TimeUnit.SECONDS));
        // scope inside a join
        LongAdder n = new LongAdder();
        p.join(() -> p.scope(s -> {
            for (int i = 0; i < 100; i++) {
                s.spawn(n::increment);
            }
        }), n::increment);
        assertEquals(101, n.sum());
        // a blocking Future.get() on one pool task from another: the waiter runs it itself
        Future<Integer> outer = p.submit(() -> {
            Future<Integer> inner = p.submit(() -> 41);
            return inner.get() + 1;
        });
        assertEquals(42, outer.get(HANG, TimeUnit.SECONDS));
        // and a Task's get() from inside another task
        assertEquals(fibSequential(10), p.submit(() -> p.submit(new Fib(10)).get()).get(HANG, TimeUnit.SECONDS));
    }

    @Test
    void aGetFromAnotherWorkerWaitsWhileTheTaskRunsElsewhere() throws Exception {
        WorkStealingPool p = pool(2);
        CountDownLatch innerStarted = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Future<Integer> inner = p.submit(() -> {
            innerStarted.countDown();
            release.await(HANG, TimeUnit.SECONDS);
            return 5;
        });
        assertTrue(innerStarted.await(HANG, TimeUnit.SECONDS));
        Future<Integer> outer = p.submit(() -> inner.get() * 2); // parks in the idle protocol
        Thread.sleep(20);
        assertFalse(outer.isDone());
        release.countDown();
        assertEquals(10, outer.get(HANG, TimeUnit.SECONDS));
    }

    @Test
    void shutdownNowCancelsForkJoinWorkAndThePoolTerminates() throws Exception {
        WorkStealingPool p = pool(2);
        Future<Long> f = p.submit(() -> fibJoin(p, 45)); // far too long to finish
        Thread.sleep(50);
        List<Runnable> returned = p.shutdownNow();
        assertTrue(p.awaitTermination(HANG, TimeUnit.SECONDS), "fork/join work kept the pool alive");
        for (Runnable r : returned) {
            assertFalse(r instanceof Task, "fork/join pieces are cancelled, not handed back");
        }
        assertTrue(f.isDone() || returned.contains(f));
        pool = null;
    }
}
