package io.github.stealpool.examples;

import io.github.stealpool.PoolStats;
import io.github.stealpool.WorkStealingPool;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;

/**
 * The README's "run it" command: our pool against {@code Executors.newFixedThreadPool} and
 * {@code ForkJoinPool} on bursts of small tasks, the case where one shared locked queue hurts.
 *
 * <p>Two workloads, each run several times per pool, reporting the median and the quartiles:
 * <ul>
 *   <li><b>external burst</b>: two outside threads submit tiny tasks as fast as they can;</li>
 *   <li><b>fan-out</b>: one task submits two, each of those two more, and so on: tasks submitted
 *       from inside the pool, which go to the submitting worker's own deque.</li>
 * </ul>
 * The pools take turns within each round, and a verdict compares them round by round: it says
 * "level" unless the middle half of the rounds (the quartiles of the per-round ratio) agree on
 * which pool is ahead, so that a noisy machine gives "level", not a verdict one run and its
 * opposite the next. Run with {@code --tasks=N --runs=R} to change the sizes. This is a
 * demonstration with plain timing, not a benchmark: the JMH suite in pool-bench is the one to
 * quote.
 */
public final class Showcase {

    /** One pool under test: a name and how to make it with a given parallelism. */
    private static final class Contender {
        final String name;
        final IntFunction<ExecutorService> factory;

        Contender(String name, IntFunction<ExecutorService> factory) {
            this.name = name;
            this.factory = factory;
        }
    }

    private static final List<Contender> CONTENDERS = List.of(
            new Contender("stealpool WorkStealingPool",
                    n -> WorkStealingPool.builder().parallelism(n).daemon(true).build()),
            new Contender("Executors.newFixedThreadPool", Executors::newFixedThreadPool),
            new Contender("ForkJoinPool", ForkJoinPool::new));

    /** Full-size rounds per contender before timing: lets the JIT compile every hot path. */
    private static final int WARM_UP_ROUNDS = 3;

    private Showcase() {
    }

    public static void main(String[] args) throws Exception {
        int tasks = 1_000_000;
        int runs = 15;
        for (String a : args) {
            if (a.startsWith("--tasks=")) {
                tasks = Integer.parseInt(a.substring("--tasks=".length()));
            } else if (a.startsWith("--runs=")) {
                runs = Integer.parseInt(a.substring("--runs=".length()));
            } else {
                throw new IllegalArgumentException("unknown argument: " + a + " (use --tasks=N --runs=R)");
            }
        }
        if (tasks < 2 || runs < 1) {
            throw new IllegalArgumentException("--tasks must be at least 2 and --runs at least 1");
        }
        run(System.out, tasks, runs);
    }

