package io.github.stealpool.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Mode;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.Signal;
import org.openjdk.jcstress.annotations.State;

/**
 * A thread outside the pool blocks waiting for a latch (what {@code Task.join()}, {@code get()}
 * and every join inside the pool wait on) while another sets it: the waiter's registration on
 * the latch (a Treiber stack) races with the completion that releases the waiters. The waiter
 * must always be released: STALE would be a lost wake-up. (A {@link Gate}, a latch built as a
 * Task is, rather than a Task: a Task that nothing was going to run may not be waited on from
 * outside any more, it throws.)
 */
@JCStressTest(Mode.Termination)
@Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "the waiter saw the completion")
@Outcome(id = "STALE", expect = FORBIDDEN, desc = "the waiter missed the completion")
@State
public class LatchWakesWaiterTest {

    private final Gate gate = new Gate();

    @Actor
    public void waiter() {
        try {
            gate.await(-1L); // the wait behind Task.get(): interruptible, so jcstress can reclaim a STALE run's thread
        } catch (InterruptedException e) {
            // STALE run reclaimed
        }
    }

    @Signal
    public void complete() {
        gate.set(42); // the completion behind Task.complete() and a task's run
    }
}
