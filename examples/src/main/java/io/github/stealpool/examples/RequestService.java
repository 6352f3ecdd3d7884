package io.github.stealpool.examples;

import io.github.stealpool.WorkStealingPool;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A small request-handling service written against {@link ExecutorService}, the way services
 * that use {@code Executors.newFixedThreadPool} are written. Moving it to the work-stealing
 * pool is one line, in {@link #create}:
 *
 * <pre>{@code
 * ExecutorService workers = Executors.newFixedThreadPool(threads);                 // before
 * ExecutorService workers = WorkStealingPool.builder().parallelism(threads).build(); // after
 * }</pre>
 *
 * Nothing else changes: {@code submit}, {@code invokeAll}, {@code shutdown} and
 * {@code awaitTermination} mean the same on both.
 */
public final class RequestService implements AutoCloseable {

    /** A request: price {@code items} items for customer {@code customer}. */
    public record Request(int customer, int items) {
    }

    /** The answer to a request. */
    public record Quote(int customer, long cents) {
    }

    private final ExecutorService workers;

    public RequestService(ExecutorService workers) {
        this.workers = workers;
    }

    /** The service on our pool (the one changed line) or, for comparison, on a fixed pool. */
    public static RequestService create(int threads, boolean workStealing) {
        ExecutorService workers = workStealing
                ? WorkStealingPool.builder().parallelism(threads).threadNamePrefix("requests").build()
                : Executors.newFixedThreadPool(threads);
        return new RequestService(workers);
    }

    /** Handles one request in the background. */
    public Future<Quote> submit(Request request) {
        return workers.submit(() -> price(request));
    }

    /** Handles a batch and waits for all of it, results in request order. */
    public List<Quote> handleAll(List<Request> requests) throws InterruptedException, ExecutionException {
        List<Callable<Quote>> calls = new ArrayList<>(requests.size());
        for (Request r : requests) {
            calls.add(() -> price(r));
        }
        List<Quote> quotes = new ArrayList<>(requests.size());
        for (Future<Quote> f : workers.invokeAll(calls)) {
            quotes.add(f.get());
        }
        return quotes;
    }

    /** The work of one request: a little CPU, as parsing and pricing would take. */
    static Quote price(Request r) {
        long cents = 0;
        for (int i = 1; i <= r.items(); i++) {
            cents += (r.customer() * 31L + i * 17L) % 1_000 + 99;
        }
        return new Quote(r.customer(), cents);
    }

    /**
     * Stops taking requests and waits for the ones in flight (a minute at most, then it stops
     * them). Interrupted while waiting, it stops them at once and keeps the interrupt status
     * set, as {@code ExecutorService.close()} does (an {@code InterruptedException} thrown from
     * {@code close()} can end up suppressed by try-with-resources, and the interrupt lost).
     */
    @Override
    public void close() {
        workers.shutdown();
        try {
            if (!workers.awaitTermination(1, TimeUnit.MINUTES)) {
                workers.shutdownNow();
            }
        } catch (InterruptedException e) {
            workers.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    /** The pool behind the service (for its statistics). */
    ExecutorService workers() {
        return workers;
    }

    /** {@code count} requests of 1,000 to 5,000 items each. */
    public static List<Request> sampleRequests(int count) {
        List<Request> rs = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            rs.add(new Request(i, 1_000 + i % 4_000)); // a few microseconds each
        }
        return rs;
    }

    public static void main(String[] args) throws Exception {
        List<Request> requests = sampleRequests(50_000);
        for (boolean stealing : new boolean[] {false, true}) {
            try (RequestService service = create(Runtime.getRuntime().availableProcessors(), stealing)) {
                long t0 = System.nanoTime();
                List<Quote> quotes = service.handleAll(requests);
                long ms = (System.nanoTime() - t0) / 1_000_000;
                System.out.printf("%-22s %,d quotes in %d ms (first: %s)%n",
                        stealing ? "WorkStealingPool:" : "newFixedThreadPool:", quotes.size(), ms, quotes.get(0));
            }
        }
    }
}