    /**
     * Runs both workloads on every contender and prints a table; returns the median times in
     * nanoseconds, indexed [workload][contender]. The contenders take turns within each round,
     * so a noisy neighbour on a shared machine hurts them alike, and each is warmed up first.
     */
    public static double[][] run(PrintStream out, int tasks, int runs) throws Exception {
        int parallelism = Runtime.getRuntime().availableProcessors();
        out.printf(Locale.ROOT, "stealpool showcase: %,d tiny tasks per run, median and quartiles "
                + "of %d runs (contenders take turns), parallelism %d, %s %s%n%n", tasks, runs, parallelism,
                System.getProperty("java.vm.name"), System.getProperty("java.version"));
        String[] workloads = {"external burst (2 submitters)", "fan-out from inside tasks"};
        int n = CONTENDERS.size();
        double[][] medians = new double[workloads.length][n];
        double[][] times = new double[n][runs];
        for (int w = 0; w < workloads.length; w++) {
            out.print(workloads[w] + " ");
            out.flush();
            List<ExecutorService> pools = new ArrayList<>();
            try {
                for (Contender c : CONTENDERS) {
                    pools.add(c.factory.apply(parallelism));
                }
                for (int r = 0; r < WARM_UP_ROUNDS; r++) {
                    for (ExecutorService pool : pools) {
                        once(pool, w, tasks);
                    }
                }
                for (int r = 0; r < runs; r++) {
                    for (int c = 0; c < n; c++) {
                        times[c][r] = once(pools.get(c), w, tasks);
                    }
                    out.print('.');
                    out.flush();
                }
                out.println();
                for (int c = 0; c < n; c++) {
                    double[] q = quartiles(times[c]);
                    medians[w][c] = q[1];
                    out.printf(Locale.ROOT, "  %-30s %8.1f ms (quartiles %.1f-%.1f)  %6.2f M tasks/s%n",
                            CONTENDERS.get(c).name, q[1] / 1e6, q[0] / 1e6, q[2] / 1e6,
                            tasks / (q[1] / 1e6) / 1e3);
                }
            } finally {
                for (ExecutorService pool : pools) {
                    pool.shutdownNow();
                    pool.awaitTermination(10, TimeUnit.SECONDS);
                }
            }
            out.printf(Locale.ROOT, "  -> stealpool is %s newFixedThreadPool, %s ForkJoinPool%n%n",
                    verdict(times[1], times[0]), verdict(times[2], times[0]));
        }
        demos(out, tasks >= 1_000_000 ? 1.0 : 0.05, Math.max(1, Math.min(runs, 5)));
        out.println("Plain wall-clock medians on a possibly shared machine; see pool-bench for JMH figures.");
        return medians;
    }

    /**
     * One demo: what it computes, three ways, timed and compared. Each way returns its answer,
     * which the showcase keeps and compares: a baseline whose result nobody reads can be
     * removed by the JIT (on JDK 25 the request service's sequential loop was, and the pool
     * looked 100x slower than it), and a fast wrong answer would prove nothing.
     */
    private record Demo(String name, String jdkName, Callable<Object> sequential, Callable<Object> jdk,
                        PoolStep ours) {
    }

    /** Where every answer goes, so none can be optimised away. */
    private static volatile Object answer;

