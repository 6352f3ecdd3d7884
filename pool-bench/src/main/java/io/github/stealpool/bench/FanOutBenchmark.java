package io.github.stealpool.bench;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
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

/**
 * Fan-out from inside tasks, the showcase's second workload as a benchmark: one task submitted
 * from outside {@code execute}s two, each of those two more, down {@value #DEPTH} levels
 * ({@link #TASKS} plain {@code Runnable}s: event-style work that spreads through
 * {@code execute} on a worker, not through forks, and is never joined). The operation ends
 * when the last task completes: a leaf counts down its parent, and a node whose two children
 * are done counts down its own parent (one atomic decrement per task, shared by two siblings
 * only), up to a latch the benchmark thread waits on. Our pool and {@code ForkJoinPool} at
 * parallelism 2 and 8 (on a 2-core machine, 8 is the oversubscribed stand-in for many
 * workers); {@code newFixedThreadPool} is the showcase's, not here (ten times slower, its one
 * queue the whole story).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class FanOutBenchmark {

    /** Levels of the binary tree below its root. */
    static final int DEPTH = 19;
    /** Tasks per operation: a full binary tree of {@code DEPTH + 1} levels. */
    static final long TASKS = (1L << (DEPTH + 1)) - 1;

    @Param({"stealpool", "forkjoin"})
    public String pool;

    @Param({"2", "8"})
    public int parallelism;

    private ExecutorService executor;

    @Setup(Level.Trial)
    public void setUp() {
        executor = Contender.of(pool).create(parallelism);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        Contender.stop(executor);
    }

    @Benchmark
    public long fanOut() throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        executor.execute(new Node(executor, DEPTH, null, done));
        done.await();
        return done.getCount();
    }

    /** A node of the tree: submits its two children; done once they are (a leaf: once it ran). */
    static final class Node implements Runnable {
        private static final VarHandle PENDING;

        static {
            try {
                PENDING = MethodHandles.lookup().findVarHandle(Node.class, "pending", int.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final ExecutorService pool;
        private final int levelsBelow;
        private final Node parent;
        private final CountDownLatch root;
        /** Children not yet done; published with the node by {@code execute}. */
        @SuppressWarnings("unused") // through PENDING
        private int pending;

        Node(ExecutorService pool, int levelsBelow, Node parent, CountDownLatch root) {
            this.pool = pool;
            this.levelsBelow = levelsBelow;
            this.parent = parent;
            this.root = root;
            this.pending = levelsBelow > 0 ? 2 : 0;
        }

        @Override
        public void run() {
            if (levelsBelow > 0) {
                pool.execute(new Node(pool, levelsBelow - 1, this, root));
                pool.execute(new Node(pool, levelsBelow - 1, this, root));
            } else {
                done();
            }
        }

        /** This node is done: counts down its ancestors while each is then done too. */
        private void done() {
            Node n = this;
            for (Node p; (p = n.parent) != null; n = p) {
                if ((int) PENDING.getAndAdd(p, -1) != 1) {
                    return; // the sibling is not done yet: it goes on when it is
                }
            }
            root.countDown();
        }
    }
}
