package io.github.stealpool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Outside threads mix every entry point at once (execute, join, scope, Task fork/join, nested
 * combinations); each leaf of work carries an id, and every id must run exactly once.
 */
class ForkJoinStressTest {

    private static final int THREADS = 4;
    private static final int OPS_PER_THREAD = 4_000;
    private static final int MAX_LEAVES = THREADS * OPS_PER_THREAD * 16;

    private final AtomicIntegerArray runs = new AtomicIntegerArray(MAX_LEAVES);
    private final AtomicInteger ids = new AtomicInteger();

    private Runnable leaf() {
        int id = ids.getAndIncrement();
        return () -> runs.incrementAndGet(id);
    }

    /** A task tree of {@code n} leaves built with fork/join. */
    private final class Leaves extends Task<Integer> {
        final Runnable[] leaves;
        final int lo;
        final int hi;

        Leaves(Runnable[] leaves, int lo, int hi) {
            this.leaves = leaves;
            this.lo = lo;
            this.hi = hi;
        }

        @Override
        protected Integer compute() {
            if (hi - lo == 1) {
                leaves[lo].run();
                return 1;
            }
            int mid = (lo + hi) >>> 1;
            Leaves right = new Leaves(leaves, mid, hi);
            right.fork();
            return new Leaves(leaves, lo, mid).compute() + right.join();
        }
    }

    private int joinTree(WorkStealingPool pool, Runnable[] leaves, int lo, int hi) {
        if (hi - lo == 1) {
            leaves[lo].run();
            return 1;
        }
        int mid = (lo + hi) >>> 1;
        return pool.join(() -> joinTree(pool, leaves, lo, mid), () -> joinTree(pool, leaves, mid, hi), Integer::sum);
    }

    private Runnable[] leaves(int n) {
        Runnable[] r = new Runnable[n];
        for (int i = 0; i < n; i++) {
            r[i] = leaf();
        }
        return r;
    }

    private void oneOperation(WorkStealingPool pool, ThreadLocalRandom rnd) {
        int n = 1 + rnd.nextInt(15);
        switch (rnd.nextInt(5)) {
            case 0:
                pool.execute(leaf());
                break;
            case 1:
                assertEquals(n, joinTree(pool, leaves(n), 0, n));
                break;
            case 2: {
                Runnable[] ls = leaves(n);
                pool.scope(scope -> {
                    for (Runnable l : ls) {
                        scope.spawn(l);
                    }
                });
                break;
            }
            case 3:
                assertEquals(n, pool.invoke(new Leaves(leaves(n), 0, n)));
                break;
            default: {
                // nested: a scope whose tasks join trees
                Runnable[] a = leaves(n);
                Runnable[] b = leaves(n);
                pool.scope(scope -> {
                    scope.spawn(() -> joinTree(pool, a, 0, n));
                    scope.spawn(() -> pool.invoke(new Leaves(b, 0, n)));
                });
                break;
            }
        }
    }

    @ParameterizedTest(name = "parallelism={0}")
    @ValueSource(ints = {1, 2, 5})
    void everyPieceOfWorkRunsExactlyOnce(int parallelism) throws Exception {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(parallelism).build()) {
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                threads.add(new Thread(() -> {
                    ThreadLocalRandom rnd = ThreadLocalRandom.current();
                    try {
                        for (int i = 0; i < OPS_PER_THREAD; i++) {
                            oneOperation(pool, rnd);
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }, "mixer-" + t));
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join(TimeUnit.SECONDS.toMillis(120));
                assertFalse(t.isAlive(), t.getName() + " hung");
            }
        }
        if (failure.get() != null) {
            throw new AssertionError("an operation failed", failure.get());
        }
        int total = ids.get();
        for (int i = 0; i < total; i++) {
            assertEquals(1, runs.get(i), "leaf " + i);
        }
    }
}