    /**
     * The examples, each timed sequentially, the JDK way, and on our pool (median of
     * {@code runs} after one warm-up), with what the pool did during the timed runs after each.
     * {@code scale} shrinks the inputs (1.0 for the README's command).
     */
    public static void demos(PrintStream out, double scale, int runs) throws Exception {
        int parallelism = Runtime.getRuntime().availableProcessors();
        int requests = (int) Math.max(1_000, 50_000 * scale);
        int fibN = scale >= 1 ? 36 : 24;
        int mw = (int) Math.max(80, 1200 * Math.sqrt(scale));
        int mh = mw * 3 / 4;
        int mn = (int) Math.max(60, 700 * Math.sqrt(scale));
        List<RequestService.Request> reqs = RequestService.sampleRequests(requests);
        double[][] mats = TriangularMatrixDemo.inputs(mn);
        java.nio.file.Path png = java.nio.file.Path.of("target", "mandelbrot.png");
        ForkJoinPool fjp = new ForkJoinPool(parallelism);
        List<Demo> demos = List.of(
                new Demo("RequestService, " + requests + " requests (invokeAll)", "newFixedThreadPool",
                        () -> {
                            List<RequestService.Quote> quotes = new ArrayList<>(reqs.size());
                            for (RequestService.Request r : reqs) {
                                quotes.add(RequestService.price(r));
                            }
                            return quotes;
                        },
                        () -> {
                            try (RequestService s = new RequestService(Executors.newFixedThreadPool(parallelism))) {
                                return s.handleAll(reqs);
                            }
                        },
                        pool -> new RequestService(pool).handleAll(reqs)),
                new Demo("fork/join fib(" + fibN + "), cutoff " + ForkJoinDemo.CUTOFF, "ForkJoinPool RecursiveTask",
                        () -> ForkJoinDemo.fibSequential(fibN),
                        () -> fjp.invoke(new ForkJoinDemo.FjFib(fibN)),
                        pool -> pool.invoke(new ForkJoinDemo.Fib(fibN))),
                new Demo("Mandelbrot " + mw + "x" + mh + " (range loop over rows)", "parallel stream",
                        () -> MandelbrotDemo.renderSequential(mw, mh),
                        () -> MandelbrotDemo.renderParallelStream(mw, mh),
                        pool -> MandelbrotDemo.render(pool, mw, mh)),
                new Demo("triangular matrix product " + mn + "x" + mn + " (range loop in chunks)", "parallel stream",
                        () -> TriangularMatrixDemo.multiplySequential(mats[0], mats[1], mn),
                        () -> TriangularMatrixDemo.multiplyParallelStream(mats[0], mats[1], mn),
                        pool -> TriangularMatrixDemo.multiply(pool, mats[0], mats[1], mn)));
        int k = 0;
        for (Demo d : demos) {
            k++;
            out.printf(Locale.ROOT, "[%d/%d] %s ", k, demos.size(), d.name());
            out.flush();
            WorkStealingPool pool = WorkStealingPool.builder().parallelism(parallelism).daemon(true).build();
            try {
                double[][] t = new double[3][runs];
                PoolStats before = null;
                long timedStart = 0;
                for (int r = -1; r < runs; r++) { // round -1 warms up
                    if (r == 0) {
                        before = settledStats(pool);
                        timedStart = System.nanoTime();
                    }
                    long t0 = System.nanoTime();
                    Object expected = d.sequential().call();
                    long t1 = System.nanoTime();
                    Object theirs = d.jdk().call();
                    long t2 = System.nanoTime();
                    Object ours = d.ours().run(pool);
                    long t3 = System.nanoTime();
                    answer = ours;
                    if (!Objects.deepEquals(expected, theirs) || !Objects.deepEquals(expected, ours)) {
                        throw new IllegalStateException(d.name() + ": the three ways gave different answers");
                    }
                    if (r >= 0) {
                        t[0][r] = t1 - t0;
                        t[1][r] = t2 - t1;
                        t[2][r] = t3 - t2;
                    }
                    out.print('.');
                    out.flush();
                }
                long timedNanos = System.nanoTime() - timedStart;
                PoolStats after = settledStats(pool);
                double seq = quartiles(t[0])[1];
                double jdk = quartiles(t[1])[1];
                double ours = quartiles(t[2])[1];
                out.println(" (same answer all three ways)");
                out.printf(Locale.ROOT, "  sequential %.1f ms, %s %.1f ms, stealpool %.1f ms (medians)"
                                + " -> stealpool is %s sequential, %s %s%n",
                        seq / 1e6, d.jdkName(), jdk / 1e6, ours / 1e6, verdict(t[0], t[2]),
                        verdict(t[1], t[2]), d.jdkName());
                out.println("  " + activity(before, after, timedNanos));
            } finally {
                pool.shutdownNow();
            }
        }
        fjp.shutdown();
        java.nio.file.Files.createDirectories(png.getParent());
        MandelbrotDemo.writePng(MandelbrotDemo.renderSequential(mw, mh), mw, mh, png);
        out.println("Mandelbrot image written to " + png.toAbsolutePath());
        out.println("(\"the pool\" lines count the timed runs only, between two moments when every task"
                + " submitted had completed; parked time is summed over the workers, and the pool sits"
                + " parked while the sequential and JDK runs take their turn, so it can exceed the wall time)");
        out.println();
    }

    /**
     * The first quartile, the median and the third quartile of {@code values} (not changed),
     * interpolated between neighbours.
     */
    public static double[] quartiles(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        return new double[] {quantile(v, 0.25), quantile(v, 0.5), quantile(v, 0.75)};
    }

    private static double quantile(double[] sorted, double p) {
        double at = p * (sorted.length - 1);
        int lo = (int) Math.floor(at);
        int hi = Math.min(lo + 1, sorted.length - 1);
        return sorted[lo] + (at - lo) * (sorted[hi] - sorted[lo]);
    }

