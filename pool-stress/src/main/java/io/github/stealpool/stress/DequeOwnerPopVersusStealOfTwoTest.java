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
 * Two elements, the owner popping the bottom one while a thief steals the top one: both succeed,
 * each with its own element, whichever reaches {@code top} first (the owner's store-load fence
 * path, and its CAS when the thief already took the other). Results: what the owner got, what the
 * thief got (0 for nothing), elements left.
 */
@JCStressTest
@Outcome(id = "2, 1, 0", expect = ACCEPTABLE, desc = "owner took the newest, thief the oldest")
@Outcome(expect = FORBIDDEN, desc = "an element taken twice, lost, or taken from the wrong end")
@State
public class DequeOwnerPopVersusStealOfTwoTest {

    private final ChaseLevDeque<Integer> deque = new ChaseLevDeque<>();

    public DequeOwnerPopVersusStealOfTwoTest() {
        deque.push(1);
        deque.push(2);
    }

    @Actor
    public void owner(III_Result r) {
        Integer e = deque.pop();
        r.r1 = e == null ? 0 : e;
    }

    @Actor
    public void thief(III_Result r) {
        Integer e = deque.steal();
        r.r2 = e == null ? 0 : e;
    }

    @Arbiter
    public void left(III_Result r) {
        r.r3 = deque.size();
    }
}
