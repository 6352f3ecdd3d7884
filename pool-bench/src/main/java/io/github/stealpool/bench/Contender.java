package io.github.stealpool.bench;

import io.github.stealpool.IdleStrategy;
import io.github.stealpool.WorkStealingPool;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;

/**
 * The executors every suite compares, by the names used in {@code @Param} values and in the
 * report: our pool, {@code ForkJoinPool} in its default LIFO mode and in asyncMode (FIFO local
 * queues, what {@code Executors.newWorkStealingPool} builds), and
 * {@code Executors.newFixedThreadPool}.
 */
enum Contender {
    STEALPOOL("stealpool"),
    /** Our pool with {@code Builder.fifo(true)}: each worker's own tasks oldest first. */
    STEALPOOL_FIFO("stealpool-fifo"),
    FORKJOIN("forkjoin"),
    FORKJOIN_ASYNC("forkjoin-async"),
    FIXED("fixed");

    final String label;

    Contender(String label) {
        this.label = label;
    }

    static Contender of(String label) {
        for (Contender c : values()) {
            if (c.label.equals(label)) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown pool " + label);
    }

    /** A new executor of this kind with daemon threads. */
    ExecutorService create(int parallelism) {
        switch (this) {
            case STEALPOOL:
            case STEALPOOL_FIFO:
                return WorkStealingPool.builder().parallelism(parallelism).daemon(true)
                        .idleStrategy(idleStrategy()).fifo(this == STEALPOOL_FIFO).build();
            case FORKJOIN:
                return new ForkJoinPool(parallelism);
            case FORKJOIN_ASYNC:
                return new ForkJoinPool(parallelism, ForkJoinPool.defaultForkJoinWorkerThreadFactory, null, true);
            default:
                return Executors.newFixedThreadPool(parallelism, r -> {
                    Thread t = new Thread(r);
                    t.setDaemon(true);
                    return t;
                });
        }
    }

    /**
     * Our pool's idle strategy: {@code IdleStrategy.standard()}, or the spin and yield rounds
     * given as {@code -Dbench.idle=SPINS,YIELDS} (pass it to the forks with JMH's
     * {@code -jvmArgsAppend}), to compare strategies in the same suites.
     */
    static IdleStrategy idleStrategy() {
        String rounds = System.getProperty("bench.idle");
        if (rounds == null || rounds.isEmpty()) {
            return IdleStrategy.standard();
        }
        String[] sy = rounds.split(",");
        if (sy.length != 2) {
            throw new IllegalArgumentException("bench.idle must be SPINS,YIELDS: " + rounds);
        }
        return IdleStrategy.backoff(Integer.parseInt(sy[0].trim()), Integer.parseInt(sy[1].trim()));
    }

    static void stop(ExecutorService pool) throws InterruptedException {
        if (pool != null) {
            pool.shutdownNow();
            pool.awaitTermination(10, TimeUnit.SECONDS);
        }
    }
}
