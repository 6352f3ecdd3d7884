package io.github.stealpool.bench;

import io.github.stealpool.WorkStealingPool;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.ForkJoinPool;
import java.util.function.LongSupplier;

/**
 * What one fork/join pair costs, in plain timing: fib(n) without cutoff as the README's port of
 * a {@code RecursiveTask} writes it ({@link ForkJoinBenchmark}'s {@code fib30}), invoked from
 * outside, round after round, in one pool per JVM (the benchmark's own task classes). With one worker a round is fib(n)'s pairs
 * one after another (about 1.35 million for n = 30), so its time divided by that is the cost of a
 * fork, a take-back and a completion; with more it adds steals, joins that wait and wake-ups.
 *
 * <pre>
 * java -cp pool-lab/target/lab.jar io.github.stealpool.bench.ForkPairProbe stealpool|forkjoin PARALLELISM [n [rounds]]
 * </pre>
 * Defaults: n = 30, 400 rounds. It prints the median of each block of 50 rounds but the first
 * (warm-up), the median of those, and for our pool its counters. One JVM is one draw: the
 * compiled code differs from JVM to JVM, so compare pools or builds over several JVMs each,
 * alternating (docs/benchmarks.md). Written for issue 39's fork-path figures
 * (docs/lab/fork-fence.md, "What a fork spends besides its push").
 */
public final class ForkPairProbe {

    static final int BLOCK = 50;

    private ForkPairProbe() {
    }

    public static void main(String[] args) {
        if (args.length < 2) {
            System.err.println("usage: ForkPairProbe stealpool|forkjoin PARALLELISM [n [rounds]]");
            System.exit(2);
        }
        int n = args.length > 2 ? Integer.parseInt(args[2]) : 30;
        int rounds = args.length > 3 ? Integer.parseInt(args[3]) : 8 * BLOCK;
        System.out.println(probe(args[0], Integer.parseInt(args[1]), n, rounds));
    }

    /**
     * Runs {@code rounds} rounds of fib(n) in a new pool and reports them.
     *
     * @throws IllegalArgumentException an unknown pool, or fewer than two blocks of rounds
     * @throws IllegalStateException    a round computed a wrong result
     */
    static String probe(String pool, int parallelism, int n, int rounds) {
        if (rounds < 2 * BLOCK) {
            throw new IllegalArgumentException("rounds must be at least " + 2 * BLOCK + ": " + rounds);
        }
        long expected = ForkJoinBenchmark.sequentialFib(n);
        long[] nanos = new long[rounds];
        String counters = "";
        switch (pool) {
            case "stealpool" -> {
                WorkStealingPool p = WorkStealingPool.builder().parallelism(parallelism).build();
                try {
                    timeRounds(() -> p.invoke(new ForkJoinBenchmark.Fib(n)), expected, nanos);
                    counters = "  " + p.stats();
                } finally {
                    p.shutdown();
                }
            }
            case "forkjoin" -> {
                ForkJoinPool p = new ForkJoinPool(parallelism);
                try {
                    timeRounds(() -> p.invoke(new ForkJoinBenchmark.FjFib(n)), expected, nanos);
                    counters = "  steals=" + p.getStealCount();
                } finally {
                    p.shutdown();
                }
            }
            default -> throw new IllegalArgumentException("pool must be stealpool or forkjoin: " + pool);
        }
        double[] blocks = blockMedians(nanos);
        double[] sorted = blocks.clone();
        Arrays.sort(sorted);
        StringBuilder out = new StringBuilder(String.format(Locale.ROOT,
                "%s p=%d fib(%d): median %.2f ms, blocks of %d after the first:", pool, parallelism, n,
                sorted[sorted.length / 2], BLOCK));
        for (double b : blocks) {
            out.append(String.format(Locale.ROOT, " %.2f", b));
        }
        return out.append('\n').append(counters).toString();
    }

    /** The median of each block of {@link #BLOCK} rounds after the first, in milliseconds. */
    static double[] blockMedians(long[] nanos) {
        double[] medians = new double[nanos.length / BLOCK - 1];
        for (int k = 0; k < medians.length; k++) {
            long[] block = Arrays.copyOfRange(nanos, (k + 1) * BLOCK, (k + 2) * BLOCK);
            Arrays.sort(block);
            medians[k] = block[BLOCK / 2] / 1e6;
        }
        return medians;
    }

    /** Times each of {@code nanos.length} rounds, checking every result against {@code expected}. */
    private static void timeRounds(LongSupplier round, long expected, long[] nanos) {
        for (int i = 0; i < nanos.length; i++) {
            long start = System.nanoTime();
            long result = round.getAsLong();
            nanos[i] = System.nanoTime() - start;
            if (result != expected) {
                throw new IllegalStateException("fib computed " + result + ", expected " + expected);
            }
        }
    }
}
