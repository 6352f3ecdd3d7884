package io.github.stealpool.internal;

import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * Rayon's {@code join} for a worker: push the second half, run the first, then take the second
 * back from the own deque if nobody stole it (the common case: no synchronisation beyond the
 * deque, one allocation, the job), else work until the thief finishes it.
 *
 * <p>Failures: if the first half throws and the second was not stolen, the second never runs;
 * if it was stolen, the join waits for it, so nothing of the join runs on after the caller
 * has moved on, and a second failure is attached to the first as suppressed.
 */
public final class Join {

    private Join() {
    }

    /** The second half of a join, as a stealable job. */
    private static final class Job extends Latch implements ForkedJob {
        private final Supplier<?> supplier; // one of the two is null
        private final Runnable runnable;

        Job(Supplier<?> supplier, Runnable runnable) {
            this.supplier = supplier;
            this.runnable = runnable;
        }

        @Override
        public void run() {
            if (isSet()) {
                return;
            }
            try {
                if (supplier != null) {
                    trySetResult(supplier.get());
                } else {
                    runnable.run();
                    trySetResult(null);
                }
            } catch (Throwable t) {
                trySetFailure(t);
            }
        }

        @Override
        public void abandon() {
            tryCancel();
        }
    }

    /** Runs {@code a} and {@code b}, possibly in parallel, on worker {@code w}'s thread. */
    @SuppressWarnings("unchecked")
    public static <A, B, R> R join(Worker w, Supplier<? extends A> a, Supplier<? extends B> b,
                                   BiFunction<? super A, ? super B, ? extends R> combine) {
        Job jb = new Job(b, null);
        w.fork(jb);
        A ra;
        try {
            ra = a.get();
        } catch (Throwable ex) {
            throw afterFirstFailed(w, jb, ex);
        }
        B rb;
        if (w.tryUnfork(jb)) {
            rb = b.get();
        } else {
            w.awaitLatch(jb);
            Throwable f = jb.failureForThisThread(); // a thief threw it: rebuilt for this thread
            if (f != null) {
                throw Failures.rethrow(f);
            }
            rb = (B) jb.result();
        }
        return combine.apply(ra, rb);
    }

    /** Runs {@code a} and {@code b}, possibly in parallel, on worker {@code w}'s thread. */
    public static void join(Worker w, Runnable a, Runnable b) {
        Job jb = new Job(null, b);
        w.fork(jb);
        try {
            a.run();
        } catch (Throwable ex) {
            throw afterFirstFailed(w, jb, ex);
        }
        if (w.tryUnfork(jb)) {
            b.run();
        } else {
            w.awaitLatch(jb);
            Throwable f = jb.failureForThisThread(); // a thief threw it: rebuilt for this thread
            if (f != null) {
                throw Failures.rethrow(f);
            }
        }
    }

    private static RuntimeException afterFirstFailed(Worker w, Job jb, Throwable first) {
        if (!w.tryUnfork(jb)) {
            w.awaitLatch(jb);
            first = Failures.combine(first, jb.failure());
        }
        return Failures.rethrow(first);
    }
}
