package io.github.stealpool.bench;

import io.github.stealpool.WorkStealingPool;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A plain-timing harness (no JMH: the figure is a wall-clock time of whole sleeps) for issue
 * 15's first case: tasks that each sleep 200 ms on a pool of 2. Plain sleeps hold their worker,
 * so four take two turns (about 400 ms); inside {@link WorkStealingPool#blocking} spare threads
 * stand in and they overlap (about 200 ms), as inside {@code ForkJoinPool.managedBlock}. A fixed
 * pool of 2 is shown for scale. Each line is one round; the first rounds include thread start-up.
 *
 * <pre>
 * java -cp pool-bench/target/benchmarks.jar io.github.stealpool.bench.BlockingProbe [tasks] [rounds]
 * </pre>
 */
public final class BlockingProbe {

    static final int PARALLELISM = 2;
    static final long SLEEP_MILLIS = 200;

    private BlockingProbe() {
    }

    public static void main(String[] args) throws Exception {
        int tasks = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        System.out.printf("%d tasks x sleep(%d ms), parallelism %d, JDK %s%n", tasks, SLEEP_MILLIS,
                PARALLELISM, Runtime.version());
        for (int round = 1; round <= rounds; round++) {
            try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(PARALLELISM).build()) {
                report(round, "stealpool, plain sleep", time(pool, tasks, BlockingProbe::plainSleep));
            }
            try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(PARALLELISM).build()) {
                long ms = time(pool, tasks, () -> WorkStealingPool.blocking(BlockingProbe::plainSleep));
                report(round, "stealpool, sleep in blocking(...)", ms + " ms, " + pool.stats().compensations()
                        + " spares started");
            }
            ForkJoinPool fjp = new ForkJoinPool(PARALLELISM);
            try {
                report(round, "ForkJoinPool, sleep in managedBlock", time(fjp, tasks, BlockingProbe::managedSleep));
            } finally {
                shutdown(fjp);
            }
            ExecutorService fixed = Executors.newFixedThreadPool(PARALLELISM);
            try {
                report(round, "newFixedThreadPool, plain sleep", time(fixed, tasks, BlockingProbe::plainSleep));
            } finally {
                shutdown(fixed);
            }
        }
    }

    interface Sleeper {
        void sleep() throws InterruptedException;
    }

    private static long time(ExecutorService pool, int tasks, Sleeper body) throws Exception {
        long start = System.nanoTime();
        List<Future<?>> done = new ArrayList<>();
        for (int i = 0; i < tasks; i++) {
            done.add(pool.submit(() -> {
                body.sleep();
                return null;
            }));
        }
        for (Future<?> f : done) {
            f.get();
        }
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    private static void plainSleep() throws InterruptedException {
        Thread.sleep(SLEEP_MILLIS);
    }

    private static void managedSleep() throws InterruptedException {
        ForkJoinPool.managedBlock(new ForkJoinPool.ManagedBlocker() {
            private boolean done;

            @Override
            public boolean block() throws InterruptedException {
                Thread.sleep(SLEEP_MILLIS);
                done = true;
                return true;
            }

            @Override
            public boolean isReleasable() {
                return done;
            }
        });
    }

    private static void report(int round, String what, Object result) {
        System.out.printf("round %d  %-38s %s%n", round, what, result instanceof Long ? result + " ms" : result);
    }

    private static void shutdown(ExecutorService pool) throws InterruptedException {
        pool.shutdown();
        pool.awaitTermination(1, TimeUnit.MINUTES);
    }
}
