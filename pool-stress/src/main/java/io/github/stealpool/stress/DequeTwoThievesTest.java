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
 * Two thieves race for one element: exactly one wins (the CAS on {@code top}); the loser sees
 * null. Results: first thief got it, second thief got it, elements left.
 */
@JCStressTest
@Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "the first thief won")
@Outcome(id = "0, 1, 0", expect = ACCEPTABLE, desc = "the second thief won")
@Outcome(expect = FORBIDDEN, desc = "taken twice, or lost")
@State
public class DequeTwoThievesTest {

    private final ChaseLevDeque<Integer> deque = new ChaseLevDeque<>();

    public DequeTwoThievesTest() {
        deque.push(1);
    }

    @Actor
    public void thief1(III_Result r) {
        r.r1 = deque.steal() != null ? 1 : 0;
    }

    @Actor
    public void thief2(III_Result r) {
        r.r2 = deque.steal() != null ? 1 : 0;
    }

    @Arbiter
    public void left(III_Result r) {
        r.r3 = deque.size();
    }
}
