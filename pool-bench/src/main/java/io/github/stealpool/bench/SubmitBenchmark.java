package io.github.stealpool.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
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
 * first burn about a microsecond in {@link Blackhole#consumeCPU}; {@code tiny-adder} tasks add to
 * a {@code LongAdder} instead, which the benchmark thread polls (see {@link #awaitSum}).
 * Workers = available processors.
 *
 * <p>Why {@code tiny-adder}: every {@code tiny} task CASes the one count of one
 * {@code CountDownLatch}, so with many workers each task costs a cache-line transfer between
 * cores, whichever pool runs it. On 16 cores (JDK 17 and 25, 16 workers) our {@code tiny} time
 * sat at 7.2-7.8 ms for 1, 4 and 16 producers alike, about 72 ns a task, the order of one such
 * transfer (not measured there): a floor that more submitters did not move, so perhaps the
 * latch's rather than the pool's. {@code tiny-adder} takes that one line away: a
 * {@code LongAdder} spreads the adds over cells, at most about one per core (threads land on
 * them by hash, so a few share one), so the same run can tell the two apart. It changes the
 * wait as well: the benchmark thread polls the sum (about every 60 us) where a {@code tiny}
 * operation ends when the last countdown unparks it, which adds about half a period to each
 * operation and pulls ratios toward 1.
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

    @Param({"tiny", "1us", "tiny-adder"})
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
        if ("tiny-adder".equals(work)) {
            return submitCounted(executor, producerThreads, producers, TASKS);
        }
        if (!"tiny".equals(work) && !"1us".equals(work)) {
            throw new IllegalArgumentException("work must be tiny, 1us or tiny-adder: " + work);
        }
        return submit(executor, producerThreads, producers, TASKS, "1us".equals(work));
    }

    /** Submits {@code tasks} tasks from {@code producers} threads and waits for all to run. */
    static long submit(ExecutorService executor, ExecutorService producerThreads, int producers,
                       int tasks, boolean microsecond) throws Exception {
        CountDown task = new CountDown(microsecond); // first: see CountDown
        CountDownLatch done = new CountDownLatch(tasks);
        task.latch = done; // published to the workers by the executor, as the task itself is
        submitFrom(executor, producerThreads, producers, tasks, task);
        done.await();
        return done.getCount();
    }

    /**
     * Has {@code producers} of {@code producerThreads} execute {@code task} on {@code executor}
     * {@code tasks} times between them, and waits until they have submitted (not until the
     * tasks ran).
     */
    private static void submitFrom(ExecutorService executor, ExecutorService producerThreads, int producers,
                                   int tasks, Runnable task) throws Exception {
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
    }

    /**
     * As {@link #submit}, with tasks that each add one to a new {@code LongAdder} (whose cells
     * spread concurrent adds over separate cache lines) and the calling thread polling its sum
     * until every task ran; returns the sum.
     */
    static long submitCounted(ExecutorService executor, ExecutorService producerThreads, int producers,
                              int tasks) throws Exception {
        Add task = new Add(); // first, as CountDown: kept off the adder's lines
        return submitCounted(executor, producerThreads, producers, tasks, task, new LongAdder());
    }

    /** As above, adding to {@code done}, which starts at 0 (for tests, which read it themselves). */
    static long submitCounted(ExecutorService executor, ExecutorService producerThreads, int producers,
                              int tasks, Add task, LongAdder done) throws Exception {
        task.adder = done; // published to the workers by the executor, as the task itself is
        submitFrom(executor, producerThreads, producers, tasks, task);
        return awaitSum(done, tasks);
    }

    /**
     * Waits until {@code adder} reaches {@code target}, reading its sum every
     * {@link #POLL_NANOS} (Linux's timer slack makes that about 60 us, and the polling thread
     * about 4% of a core): a thread that read it without pause would take a core from the
     * workers on a small machine, and pull every cell's line away from the worker adding to it.
     * The pause adds about half a period to each operation, for every pool alike: about 1% of a
     * 3 ms operation.
     *
     * @throws InterruptedException if interrupted (JMH's timeout, a test's), instead of spinning
     *                              on an interrupted park should a task never run
     */
    static long awaitSum(LongAdder adder, long target) throws InterruptedException {
        long sum;
        while ((sum = adder.sum()) < target) {
            if (Thread.interrupted()) {
                throw new InterruptedException("waiting for " + target + " tasks, " + sum + " ran");
            }
            LockSupport.parkNanos(POLL_NANOS);
        }
        return sum;
    }

    /** Pause between two reads of the sum in {@link #awaitSum}. */
    static final long POLL_NANOS = 10_000;

    /** The field of {@link Add}, laid before the subclass's padding (see {@link CountDown}). */
    static class AddFields {
        LongAdder adder;
    }

    /** A {@code tiny-adder} task: adds one to the operation's adder. Padded as {@link CountDown}. */
    static final class Add extends AddFields implements Runnable {
        long p0, p1, p2, p3, p4, p5, p6, p7;

        @Override
        public void run() {
            adder.increment();
        }
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
     * 2.6 ms ({@code OneProducerProbe} in pool-lab, {@code latch} against {@code apart}). The faster a pool
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
