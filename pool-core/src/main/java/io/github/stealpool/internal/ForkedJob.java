package io.github.stealpool.internal;

/**
 * A piece of fork/join work (a forked task, the second half of a join, a scope's spawned task)
 * that someone inside the pool waits for. {@code shutdownNow} does not hand these back to its
 * caller, who never submitted them; it abandons them, which must release their waiters.
 */
public interface ForkedJob extends Runnable {

    /** The pool will never run this job: fail it so that whoever waits for it stops waiting. */
    void abandon();
}
