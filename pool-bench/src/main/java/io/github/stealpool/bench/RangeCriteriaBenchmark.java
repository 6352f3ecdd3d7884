package io.github.stealpool.bench;

import io.github.stealpool.WorkStealingPool;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
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
 * Criteria C1 and C3 of the work-stealing tree paper (seed 002); C2 is {@link RangeBenchmark}.
 * C1: one worker against a plain loop, sum of {@code i} over 150 million indexes. C3: 16
 * elements of about 2 ms each on 2 and 8 workers, where the speedup should be what the worker
 * count (and the cores) allow.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class RangeCriteriaBenchmark {


    /** C1: sum of i over [0, 150M): a plain loop, and stealpool on one worker (chunk form). */
    @State(Scope.Benchmark)
    public static class OneWorker {
        @Param({"sequential", "stealpool-chunks", "stealpool-reduce"})
        public String how;
        WorkStealingPool pool;

        @Setup(Level.Trial)
        public void setUp() {
            pool = WorkStealingPool.builder().parallelism(1).daemon(true).build();
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            pool.shutdownNow();
        }
    }

    static final long C1_N = 150_000_000L;

    @Benchmark
    public long c1SumOneWorker(OneWorker s) {
        switch (s.how) {
            case "sequential": {
                long sum = 0;
                for (long i = 0; i < C1_N; i++) {
                    sum += i;
                }
                return sum;
            }
            case "stealpool-chunks": {
                LongAdder total = new LongAdder();
                s.pool.range(0L, C1_N).forEachChunk((lo, hi) -> {
                    long sum = 0;
                    for (long i = lo; i < hi; i++) {
                        sum += i;
                    }
                    total.add(sum);
                });
                return total.sum();
            }
            default:
                return s.pool.range(0L, C1_N).reduceLong(0, i -> i, Long::sum);
        }
    }

    /** C3: 16 elements of about 2 ms each (1.2 million consumeCPU tokens), on 2 and 8 workers. */
    @State(Scope.Benchmark)
    public static class Heavy {
        @Param({"sequential", "stealpool", "parallelStream", "forkjoinFixed"})
        public String how;
        @Param({"2", "8"})
        public int workers;
        WorkStealingPool pool;
        ForkJoinPool fjp;

        @Setup(Level.Trial)
        public void setUp() {
            pool = WorkStealingPool.builder().parallelism(workers).daemon(true).build();
            fjp = new ForkJoinPool(workers);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            pool.shutdownNow();
            fjp.shutdownNow();
        }
    }

    @Benchmark
    public long c3SixteenHeavy(Heavy s) {
        LongUnaryOperator heavy = i -> RangeBenchmark.spin(i, 1_200_000);
        switch (s.how) {
            case "sequential": {
                long sum = 0;
                for (long i = 0; i < 16; i++) {
                    sum += heavy.applyAsLong(i);
                }
                return sum;
            }
            case "stealpool":
                return s.pool.range(0L, 16L).reduceLong(0, heavy, Long::sum);
            case "parallelStream":
                return LongStream.range(0, 16).parallel().map(heavy).sum();
            default:
                return s.fjp.invoke(new RangeBenchmark.FixedSplit(heavy, 0, 16, 16 / s.workers));
        }
    }

}
