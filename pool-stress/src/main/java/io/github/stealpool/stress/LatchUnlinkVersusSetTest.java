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
 * A waiter that gives up and unlinks its node (issue 35, item 2) races the completion that
 * closes the waiter stack, then waits again and stays: the give-up (a zero timeout) pushes its
 * node, re-reads the outcome and sweeps the stack, while the setter CASes the outcome and swaps
 * the stack to CLOSED. The sweep must never reopen a closed stack nor leave the second wait's
 * node where no completer will find it, so the waiter that stays always ends: STALE would be a
 * lost wake-up. (Two threads, so that it runs on two CPUs; the three-party race, a waiter that
 * stays while another gives up as the latch is set, is model-checked in pool-core's
 * LatchLincheckTest.)
 */
@JCStressTest(Mode.Termination)
@Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "the waiter that stayed saw the completion")
@Outcome(id = "STALE", expect = FORBIDDEN, desc = "the waiter that stayed missed the completion")
@State
public class LatchUnlinkVersusSetTest {

    private final Gate gate = new Gate();

    @Actor
    public void giveUpThenStay() {
        try {
            gate.await(0L); // push, re-read, unlink: never parks
            gate.await(-1L); // parks until set; interruptible, so jcstress can reclaim a STALE run
        } catch (InterruptedException e) {
            // STALE run reclaimed
        }
    }

    @Signal
    public void set() {
        gate.set(42);
    }
}
