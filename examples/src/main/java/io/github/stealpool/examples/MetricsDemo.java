package io.github.stealpool.examples;

import io.github.stealpool.SaturationPolicy;
import io.github.stealpool.WorkStealingPool;
import io.github.stealpool.metrics.WorkStealingPoolMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * A pool at work with its meters on a Prometheus endpoint.
 *
 * <pre>
 * mvn -B -q -DskipTests -pl examples -am package exec:java \
 *     -Dexec.mainClass=io.github.stealpool.examples.MetricsDemo -Dexec.args="--port=9464"
 * curl -s http://127.0.0.1:9464/metrics | grep ^executor_
 * </pre>
 *
 * Options: {@code --port N} (default 9464, 0 for any free port), {@code --host ADDRESS}
 * (default 127.0.0.1: loopback only), {@code --seconds N} (default 0: run until stopped); each
 * also as {@code --name=value}.
 * Point Prometheus at the endpoint and import {@code examples/grafana/stealpool-dashboard.json}
 * into Grafana to watch it.
 *
 * <p>The workload alternates fork/join recursion (tasks pushed on the workers' own deques and
 * stolen), bursts of small tasks from outside the pool (the injection queue; with
 * {@code WorkStealingPoolMetrics.timeTasks} on, a sample of them feeds the task timers), and pauses
 * (the workers park, and the idle counter grows).
 */
public final class MetricsDemo implements AutoCloseable {

    /** The port Prometheus' own exporters conventionally start from. */
    static final int DEFAULT_PORT = 9464;

    private final WorkStealingPool pool;
    private final PrometheusMeterRegistry registry;
    private final MetricsServer server;

    private MetricsDemo(WorkStealingPool pool, PrometheusMeterRegistry registry, MetricsServer server) {
        this.pool = pool;
        this.registry = registry;
        this.server = server;
    }

    /**
     * Starts a pool named {@code demo}, binds its meters to a Prometheus registry and serves them.
     *
     * @param host        address to bind, such as 127.0.0.1
     * @param port        port to bind; 0 for any free one
     * @param parallelism the pool's workers
     * @throws IOException if the address cannot be bound (the pool is then shut down)
     */
    public static MetricsDemo start(String host, int port, int parallelism) throws IOException {
        // Bounded, so that the bound's meters are served too: a burst from outside waits for
        // room rather than queueing without limit.
        WorkStealingPool pool = WorkStealingPool.builder()
                .parallelism(parallelism).threadNamePrefix("demo")
                .maxQueuedSubmissions(10_000).saturationPolicy(SaturationPolicy.BLOCK).build();
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        WorkStealingPoolMetrics.monitor(registry, pool, "demo");
        WorkStealingPoolMetrics.timeTasks(registry, pool, "demo"); // executor and executor.idle, sampled
        // The JVM's threads and the CPU beside the pool, so parked time can be read against them.
        new io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics().bindTo(registry);
        new io.micrometer.core.instrument.binder.system.ProcessorMetrics().bindTo(registry);
        try {
            return new MetricsDemo(pool, registry, MetricsServer.start(registry, new InetSocketAddress(host, port)));
        } catch (IOException | RuntimeException e) {
            pool.shutdownNow();
            throw e;
        }
    }

    public WorkStealingPool pool() {
        return pool;
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /** Where the meters are served. */
    public URI uri() {
        return server.uri();
    }

    /** Fork/join: fib(n) by recursive {@code join}, from outside the pool. */
    public long forkJoinRound(int n) throws InterruptedException, ExecutionException {
        return pool.submit(() -> fib(n)).get();
    }

    private long fib(int n) {
        if (n < 20) {
            return sequentialFib(n); // below this a task costs more than the work it carries
        }
        return pool.join(() -> fib(n - 1), () -> fib(n - 2), Long::sum);
    }

    private static long sequentialFib(int n) {
        return n < 2 ? n : sequentialFib(n - 1) + sequentialFib(n - 2);
    }

    /**
     * {@code tasks} small tasks submitted from this (outside) thread (a sample of them timed);
     * returns when all ran.
     */
    public void externalBurst(int tasks) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(tasks);
        for (int i = 0; i < tasks; i++) {
            pool.execute(done::countDown);
        }
        done.await();
    }

    /**
     * Stops the endpoint, then the pool (its meters leave the registry as it terminates), waiting
     * a minute at most. Interrupted while waiting, it stops the pool's tasks at once and keeps the
     * interrupt status set, as {@code ExecutorService.close()} does.
     */
    @Override
    public void close() {
        server.close();
        pool.shutdown();
        try {
            pool.awaitTermination(1, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            pool.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    private static final String USAGE = "usage: MetricsDemo [--port N] [--host ADDRESS] [--seconds N]"
            + " (or --port=N, ...)";

    /**
     * Reads {@code --name value} and {@code --name=value} alike (the first form failed with
     * "unknown option" before); an option without its value is an error naming it.
     */
    static java.util.Map<String, String> options(String[] args) {
        java.util.Map<String, String> options = new java.util.LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            int eq = a.indexOf('=');
            if (!a.startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument " + a + "; " + USAGE);
            } else if (eq > 0) {
                options.put(a.substring(0, eq), a.substring(eq + 1));
            } else if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
                options.put(a, args[++i]);
            } else {
                throw new IllegalArgumentException("option " + a + " needs a value; " + USAGE);
            }
        }
        return options;
    }

    public static void main(String[] args) throws Exception {
        String host = "127.0.0.1";
        int port = DEFAULT_PORT;
        long seconds = 0;
        java.util.Map<String, String> options = options(args);
        for (java.util.Map.Entry<String, String> o : options.entrySet()) {
            switch (o.getKey()) {
                case "--port":
                    port = Integer.parseInt(o.getValue());
                    break;
                case "--host":
                    host = o.getValue();
                    break;
                case "--seconds":
                    seconds = Long.parseLong(o.getValue());
                    break;
                default:
                    throw new IllegalArgumentException("unknown option " + o.getKey() + "; " + USAGE);
            }
        }
        try (MetricsDemo demo = start(host, port, Runtime.getRuntime().availableProcessors())) {
            System.out.println("Serving " + demo.uri() + (seconds > 0 ? " for " + seconds + " s" : "; Ctrl-C stops"));
            long end = seconds > 0 ? System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds) : Long.MAX_VALUE;
            while (System.nanoTime() < end) {
                demo.forkJoinRound(30);
                demo.externalBurst(100_000);
                Thread.sleep(500); // idle: the workers park
                System.out.println(demo.pool().stats());
            }
        }
    }
}
