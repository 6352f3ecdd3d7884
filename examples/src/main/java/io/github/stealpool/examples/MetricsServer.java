package io.github.stealpool.examples;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Serves a Prometheus registry's meters at {@code /metrics} with the JDK's own
 * {@link HttpServer}: no web framework, one dispatcher thread, text format 0.0.4.
 *
 * <p>Binds to the address it is given; {@link MetricsDemo} passes 127.0.0.1 unless told
 * otherwise, so the endpoint is not exposed beyond the machine by accident.
 */
public final class MetricsServer implements AutoCloseable {

    /** The content type of Prometheus' text exposition format. */
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final HttpServer server;

    private MetricsServer(HttpServer server) {
        this.server = server;
    }

    /**
     * Starts serving {@code registry} at {@code http://address/metrics}.
     *
     * @param address where to listen; port 0 picks a free port (see {@link #port()})
     * @throws IOException if the address cannot be bound
     */
    public static MetricsServer start(PrometheusMeterRegistry registry, InetSocketAddress address)
            throws IOException {
        Objects.requireNonNull(registry, "registry");
        Objects.requireNonNull(address, "address");
        HttpServer server = HttpServer.create(address, 0);
        server.createContext("/metrics", exchange -> respond(exchange, registry));
        server.start();
        return new MetricsServer(server);
    }

    private static void respond(HttpExchange exchange, PrometheusMeterRegistry registry)
            throws IOException {
        try (exchange) {
            if (!"GET".equals(exchange.getRequestMethod())) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            byte[] body = registry.scrape().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    /** The port bound, useful after asking for port 0. */
    public int port() {
        return server.getAddress().getPort();
    }

    /** The address of the endpoint, such as {@code http://127.0.0.1:9464/metrics}. */
    public URI uri() {
        InetSocketAddress a = server.getAddress();
        return URI.create("http://" + a.getHostString() + ":" + a.getPort() + "/metrics");
    }

    /** Stops serving at once. */
    @Override
    public void close() {
        server.stop(0);
    }
}
