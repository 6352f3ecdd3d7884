package io.github.stealpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A future the caller keeps after it completed keeps nothing of its task alive, as
 * {@code FutureTask} drops its callable once done: neither the task nor what it captured (the
 * flight-recorder events once kept the task itself in the future, for its class). Checked with a
 * weak reference to an object the task captured, cleared while the future is still strongly
 * held: a completed {@code submit} of a {@code Callable} and of a {@code Runnable}, and a
 * cancelled {@code schedule}. Awaitility only detects hangs (a GC that never clears it).
 */
class DoneFutureRetentionTest {

    private static final Duration HANG = Duration.ofSeconds(30);

    /** What a task captures: a weak reference tells when it is gone. */
    private static final class Payload {
        int value = 42;
    }

    @Test
    void aCompletedSubmitKeepsNothingOfItsTask() throws Exception {
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).daemon(true).build()) {
            Kept<Future<Integer>> callable = submitCallable(pool);
            Kept<Future<?>> runnable = submitRunnable(pool);
            assertEquals(42, callable.future.get(HANG.toSeconds(), TimeUnit.SECONDS));
            runnable.future.get(HANG.toSeconds(), TimeUnit.SECONDS);
            awaitCleared(callable.captured);
            awaitCleared(runnable.captured);
            assertTrue(callable.future.isDone() && runnable.future.isDone()); // strongly held to here
        }
    }

    @Test
    void aCancelledScheduleKeepsNothingOfItsTask() throws Exception {
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).daemon(true).build()) {
            Kept<ScheduledFuture<?>> scheduled = scheduleRunnable(pool);
            assertTrue(scheduled.future.cancel(false));
            awaitCleared(scheduled.captured);
            assertTrue(scheduled.future.isCancelled()); // strongly held to here
        }
    }

    /**
     * A future and a weak reference to what its task captured. Made in a method of its own, so
     * that no local variable of the test's frame holds the payload (an interpreted frame keeps
     * its locals alive until it returns).
     */
    private record Kept<F>(F future, WeakReference<Payload> captured) {
    }

    private static Kept<Future<Integer>> submitCallable(WorkStealingPool pool) {
        Payload p = new Payload();
        return new Kept<>(pool.submit(() -> p.value), new WeakReference<>(p));
    }

    private static Kept<Future<?>> submitRunnable(WorkStealingPool pool) {
        Payload p = new Payload();
        return new Kept<>(pool.submit(() -> check(p)), new WeakReference<>(p));
    }

    private static Kept<ScheduledFuture<?>> scheduleRunnable(WorkStealingPool pool) {
        Payload p = new Payload();
        return new Kept<>(pool.schedule(() -> check(p), 1, TimeUnit.HOURS), new WeakReference<>(p));
    }

    private static void check(Payload p) {
        if (p.value != 42) {
            throw new AssertionError(p.value);
        }
    }

    /** Waits until a GC cleared {@code ref}. */
    private static void awaitCleared(WeakReference<Payload> ref) {
        await().atMost(HANG).until(() -> {
            System.gc();
            return ref.get() == null;
        });
    }
}
