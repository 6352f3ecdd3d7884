package io.github.stealpool.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
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
 * Suite 1, external submit throughput: {@code producers} threads outside the pool submit
 * {@link #TASKS} tasks between them as fast as they can; an operation ends when every task ran.
 * {@code tiny} tasks count down a latch ({@code LongAdder::increment}-sized); {@code 1us} tasks
 * first burn about a microsecond in {@link Blackhole#consumeCPU}. Workers = available processors.
 *
 * <p>The task is one {@link CountDown} object, kept off the cache lines of the latch that every
 * worker counts down (see there): the submitters read the task's class on every submit, and this
 * measures the pools, not false sharing between the benchmark's own objects.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 3, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class SubmitBenchmark {

    static final int TASKS = 100_000;
    /** consumeCPU tokens of a "1us" task: about 1 microsecond on a 2020s x86 core. */
    static final long TOKENS_1US = 200;

    @Param({"stealpool", "forkjoin", "forkjoin-async", "fixed"})
    public String pool;

    @Param({"1", "2", "4"})
    public int producers;

    @Param({"tiny", "1us"})
    public String work;

    private ExecutorService executor;
    private ExecutorService producerThreads;

    @Setup(Level.Trial)
    public void setUp() {
        executor = Contender.of(pool).create(Runtime.getRuntime().availableProcessors());
        producerThreads = Executors.newFixedThreadPool(producers, r -> {
            Thread t = new Thread(r, "producer");
            t.setDaemon(true);
            return t;
        });
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        Contender.stop(executor);
        Contender.stop(producerThreads);
    }

    @Benchmark
    public long submitAll() throws Exception {
        return submit(executor, producerThreads, producers, TASKS, "1us".equals(work));
    }

    /** Submits {@code tasks} tasks from {@code producers} threads and waits for all to run. */
    static long submit(ExecutorService executor, ExecutorService producerThreads, int producers,
                       int tasks, boolean microsecond) throws Exception {
        CountDown task = new CountDown(microsecond); // first: see CountDown
        CountDownLatch done = new CountDownLatch(tasks);
        task.latch = done; // published to the workers by the executor, as the task itself is
        List<Future<?>> running = new ArrayList<>(producers);
        int share = tasks / producers;
        for (int p = 0; p < producers; p++) {
            int n = p == producers - 1 ? tasks - share * (producers - 1) : share;
            running.add(producerThreads.submit(() -> {
                for (int i = 0; i < n; i++) {
                    executor.execute(task);
                }
            }));
        }
        for (Future<?> f : running) {
            f.get();
        }
        done.await();
        return done.getCount();
    }

    /** The fields of {@link CountDown}: the JVM lays them before the subclass's padding. */
    static class CountDownFields {
        CountDownLatch latch;
        final boolean burnOneMicrosecond;

        CountDownFields(boolean burnOneMicrosecond) {
            this.burnOneMicrosecond = burnOneMicrosecond;
        }
    }

    /**
     * The benchmark's task: counts down the operation's latch, after burning about a microsecond
     * if asked. It is allocated before the latch and padded after its fields, so that neither
     * allocation order nor a garbage collector copying it next to the latch puts the latch's
     * count, which every worker CASes, on the cache line of the task's header. Every submitter
     * that reads the task's class (ours and {@code ForkJoinPool}'s {@code execute} check whether
     * it is one of their own task types) would miss the cache on that line on every submit.
     * That happened with a lambda allocated right after the latch: on 16 cores, JDK 17, 16
     * workers, one thread submitting to our pool took 17.5 ms per 100,000 tasks instead of
     * 2.6 ms ({@link OneProducerProbe}, {@code latch} against {@code apart}). The faster a pool
     * ran the tasks in parallel, the hotter the latch's line, and the slower its submitter.
     */
    static final class CountDown extends CountDownFields implements Runnable {
        long p0, p1, p2, p3, p4, p5, p6, p7;

        CountDown(boolean burnOneMicrosecond) {
            super(burnOneMicrosecond);
        }

        @Override
        public void run() {
            if (burnOneMicrosecond) {
                Blackhole.consumeCPU(TOKENS_1US);
            }
            latch.countDown();
        }
    }
}
