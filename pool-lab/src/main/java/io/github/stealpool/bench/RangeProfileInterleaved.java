package io.github.stealpool.bench;

import io.github.stealpool.WorkStealingPool;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.function.LongUnaryOperator;
import java.util.function.LongSupplier;
import java.util.stream.LongStream;

/**
 * {@link RangeProfileBenchmark}'s profiles and contenders, timed <em>interleaved</em>: each round
 * runs every contender once, one after the other, in one JVM, and the report gives each one's
 * median over the rounds (and the 90th percentile). On a shared machine whose load drifts, JMH
 * trials of different contenders run minutes apart and differ by more than the contenders do
 * (the middle-stretch loop's stealpool trial had a 39% error bar); here a drift hits every
 * contender alike. A plain-timing harness, so it is a cross-check of the JMH figures, not a
 * replacement.
 *
 * <p>Run: {@code java -cp pool-lab/target/lab.jar
 * io.github.stealpool.bench.RangeProfileInterleaved [parallelism ...]} (default 2 8; 100
 * warm-up rounds, then 500 measured, per profile and parallelism).
 */
public final class RangeProfileInterleaved {

    private static final int WARMUP = 100;
    private static final int ROUNDS = 500;
    private static final List<String> CONTENDERS = List.of("sequential", "stealpool", "forkjoin64", "parallelStream");

    private RangeProfileInterleaved() {
    }

    public static void main(String[] args) throws InterruptedException {
        int[] parallelisms = args.length == 0 ? new int[] {2, 8} : Arrays.stream(args).mapToInt(Integer::parseInt).toArray();
        System.out.printf(Locale.ROOT, "%d cores, %s %s; median ms (p90) over %d interleaved rounds; speed-up over sequential%n",
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.vm.name"),
                System.getProperty("java.version"), ROUNDS);
        System.out.println("| profile | workers | " + String.join(" | ", CONTENDERS) + " |");
        System.out.println("|---|---|---|---|---|---|");
        long sink = 0;
        for (String profile : List.of("CHEAP_THEN_EXPENSIVE", "EXPENSIVE_THEN_CHEAP", "HOT_INDEX", "SPARSE_SPIKES",
                "RAMP", "MIDDLE_STRETCH")) {
            for (int p : parallelisms) {
                WorkStealingPool ours = WorkStealingPool.builder().parallelism(p).daemon(true)
                        .idleStrategy(Contender.idleStrategy()).build();
                ForkJoinPool theirs = new ForkJoinPool(p);
                try {
                    LongUnaryOperator f = i -> RangeBenchmark.spin(i, RangeProfileBenchmark.cost(profile, i));
                    int n = RangeProfileBenchmark.N;
                    LongSupplier[] runs = {
                        () -> RangeBenchmark.sequentialSum(f, 0, n),
                        () -> ours.range(0L, n).reduceLong(0, f, Long::sum),
                        () -> theirs.invoke(new RangeProfileBenchmark.Halving(f, 0, n)),
                        () -> theirs.submit(() -> LongStream.range(0, n).parallel().map(f).sum()).join(),
                    };
                    long[][] nanos = new long[runs.length][ROUNDS];
                    for (int round = -WARMUP; round < ROUNDS; round++) {
                        for (int c = 0; c < runs.length; c++) {
                            long t0 = System.nanoTime();
                            sink += runs[c].getAsLong();
                            long t = System.nanoTime() - t0;
                            if (round >= 0) {
                                nanos[c][round] = t;
                            }
                        }
                    }
                    StringBuilder row = new StringBuilder("| " + profile + " | " + p + " |");
                    double sequential = median(nanos[0]);
                    for (long[] times : nanos) {
                        double m = median(times);
                        row.append(String.format(Locale.ROOT, " %.2f (%.2f) %.2fx |", m / 1e6, percentile(times, 0.9) / 1e6,
                                sequential / m));
                    }
                    System.out.println(row);
                } finally {
                    ours.shutdownNow();
                    theirs.shutdownNow();
                    ours.awaitTermination(10, TimeUnit.SECONDS);
                    theirs.awaitTermination(10, TimeUnit.SECONDS);
                }
            }
        }
        System.out.println(sink == 42 ? "" : " "); // consumes every result
    }

    private static double median(long[] times) {
        return percentile(times, 0.5);
    }

    private static double percentile(long[] times, double q) {
        long[] sorted = times.clone();
        Arrays.sort(sorted);
        return sorted[(int) Math.min(sorted.length - 1, Math.round(q * (sorted.length - 1)))];
    }
}
