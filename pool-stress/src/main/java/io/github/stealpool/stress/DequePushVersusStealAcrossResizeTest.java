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
 * A full deque of capacity 2: the owner's push grows the array while a thief steals. Whether the
 * thief reads the old array or the new one, it gets the oldest element, and the rest are all in
 * the deque exactly once. Results: the element stolen (0 for none), the sum of the elements left
 * (drained by the owner afterwards), their count.
 */
@JCStressTest
@Outcome(id = "1, 5, 2", expect = ACCEPTABLE, desc = "stole the oldest; 2 and 3 left")
@Outcome(expect = FORBIDDEN, desc = "an element lost, duplicated, or a failed steal without a rival")
@State
public class DequePushVersusStealAcrossResizeTest {

    private final ChaseLevDeque<Integer> deque = new ChaseLevDeque<>(2);

    public DequePushVersusStealAcrossResizeTest() {
        deque.push(1);
        deque.push(2); // full: the next push grows the array
    }

    @Actor
    public void owner() {
        deque.push(3);
    }

    @Actor
    public void thief(III_Result r) {
        Integer e = deque.steal(); // nobody else moves top, so this cannot lose a race
        r.r1 = e == null ? 0 : e;
    }

    @Arbiter
    public void drain(III_Result r) {
        int sum = 0;
        int n = 0;
        for (Integer e; (e = deque.pop()) != null; ) {
            sum += e;
            n++;
        }
        r.r2 = sum;
        r.r3 = n;
    }
}
