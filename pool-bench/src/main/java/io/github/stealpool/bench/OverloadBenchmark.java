package io.github.stealpool.bench;

import io.github.stealpool.SaturationPolicy;
import io.github.stealpool.WorkStealingPool;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Overload (issue 37): four outside threads submit 1-microsecond tasks as fast as they can to a
 * pool whose submission queue is bounded at {@link #BOUND}, far more than its workers can run,
 * against a {@link ThreadPoolExecutor} with the same threads, an {@link ArrayBlockingQueue} of
 * the same capacity and the matching JDK policy.
 * <ul>
 *   <li>{@code abort}: a submission at the bound is refused ({@code RejectedExecutionException},
 *       caught here). The score is submission attempts per microsecond; the auxiliary counters
 *       {@code accepted} and {@code rejected} split it. A pool that refuses cheaply and keeps
 *       its workers fed scores high on both.</li>
 *   <li>{@code callerRuns}: a submission at the bound runs on the submitter. Every call ends
 *       with its task run or queued, so the score is tasks per microsecond, the submitters
 *       working as extra threads while the queue is full.</li>
 * </ul>
 * Workers = available processors. The tasks queued when an iteration ends run during the next
 * one; the bound keeps that to at most {@link #BOUND} plus what the workers hold.
 */
@State(Scope.Benchmark)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class OverloadBenchmark {

    static final int BOUND = 1024;

    @Param({"stealpool", "tpe"})
    public String pool;

    @Param({"abort", "callerRuns"})
    public String policy;

    private ExecutorService executor;
    private final Runnable task = () -> Blackhole.consumeCPU(SubmitBenchmark.TOKENS_1US);

    @Setup(Level.Trial)
    public void setUp() {
        int workers = Runtime.getRuntime().availableProcessors();
        boolean abort = policy.equals("abort");
        switch (pool) {
            case "stealpool":
                executor = WorkStealingPool.builder().parallelism(workers).daemon(true)
                        .maxQueuedSubmissions(BOUND)
                        .saturationPolicy(abort ? SaturationPolicy.ABORT : SaturationPolicy.CALLER_RUNS)
                        .build();
                break;
            case "tpe":
                executor = new ThreadPoolExecutor(workers, workers, 0L, TimeUnit.MILLISECONDS,
                        new ArrayBlockingQueue<>(BOUND),
                        abort ? new ThreadPoolExecutor.AbortPolicy() : new ThreadPoolExecutor.CallerRunsPolicy());
                break;
            default:
                throw new IllegalArgumentException("unknown pool: " + pool);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        executor.shutdownNow();
        executor.awaitTermination(30, TimeUnit.SECONDS);
    }

    /** Per submitting thread: how its attempts ended (summed by JMH over the threads). */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Outcomes {
        public long accepted;
        public long rejected;

        @Setup(Level.Iteration)
        public void clean() {
            accepted = 0;
            rejected = 0;
        }
    }

    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    @Threads(4)
    public void submit(Outcomes outcomes) {
        try {
            executor.execute(task);
            outcomes.accepted++;
        } catch (RejectedExecutionException full) {
            outcomes.rejected++;
        }
    }
}
