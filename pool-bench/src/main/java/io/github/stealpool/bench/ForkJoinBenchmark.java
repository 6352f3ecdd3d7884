package io.github.stealpool.bench;

import io.github.stealpool.Task;
import io.github.stealpool.WorkStealingPool;
import java.util.Random;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveAction;
import java.util.concurrent.RecursiveTask;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Suite 2, divide and conquer, the same algorithm on each pool in the same run: fib(30) with no
 * sequential cutoff (1.6 million tasks, so almost pure scheduling overhead), fib(30) with a
 * cutoff, a recursive merge sort of a million ints with no cutoff, and the cost of one
 * fork/join pair. {@code stealpool} runs the {@link Task} port of the {@code RecursiveTask}
 * code, {@code stealpool-join} the Rayon-style {@code pool.join(a, b)}, {@code forkjoin} and
 * {@code forkjoin-async} the JDK's {@link ForkJoinPool} (LIFO and asyncMode) with
 * {@link RecursiveTask}. Parallelism is the machine's core count for all.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class ForkJoinBenchmark {

    @Param({"stealpool", "stealpool-join", "forkjoin", "forkjoin-async"})
    public String pool;

    private WorkStealingPool ours;
    private ForkJoinPool theirs;

    private int[] input;
    private int[] work;
    private int[] tmp;

    @Setup(Level.Trial)
    public void setUp() {
        int parallelism = Runtime.getRuntime().availableProcessors();
        if (pool.startsWith("stealpool")) {
            ours = WorkStealingPool.builder().parallelism(parallelism).daemon(true)
                    .idleStrategy(Contender.idleStrategy()).build();
        } else {
            theirs = (ForkJoinPool) Contender.of(pool).create(parallelism);
        }
        input = new Random(42).ints(1_000_000).toArray();
        work = new int[input.length];
        tmp = new int[input.length];
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        if (ours != null) {
            ours.shutdownNow();
            ours.awaitTermination(10, TimeUnit.SECONDS);
        }
        if (theirs != null) {
            theirs.shutdownNow();
            theirs.awaitTermination(10, TimeUnit.SECONDS);
        }
    }

    @Benchmark
    public long fib30() {
        switch (pool) {
            case "stealpool":
                return ours.invoke(new Fib(30));
            case "stealpool-join":
                return ours.invoke(new Task<Long>() {
                    @Override
                    protected Long compute() {
                        return fibJoin(ours, 30);
                    }
                });
            default:
                return theirs.invoke(new FjFib(30));
        }
    }

    /** fib(30) with the recursion made sequential below {@link #CUTOFF}: coarse tasks. */
    @Benchmark
    public long fib30Cutoff() {
        switch (pool) {
            case "stealpool":
                return ours.invoke(new Fib(30, CUTOFF));
            case "stealpool-join":
                return ours.invoke(new Task<Long>() {
                    @Override
                    protected Long compute() {
                        return fibJoin(ours, 30, CUTOFF);
                    }
                });
            default:
                return theirs.invoke(new FjFib(30, CUTOFF));
        }
    }

    /**
     * The cost of one fork/join pair that nobody steals: inside one task, {@link #JOINS} times
     * fork a trivial task, compute another, join the first. Reported per join, in ns.
     */
    @Benchmark
    @OperationsPerInvocation(JOINS)
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    public long joinOverhead() {
        switch (pool) {
            case "stealpool":
                return ours.invoke(new Task<Long>() {
                    @Override
                    protected Long compute() {
                        long sum = 0;
                        for (int i = 0; i < JOINS; i++) {
                            Fib a = new Fib(1);
                            a.fork();
                            sum += new Fib(1).compute() + a.join();
                        }
                        return sum;
                    }
                });
            case "stealpool-join":
                return ours.invoke(new Task<Long>() {
                    @Override
                    protected Long compute() {
                        long sum = 0;
                        for (int i = 0; i < JOINS; i++) {
                            sum += ours.join(() -> 1L, () -> 1L, Long::sum);
                        }
                        return sum;
                    }
                });
            default:
                return theirs.invoke(new RecursiveTask<Long>() {
                    private static final long serialVersionUID = 1L;

                    @Override
                    protected Long compute() {
                        long sum = 0;
                        for (int i = 0; i < JOINS; i++) {
                            FjFib a = new FjFib(1);
                            a.fork();
                            sum += new FjFib(1).compute() + a.join();
                        }
                        return sum;
                    }
                });
        }
    }

    @Benchmark
    public int mergeSort1M() {
        System.arraycopy(input, 0, work, 0, input.length);
        switch (pool) {
            case "stealpool":
                ours.invoke(new Sort(work, tmp, 0, work.length));
                break;
            case "stealpool-join":
                ours.invoke(new Task<Void>() {
                    @Override
                    protected Void compute() {
                        sortJoin(ours, work, tmp, 0, work.length);
                        return null;
                    }
                });
                break;
            default:
                theirs.invoke(new FjSort(work, tmp, 0, work.length));
        }
        return work[work.length / 2];
    }

    // ------------------------------------------------------------------ fib

    /** Below this n, fib30Cutoff computes sequentially (about 250 tasks of ~10 us each). */
    static final int CUTOFF = 18;
    /** Fork/join pairs per joinOverhead operation. */
    static final int JOINS = 10_000;

    static long sequentialFib(int n) {
        return n < 2 ? n : sequentialFib(n - 1) + sequentialFib(n - 2);
    }

    static final class Fib extends Task<Long> {
        final int n;
        final int cutoff;

        Fib(int n) {
            this(n, 2);
        }

        Fib(int n, int cutoff) {
            this.n = n;
            this.cutoff = cutoff;
        }

        @Override
        protected Long compute() {
            if (n < cutoff) {
                return sequentialFib(n);
            }
            Fib f1 = new Fib(n - 1, cutoff);
            f1.fork();
            return new Fib(n - 2, cutoff).compute() + f1.join();
        }
    }

    static long fibJoin(WorkStealingPool pool, int n) {
        return fibJoin(pool, n, 2);
    }

    static long fibJoin(WorkStealingPool pool, int n, int cutoff) {
        return n < cutoff ? sequentialFib(n)
                : pool.join(() -> fibJoin(pool, n - 1, cutoff), () -> fibJoin(pool, n - 2, cutoff), Long::sum);
    }

    static final class FjFib extends RecursiveTask<Long> {
        private static final long serialVersionUID = 1L;
        final int n;
        final int cutoff;

        FjFib(int n) {
            this(n, 2);
        }

        FjFib(int n, int cutoff) {
            this.n = n;
            this.cutoff = cutoff;
        }

        @Override
        protected Long compute() {
            if (n < cutoff) {
                return sequentialFib(n);
            }
            FjFib f1 = new FjFib(n - 1, cutoff);
            f1.fork();
            return new FjFib(n - 2, cutoff).compute() + f1.join();
        }
    }

    // ------------------------------------------------------------------ merge sort

    static void merge(int[] a, int[] tmp, int lo, int mid, int hi) {
        System.arraycopy(a, lo, tmp, lo, hi - lo);
        for (int i = lo, l = lo, r = mid; i < hi; i++) {
            a[i] = r >= hi || (l < mid && tmp[l] <= tmp[r]) ? tmp[l++] : tmp[r++];
        }
    }

    static final class Sort extends Task<Void> {
        final int[] a;
        final int[] tmp;
        final int lo;
        final int hi;

        Sort(int[] a, int[] tmp, int lo, int hi) {
            this.a = a;
            this.tmp = tmp;
            this.lo = lo;
            this.hi = hi;
        }

        @Override
        protected Void compute() {
            if (hi - lo < 2) {
                return null;
            }
            int mid = (lo + hi) >>> 1;
            Sort right = new Sort(a, tmp, mid, hi);
            right.fork();
            new Sort(a, tmp, lo, mid).compute();
            right.join();
            merge(a, tmp, lo, mid, hi);
            return null;
        }
    }

    static void sortJoin(WorkStealingPool pool, int[] a, int[] tmp, int lo, int hi) {
        if (hi - lo < 2) {
            return;
        }
        int mid = (lo + hi) >>> 1;
        pool.join(() -> sortJoin(pool, a, tmp, lo, mid), () -> sortJoin(pool, a, tmp, mid, hi));
        merge(a, tmp, lo, mid, hi);
    }

    static final class FjSort extends RecursiveAction {
        private static final long serialVersionUID = 1L;
        final int[] a;
        final int[] tmp;
        final int lo;
        final int hi;

        FjSort(int[] a, int[] tmp, int lo, int hi) {
            this.a = a;
            this.tmp = tmp;
            this.lo = lo;
            this.hi = hi;
        }

        @Override
        protected void compute() {
            if (hi - lo < 2) {
                return;
            }
            int mid = (lo + hi) >>> 1;
            FjSort right = new FjSort(a, tmp, mid, hi);
            right.fork();
            new FjSort(a, tmp, lo, mid).compute();
            right.join();
            merge(a, tmp, lo, mid, hi);
        }
    }
}
