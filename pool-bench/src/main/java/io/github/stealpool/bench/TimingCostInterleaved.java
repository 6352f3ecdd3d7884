package io.github.stealpool.bench;

import io.github.stealpool.TaskTimingListener;
import io.github.stealpool.WorkStealingPool;
import io.github.stealpool.metrics.WorkStealingPoolMetrics;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * What in-pool task timing ({@link WorkStealingPoolMetrics#timeTasks}) costs, timed
 * <em>interleaved</em> on one pool: each round runs every workload with timing off (no
 * listener), then on (the Prometheus timers' listener added), and the report gives the ratio of
 * the medians. A drift in this shared machine's load hits both alike, which separate JMH trials
 * minutes apart cannot promise when the effect sought is a percent or two; it cross-checks
 * {@link TimingCostBenchmark}.
 *
 * <p>Workloads, one outside thread submitting: 100,000 tiny tasks (a latch count-down, the task
 * kept off the latch's cache lines as in {@link SubmitBenchmark}); 100,000 tasks of about a
 * microsecond; fib(30) as one submitted task (1.6 million forks, never timed).
 *
 * <p>Run: {@code java -cp pool-bench/target/benchmarks.jar
 * io.github.stealpool.bench.TimingCostInterleaved [parallelism [rounds [aa]]]} (default 2 and
 * 400, after 100 warm-up rounds; {@code aa} leaves timing off in both halves, to see the
 * harness's own bias; {@code bb} has it on in both, from the start, for comparing
 * separate JVMs, as JMH does). Which half runs first is drawn per round and workload.
 *
 * <p>Besides the ratio of the two halves' medians it prints the median of the rounds' own ratios
 * (each round's timed half over its untimed half): where round times fall into two modes, as
 * tiny tasks on 2 cores do, each half's median may land in either, and the ratio of medians
 * swings by the gap between the modes even between two identical halves ({@code bb}); a round's
 * two halves, run back to back, mostly share a mode.
 */
public final class TimingCostInterleaved {

    private static final int WARMUP = 100;
    private static final int TASKS = 100_000;

    private TimingCostInterleaved() {
    }

    public static void main(String[] args) throws Exception {
        int parallelism = args.length > 0 ? Integer.parseInt(args[0]) : 2;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 400;
        boolean aa = args.length > 2 && args[2].equals("aa"); // both halves off: the harness's own bias
        boolean bb = args.length > 2 && args[2].equals("bb"); // both halves on, from the start
        WorkStealingPool pool = WorkStealingPool.builder().parallelism(parallelism).daemon(true)
                .idleStrategy(Contender.idleStrategy()).build();
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Timer run = Timer.builder("executor").tag("name", "probe").register(registry);
        Timer idle = Timer.builder("executor.idle").tag("name", "probe").register(registry);
        TaskTimingListener listener = (q, r) -> {
            idle.record(q, TimeUnit.NANOSECONDS);
            run.record(r, TimeUnit.NANOSECONDS);
        };
        SubmitBenchmark.CountDown tiny = new SubmitBenchmark.CountDown(false);
        SubmitBenchmark.CountDown micro = new SubmitBenchmark.CountDown(true);
        String[] workloads = {"100k tiny tasks", "100k ~1 us tasks", "fib(30) submitted"};
        long[][][] nanos = new long[workloads.length][2][rounds];
        if (bb) {
            pool.addTaskTimingListener(listener);
        }
        long sink = 0;
        java.util.Random order = new java.util.Random(1);
        for (int round = -WARMUP; round < rounds; round++) {
            for (int w = 0; w < workloads.length; w++) {
                boolean onFirst = order.nextBoolean(); // drawn, so no period of the run lines up with it
                for (int k = 0; k < 2; k++) {
                    int on = (k == 0) == onFirst ? 1 : 0;
                    if (on == 1 && !aa && !bb) {
                        pool.addTaskTimingListener(listener);
                    }
                    long t0 = System.nanoTime();
                    sink += switch (w) {
                        case 0 -> submitAll(pool, tiny);
                        case 1 -> submitAll(pool, micro);
                        default -> pool.submit(() -> pool.invoke(new ForkJoinBenchmark.Fib(30))).get();
                    };
                    long t = System.nanoTime() - t0;
                    if (on == 1 && !aa && !bb) {
                        pool.removeTaskTimingListener(listener);
                    }
                    if (round >= 0) {
                        nanos[w][on][round] = t;
                    }
                }
            }
        }
        System.out.printf(Locale.ROOT, "%d cores, %s %s, parallelism %d; medians over %d interleaved rounds%n",
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.vm.name"),
                System.getProperty("java.version"), parallelism, rounds);
        System.out.println("| workload | off, ms | on, ms | on / off | paired: median of on / off per round (quartiles) |");
        System.out.println("|---|---|---|---|---|");
        for (int w = 0; w < workloads.length; w++) {
            double off = median(nanos[w][0]) / 1e6;
            double on = median(nanos[w][1]) / 1e6;
            double[] paired = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                paired[r] = (double) nanos[w][1][r] / nanos[w][0][r];
            }
            Arrays.sort(paired);
            System.out.printf(Locale.ROOT, "| %s | %.3f | %.3f | %.3f | %.3f (%.3f-%.3f) |%n", workloads[w], off, on,
                    on / off, paired[rounds / 2], paired[rounds / 4], paired[3 * rounds / 4]);
        }
        System.out.printf(Locale.ROOT, "tasks timed: %d (%.2f%% of the %d tiny and ~1 us tasks submitted with timing on); sink %d%n",
                run.count(), 100.0 * run.count() / (2.0 * TASKS * (rounds + WARMUP)), 2L * TASKS * (rounds + WARMUP),
                sink);
        pool.shutdownNow();
    }

    private static long submitAll(WorkStealingPool pool, SubmitBenchmark.CountDown task) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(TASKS);
        task.latch = done;
        for (int i = 0; i < TASKS; i++) {
            pool.execute(task);
        }
        done.await();
        return done.getCount();
    }

    private static double median(long[] xs) {
        long[] s = xs.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2.0;
    }
}
