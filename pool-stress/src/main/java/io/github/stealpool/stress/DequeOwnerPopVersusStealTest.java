package io.github.stealpool.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.github.stealpool.internal.ChaseLevDeque;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * The Chase-Lev hazard: the owner pops the last element while a thief steals it. Exactly one of
 * them gets it (the owner's CAS on {@code top} against the thief's), and the deque is empty after.
 * Results: owner got it (1/0), thief got it (1/0), elements left.
 */
@JCStressTest
@Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "the owner popped it")
@Outcome(id = "0, 1, 0", expect = ACCEPTABLE, desc = "the thief stole it")
@Outcome(expect = FORBIDDEN, desc = "taken twice, or lost")
@State
public class DequeOwnerPopVersusStealTest {

    private final ChaseLevDeque<Integer> deque = new ChaseLevDeque<>();

    public DequeOwnerPopVersusStealTest() {
        deque.push(1); // jcstress publishes the state to the actors safely: the owner moves on
    }

    @Actor
    public void owner(III_Result r) {
        r.r1 = deque.pop() != null ? 1 : 0;
    }

    @Actor
    public void thief(III_Result r) {
        r.r2 = deque.steal() != null ? 1 : 0;
    }

    @Arbiter
    public void left(III_Result r) {
        r.r3 = deque.size();
    }
}
