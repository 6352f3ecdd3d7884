package io.github.stealpool;

import java.util.concurrent.atomic.AtomicInteger;

/** A test task that counts how often compute ran; returns the count, or throws its failure if set. */
final class CountingTask extends Task<Integer> {
    final AtomicInteger runs = new AtomicInteger();
    private final RuntimeException failure;

    CountingTask() {
        this(null);
    }

    CountingTask(RuntimeException failure) {
        this.failure = failure;
    }

    @Override
    protected Integer compute() {
        int n = runs.incrementAndGet();
        if (failure != null) {
            throw failure;
        }
        return n;
    }
}
