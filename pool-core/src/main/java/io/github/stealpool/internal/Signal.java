package io.github.stealpool.internal;

/** The plainest latch: set once, carries no value. */
public final class Signal extends Latch {

    /** Sets the signal and wakes its waiters; later calls do nothing. */
    public void set() {
        trySetResult(null);
    }

    /** Waits until set; a pool worker works meanwhile, another thread parks uninterruptibly. */
    public void await() {
        awaitUninterruptibly();
    }
}