    /**
     * The verdict on our times against {@code theirs}, round by round (the pools took turns in
     * each round): "1.40x faster than (1.31-1.52x)" when the quartiles of the per-round ratio
     * both say so, else "level with (0.94-1.08x)": a noisy machine gives "level", never a
     * verdict that the next run reverses.
     */
    public static String verdict(double[] theirs, double[] ours) {
        double[] ratio = new double[ours.length];
        for (int r = 0; r < ours.length; r++) {
            ratio[r] = theirs[r] / ours[r];
        }
        double[] q = quartiles(ratio);
        String range = String.format(Locale.ROOT, " (%.2f-%.2fx, %d rounds)", q[0], q[2], ours.length);
        if (q[0] > 1.0) {
            return String.format(Locale.ROOT, "%.2fx faster than", q[1]) + range;
        }
        if (q[2] < 1.0) {
            return String.format(Locale.ROOT, "%.2fx slower than", 1.0 / q[1]) + range;
        }
        return "level with" + range;
    }

    /**
     * The pool's statistics once every task submitted so far has completed (a worker counts a
     * task as completed just after the caller saw its result, so a snapshot taken at once may
     * be one short). Gives up waiting after a second and returns what it has.
     */
    private static PoolStats settledStats(WorkStealingPool pool) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
        PoolStats s = pool.stats();
        while (s.completedTasks() < s.submittedTasks() && System.nanoTime() < deadline) {
            Thread.onSpinWait();
            s = pool.stats();
        }
        return s;
    }

    /** One line: what the pool did between {@code a} and {@code b}, {@code nanos} apart. */
    static String activity(PoolStats a, PoolStats b, long nanos) {
        return String.format(Locale.ROOT, "the pool, timed runs only: %,d tasks completed of %,d submitted, %,d steals"
                        + " in %,d attempts, %,d parks, %.3f s parked in all across %d workers (wall time %.3f s)",
                b.completedTasks() - a.completedTasks(), b.submittedTasks() - a.submittedTasks(),
                b.steals() - a.steals(), b.stealAttempts() - a.stealAttempts(), b.parks() - a.parks(),
                (b.parkedNanos() - a.parkedNanos()) / 1e9, b.parallelism(), nanos / 1e9);
    }

    @FunctionalInterface
    private interface PoolStep {
        Object run(WorkStealingPool pool) throws Exception;
    }

    private static long once(ExecutorService pool, int workload, int tasks) throws InterruptedException {
        LongAdder done = new LongAdder();
        long start = System.nanoTime();
        if (workload == 0) {
            externalBurst(pool, tasks, done);
        } else {
            int depth = 31 - Integer.numberOfLeadingZeros(tasks); // 2^depth - 1 <= tasks
            tasks = (1 << depth) - 1;
            pool.execute(new FanOut(pool, depth - 1, done));
        }
        while (done.sum() < tasks) {
            LockSupport.parkNanos(50_000L);
        }
        return System.nanoTime() - start;
    }

    private static void externalBurst(ExecutorService pool, int tasks, LongAdder done)
            throws InterruptedException {
        Runnable tiny = done::increment;
        List<Thread> submitters = new ArrayList<>();
        for (int s = 0; s < 2; s++) {
            int share = tasks / 2 + (s == 0 ? tasks % 2 : 0);
            Thread t = new Thread(() -> {
                for (int i = 0; i < share; i++) {
                    pool.execute(tiny);
                }
            }, "submitter-" + s);
            submitters.add(t);
            t.start();
        }
        for (Thread t : submitters) {
            t.join();
        }
    }

    /** A node of a binary fan-out: runs, then submits its two children. */
    private static final class FanOut implements Runnable {
        private final ExecutorService pool;
        private final int levelsBelow;
        private final LongAdder done;

        FanOut(ExecutorService pool, int levelsBelow, LongAdder done) {
            this.pool = pool;
            this.levelsBelow = levelsBelow;
            this.done = done;
        }

        @Override
        public void run() {
            if (levelsBelow > 0) {
                pool.execute(new FanOut(pool, levelsBelow - 1, done));
                pool.execute(new FanOut(pool, levelsBelow - 1, done));
            }
            done.increment();
        }
    }
}
