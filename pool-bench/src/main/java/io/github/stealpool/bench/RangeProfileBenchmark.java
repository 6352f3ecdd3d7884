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

/**
 * Cost profiles that defeat naive batch policies (issue 14), each run by every contender in the
 * same run, at parallelism 2 and 8:
 * <ul>
 *   <li>{@code sequential}: a plain loop on the benchmark thread (the speed-up baseline);</li>
 *   <li>{@code stealpool}: {@code pool.range(0L, n).reduceLong} on a pool of {@code parallelism} workers;</li>
 *   <li>{@code forkjoin64}: a {@code ForkJoinPool} of {@code parallelism} workers halving the
 *       range down to leaves of at most 64 indexes (the classic hand-written divide and
 *       conquer);</li>
 *   <li>{@code parallelStream}: {@code LongStream.range(...).parallel()} run inside a
 *       {@code ForkJoinPool} of {@code parallelism} workers, so it gets as many threads as the
 *       others (the common pool would give it {@code cores - 1} plus the caller);</li>
 *   <li>{@code fixedSplit}: the same pool, the range cut into one equal piece per worker.</li>
 * </ul>
 * {@value #N} indexes; every index costs {@code cost(i)} tokens of JMH's {@code consumeCPU}
 * (exact, and no JIT can shorten it); {@value #EXPENSIVE} tokens are some tens of microseconds.
 * The profiles:
 * <ul>
 *   <li>CHEAP_THEN_EXPENSIVE: the first three quarters cost {@value #CHEAP}, the last quarter
 *       {@value #EXPENSIVE}. A policy whose batches grow over the cheap stretch claims a large
 *       batch of expensive indexes that nobody can split.</li>
 *   <li>EXPENSIVE_THEN_CHEAP: the mirror image.</li>
 *   <li>HOT_INDEX: every index costs {@value #UNIFORM}, the one in the middle as much as an
 *       eighth of all the others together.</li>
 *   <li>SPARSE_SPIKES: one index in 64, at random, costs {@value #SPIKE}, the others
 *       {@value #CHEAP}.</li>
 *   <li>RAMP: cost grows smoothly from 0 to {@code 2 x }{@value #UNIFORM} across the range.</li>
 *   <li>MIDDLE_STRETCH: indexes {@code [N/8, 3N/16)} cost {@value #EXPENSIVE}, the rest
 *       {@value #CHEAP}. With 2 workers the first part's batches have grown over the cheap
 *       eighth to 512, and a quarter of what is left is still 384: one claim takes the whole
 *       expensive stretch, which only a revocable batch can share.</li>
 * </ul>
 * The report gives each contender's speed-up over {@code sequential}; the goal (issue 14) is at
 * least {@code 0.95 x parallelism} where the work allows it, and no worse than the better of
 * {@code forkjoin64} and {@code parallelStream}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class RangeProfileBenchmark {

    static final int N = 4096;
    static final int CHEAP = 16;
    static final int EXPENSIVE = 8192;
    static final int UNIFORM = 512;
    static final int SPIKE = 16384;
    /** Largest leaf of the {@code forkjoin64} contender. */
    static final int LEAF = 64;

    @Param({"CHEAP_THEN_EXPENSIVE", "EXPENSIVE_THEN_CHEAP", "HOT_INDEX", "SPARSE_SPIKES", "RAMP",
            "MIDDLE_STRETCH"})
    public String profile;

    @Param({"sequential", "stealpool", "forkjoin64", "parallelStream", "fixedSplit"})
    public String impl;

    @Param({"2", "8"})
    public int parallelism;

    private WorkStealingPool ours;
    private ForkJoinPool theirs;
    private LongUnaryOperator element;

    @Setup(Level.Trial)
    public void setUp() {
        ours = WorkStealingPool.builder().parallelism(parallelism).daemon(true)
                .idleStrategy(Contender.idleStrategy()).build();
        theirs = new ForkJoinPool(parallelism);
        String p = profile;
        element = i -> RangeBenchmark.spin(i, cost(p, i));
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        ours.shutdownNow();
        theirs.shutdownNow();
        ours.awaitTermination(10, TimeUnit.SECONDS);
        theirs.awaitTermination(10, TimeUnit.SECONDS);
    }

    @Benchmark
    public long profile() {
        LongUnaryOperator f = element;
        switch (impl) {
            case "sequential":
                return RangeBenchmark.sequentialSum(f, 0, N);
            case "stealpool":
                return ours.range(0L, N).reduceLong(0, f, Long::sum);
            case "forkjoin64":
                return theirs.invoke(new Halving(f, 0, N));
            case "parallelStream":
                return theirs.submit(() -> LongStream.range(0, N).parallel().map(f).sum()).join();
            case "fixedSplit":
                return theirs.invoke(new RangeBenchmark.FixedSplit(f, 0, N,
                        N / parallelism + (N % parallelism == 0 ? 0 : 1)));
            default:
                throw new IllegalArgumentException(impl);
        }
    }

    /** Halves the range down to leaves of at most {@link #LEAF} indexes. */
    static final class Halving extends RecursiveTask<Long> {
        private static final long serialVersionUID = 1L;
        // ForkJoinTask is Serializable; these tasks never are serialized, and f is not part of a
        // serialized form (javac 21+'s serial lint: a non-serializable type in a serializable class).
        final transient LongUnaryOperator f;
        final long lo;
        final long hi;

        Halving(LongUnaryOperator f, long lo, long hi) {
            this.f = f;
            this.lo = lo;
            this.hi = hi;
        }

        @Override
        protected Long compute() {
            if (hi - lo <= LEAF) {
                return RangeBenchmark.sequentialSum(f, lo, hi);
            }
            long mid = (lo + hi) >>> 1;
            Halving right = new Halving(f, mid, hi);
            right.fork();
            return new Halving(f, lo, mid).compute() + right.join();
        }
    }

    /** Tokens of work for index {@code i} under {@code profile}. */
    static int cost(String profile, long i) {
        switch (profile) {
            case "CHEAP_THEN_EXPENSIVE":
                return i < 3L * N / 4 ? CHEAP : EXPENSIVE;
            case "EXPENSIVE_THEN_CHEAP":
                return i < N / 4 ? EXPENSIVE : CHEAP;
            case "HOT_INDEX":
                return i == N / 2 ? (N - 1) * UNIFORM / 8 : UNIFORM;
            case "SPARSE_SPIKES":
                return (RangeBenchmark.mix(i) & 63) == 0 ? SPIKE : CHEAP;
            case "RAMP":
                return (int) (2L * UNIFORM * i / N);
            case "MIDDLE_STRETCH":
                return i >= N / 8 && i < 3L * N / 16 ? EXPENSIVE : CHEAP;
            default:
                throw new IllegalArgumentException(profile);
        }
    }
}
