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
 * A waiter that gives up and sweeps the waiter stack (issue 35, item 2) races a waiter that
 * pushes itself and stays; then the same thread sets the latch. The sweep moves the head only
 * from a gone node to its successor, so it never takes off the staying waiter's node, and the
 * completion wakes it: STALE would be a lost wake-up.
 */
@JCStressTest(Mode.Termination)
@Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "the waiter that stayed saw the completion")
@Outcome(id = "STALE", expect = FORBIDDEN, desc = "the waiter that stayed missed the completion")
@State
public class LatchUnlinkVersusPushTest {

    private final Gate gate = new Gate();

    @Actor
    public void stay() {
        try {
            gate.await(-1L); // interruptible, so jcstress can reclaim a STALE run
        } catch (InterruptedException e) {
            // STALE run reclaimed
        }
    }

    @Signal
    public void giveUpThenSet() throws InterruptedException {
        gate.await(0L); // push, re-read, unlink: never parks
        gate.set(42);
    }
}
