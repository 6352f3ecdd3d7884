package io.github.stealpool.examples;

import io.github.stealpool.Task;
import io.github.stealpool.WorkStealingPool;
import java.util.concurrent.RecursiveTask;

/**
 * Recursive divide and conquer three ways: Rayon-style {@code pool.join(a, b)}, a {@link Task}
 * port of a {@code RecursiveTask} (the same code with two names changed), and the original on
 * {@code ForkJoinPool} for comparison. Below {@link #CUTOFF} the recursion runs sequentially:
 * a task should carry a few microseconds of work at least.
 */
public final class ForkJoinDemo {

    /** Below this size, split no further. */
    static final int CUTOFF = 16;

    private ForkJoinDemo() {
    }

    public static long fibSequential(int n) {
        return n < 2 ? n : fibSequential(n - 1) + fibSequential(n - 2);
    }

    /** fib(n) with {@code join}: both halves may run in parallel; the caller gets both results. */
    public static long fibJoin(WorkStealingPool pool, int n) {
        if (n < CUTOFF) {
            return fibSequential(n);
        }
        return pool.join(() -> fibJoin(pool, n - 1), () -> fibJoin(pool, n - 2), Long::sum);
    }

    /** The port: {@code extends RecursiveTask<Long>} became {@code extends Task<Long>}. */
    public static final class Fib extends Task<Long> {
        private final int n;

        public Fib(int n) {
            this.n = n;
        }

        @Override
        protected Long compute() {
            if (n < CUTOFF) {
                return fibSequential(n);
            }
            Fib f1 = new Fib(n - 1);
            f1.fork();                                 // pushed on this worker's deque
            return new Fib(n - 2).compute() + f1.join(); // usually taken back and run here
        }
    }

    /** The original, for ForkJoinPool. */
    public static final class FjFib extends RecursiveTask<Long> {
        private static final long serialVersionUID = 1L;
        private final int n;

        public FjFib(int n) {
            this.n = n;
        }

        @Override
        protected Long compute() {
            if (n < CUTOFF) {
                return fibSequential(n);
            }
            FjFib f1 = new FjFib(n - 1);
            f1.fork();
            return new FjFib(n - 2).compute() + f1.join();
        }
    }

    /** Sorts {@code a} with a parallel merge sort built on {@code join}. */
    public static void mergeSort(WorkStealingPool pool, int[] a) {
        int[] tmp = new int[a.length];
        pool.invoke(new Task<Void>() {
            @Override
            protected Void compute() {
                sort(pool, a, tmp, 0, a.length);
                return null;
            }
        });
    }

    private static void sort(WorkStealingPool pool, int[] a, int[] tmp, int lo, int hi) {
        if (hi - lo <= 1 << 12) {
            java.util.Arrays.sort(a, lo, hi); // small ranges: sequential
            return;
        }
        int mid = (lo + hi) >>> 1;
        pool.join(() -> sort(pool, a, tmp, lo, mid), () -> sort(pool, a, tmp, mid, hi));
        System.arraycopy(a, lo, tmp, lo, hi - lo);
        for (int i = lo, l = lo, r = mid; i < hi; i++) {
            a[i] = r >= hi || (l < mid && tmp[l] <= tmp[r]) ? tmp[l++] : tmp[r++];
        }
    }

    public static void main(String[] args) {
        try (WorkStealingPool pool = WorkStealingPool.create()) {
            System.out.println("fib(35) with join:      " + pool.invoke(new Task<Long>() {
                @Override
                protected Long compute() {
                    return fibJoin(pool, 35);
                }
            }));
            System.out.println("fib(35) as a Task port: " + pool.invoke(new Fib(35)));
            int[] a = new java.util.Random(1).ints(2_000_000).toArray();
            mergeSort(pool, a);
            System.out.println("mergesort of 2M ints sorted: " + isSorted(a));
            System.out.println(pool.stats());
        }
    }

    static boolean isSorted(int[] a) {
        for (int i = 1; i < a.length; i++) {
            if (a[i - 1] > a[i]) {
                return false;
            }
        }
        return true;
    }
}
