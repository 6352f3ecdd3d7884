package io.github.stealpool.bench;

import io.github.stealpool.WorkStealingPool;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RecursiveTask;
import java.util.concurrent.TimeUnit;
import java.util.function.LongUnaryOperator;
import java.util.stream.LongStream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The range-loop criteria of the work-stealing tree paper (seed 002), each workload run by every
 * contender in the same run:
 * <ul>
 *   <li>{@code sequential}: a plain loop on the benchmark thread;</li>
 *   <li>{@code stealpool}: {@code pool.range(0L, n).reduceLong} on a pool of {@code parallelism} workers;</li>
 *   <li>{@code parallelStream}: {@code LongStream.range(...).parallel()} (the common pool);</li>
 *   <li>{@code forkjoinFixed}: a {@code ForkJoinPool} of {@code parallelism} workers, the range
 *       cut into one equal piece per worker up front (no rebalancing).</li>
 * </ul>
 * Every element runs {@code cost(i)} tokens of {@link Blackhole#consumeCPU}, so work per
 * element is exact and no JIT can shorten it. The workloads (average 64 steps each, 200,000
 * elements): UNIFORM; TRIANGLE, growing linearly; PARABOLA, growing quadratically; EXP, growing
 * exponentially; GAUSSIAN, a bump in the middle; RANDIF, one element in 16 costs 1024 steps at
 * random; STEP, the first and last quarters cost 128 and the middle nothing; TRIMATMUL, the rows
 * of a lower-triangular matrix product; MANDELBROT, the rows of a Mandelbrot image.
 *
 * <p>{@link #c2} is criterion C2; {@link RangeCriteriaBenchmark} has C1 and C3.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class RangeBenchmark {

    static final int N = 200_000;
    static final int MATRIX = 300;
    static final int MANDEL = 400;

    @Param({"UNIFORM", "TRIANGLE", "PARABOLA", "EXP", "GAUSSIAN", "RANDIF", "STEP", "TRIMATMUL", "MANDELBROT"})
    public String workload;

    @Param({"sequential", "stealpool", "parallelStream", "forkjoinFixed"})
    public String impl;

    /** Workers of stealpool and forkjoinFixed (the parallel stream uses the common pool). */
    @Param({"2"})
    public int parallelism;

    private WorkStealingPool ours;
    private ForkJoinPool theirs;
    private LongUnaryOperator element;
    private long elements;
    private double[] a;
    private double[] b;

    @Setup(Level.Trial)
    public void setUp() {
        ours = WorkStealingPool.builder().parallelism(parallelism).daemon(true)
                .idleStrategy(Contender.idleStrategy()).build();
        theirs = new ForkJoinPool(parallelism);
        a = new double[MATRIX * MATRIX];
        b = new double[MATRIX * MATRIX];
        for (int i = 0; i < a.length; i++) {
            a[i] = (i % 17) * 0.5;
            b[i] = (i % 13) * 0.25;
        }
        elements = N;
        switch (workload) {
            case "TRIMATMUL":
                elements = MATRIX;
                element = this::triangularRow;
                break;
            case "MANDELBROT":
                elements = MANDEL;
                element = RangeBenchmark::mandelbrotRow;
                break;
            default:
                element = i -> spin(i, cost(workload, i));
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        ours.shutdownNow();
        theirs.shutdownNow();
        ours.awaitTermination(10, TimeUnit.SECONDS);
        theirs.awaitTermination(10, TimeUnit.SECONDS);
    }

    @Benchmark
    public long c2() {
        return run(impl, elements, element);
    }

    private long run(String how, long n, LongUnaryOperator f) {
        switch (how) {
            case "sequential":
                return sequentialSum(f, 0, n);
            case "stealpool":
                return ours.range(0L, n).reduceLong(0, f, Long::sum);
            case "parallelStream":
                return LongStream.range(0, n).parallel().map(f).sum();
            default:
                return theirs.invoke(new FixedSplit(f, 0, n, n / parallelism + (n % parallelism == 0 ? 0 : 1)));
        }
    }

    /** The plain loop every contender's leaves run: f over [lo, hi), summed. */
    static long sequentialSum(LongUnaryOperator f, long lo, long hi) {
        long sum = 0;
        for (long i = lo; i < hi; i++) {
            sum += f.applyAsLong(i);
        }
        return sum;
    }

    /** A fixed split: halve until a piece is at most one worker's share, then loop. */
    static final class FixedSplit extends RecursiveTask<Long> {
        private static final long serialVersionUID = 1L;
        // ForkJoinTask is Serializable; these tasks never are serialized, and f is not part of a
        // serialized form (javac 21+'s serial lint: a non-serializable type in a serializable class).
        final transient LongUnaryOperator f;
        final long lo;
        final long hi;
        final long share;

        FixedSplit(LongUnaryOperator f, long lo, long hi, long share) {
            this.f = f;
            this.lo = lo;
            this.hi = hi;
            this.share = share;
        }

        @Override
        protected Long compute() {
            if (hi - lo <= share) {
                return sequentialSum(f, lo, hi);
            }
            long mid = lo + share * (((hi - lo) / share) / 2 == 0 ? 1 : ((hi - lo) / share) / 2);
            FixedSplit right = new FixedSplit(f, mid, hi, share);
            right.fork();
            return new FixedSplit(f, lo, mid, share).compute() + right.join();
        }
    }

    // ------------------------------------------------------------------ the workloads

    /** Steps for element i of n = N; every workload averages about 64. */
    static int cost(String workload, long i) {
        double x = (double) i / N;
        switch (workload) {
            case "UNIFORM":
                return 64;
            case "TRIANGLE":
                return (int) (128 * x);
            case "PARABOLA":
                return (int) (192 * x * x);
            case "EXP":
                return (int) (64 * Math.pow(2, 10 * x) * 10 * Math.log(2) / 1023);
            case "GAUSSIAN": {
                double sigma = 0.05;
                double d = (x - 0.5) / sigma;
                return (int) (64 * Math.exp(-d * d / 2) / (sigma * Math.sqrt(2 * Math.PI)));
            }
            case "RANDIF":
                return (mix(i) & 15) == 0 ? 1024 : 0;
            case "STEP":
                return x < 0.25 || x >= 0.75 ? 128 : 0;
            default:
                throw new IllegalArgumentException(workload);
        }
    }

    static long mix(long z) {
        z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
        z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
        return z ^ (z >>> 33);
    }

    /**
     * {@code steps} units of work that no JIT can shorten: JMH's {@link Blackhole#consumeCPU}.
     * (A first version used a multiply-add chain, which JDK 25's C2 partly optimised away, so
     * its figures were not comparable across JDKs.)
     */
    static long spin(long seed, int steps) {
        Blackhole.consumeCPU(steps);
        return seed + steps;
    }

    /** Row i of (lower-triangular A) x B: row i costs i + 1 multiply-adds per column. */
    long triangularRow(long row) {
        int i = (int) row;
        double sum = 0;
        for (int j = 0; j < MATRIX; j++) {
            double c = 0;
            for (int k = 0; k <= i; k++) {
                c += a[i * MATRIX + k] * b[k * MATRIX + j];
            }
            sum += c;
        }
        return (long) sum;
    }

    /** Escape-time iterations summed over row {@code y} of a Mandelbrot image. */
    static long mandelbrotRow(long y) {
        long total = 0;
        double ci = -1.2 + 2.4 * y / MANDEL;
        for (int x = 0; x < MANDEL; x++) {
            double cr = -2.0 + 2.6 * x / MANDEL;
            double zr = 0;
            double zi = 0;
            int it = 0;
            while (it < 1000 && zr * zr + zi * zi <= 4) {
                double t = zr * zr - zi * zi + cr;
                zi = 2 * zr * zi + ci;
                zr = t;
                it++;
            }
            total += it;
        }
        return total;
    }
}
