package io.github.stealpool.bench;

import io.github.stealpool.WorkStealingPool;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
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
 * Suite 6, oversubscription: the same work with 2, 4 and 8 workers on this machine (2 cores
 * here), to see what is lost when workers outnumber cores. {@code submit}: one outside thread
 * submits {@link SubmitBenchmark#TASKS} tiny tasks; {@code loop}: a uniform loop of
 * {@link #ELEMENTS} elements of 64 consumeCPU tokens each ({@code reduceLong} on ours, a parallel
 * stream run inside the ForkJoinPool, and one chunk per worker times 4 with {@code invokeAll} on
 * the fixed pool).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class OversubscriptionBenchmark {

    static final int ELEMENTS = 200_000;

    @Param({"stealpool", "forkjoin", "fixed"})
    public String pool;

    @Param({"2", "4", "8"})
    public int parallelism;

    @Param({"submit", "loop"})
    public String workload;

    private ExecutorService executor;
    private ExecutorService producer;

    @Setup(Level.Trial)
    public void setUp() {
        executor = Contender.of(pool).create(parallelism);
        producer = Contender.FIXED.create(1);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        Contender.stop(executor);
        Contender.stop(producer);
    }

    static long element(long i) {
        Blackhole.consumeCPU(64);
        return i;
    }

    @Benchmark
    public long run() throws Exception {
        if ("submit".equals(workload)) {
            return SubmitBenchmark.submit(executor, producer, 1, SubmitBenchmark.TASKS, false);
        }
        switch (pool) {
            case "stealpool":
                return ((WorkStealingPool) executor).range(0L, ELEMENTS).reduceLong(0, OversubscriptionBenchmark::element, Long::sum);
            case "forkjoin":
                return ((ForkJoinPool) executor).submit(
                        () -> LongStream.range(0, ELEMENTS).parallel().map(OversubscriptionBenchmark::element).sum()).get();
            default:
                int chunks = parallelism * 4;
                List<Callable<Long>> parts = new ArrayList<>(chunks);
                for (int c = 0; c < chunks; c++) {
                    long lo = (long) ELEMENTS * c / chunks;
                    long hi = (long) ELEMENTS * (c + 1) / chunks;
                    parts.add(() -> {
                        long s = 0;
                        for (long i = lo; i < hi; i++) {
                            s += element(i);
                        }
                        return s;
                    });
                }
                long sum = 0;
                for (Future<Long> f : executor.invokeAll(parts)) {
                    sum += f.get();
                }
                return sum;
        }
    }
}
