package io.github.stealpool.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.github.stealpool.internal.ChaseLevDeque;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * A worker's fork is fenced only when {@code push} reports that the deque was empty (Worker.fork);
 * a worker exiting after STOP settles what is left by popping it (ShutdownSweep, rules 2 and 3),
 * while a thief (or a sweep, which takes the same way) may steal from the top. Here the owner
 * pushes two elements, then pops until empty as the exit does; the thief steals once. Each
 * element must be taken exactly once, by one side, and the second push may report an empty
 * deque only if it was: the thief took the first before it. (It may report "not empty" when the
 * thief's steal falls between its read of {@code top} and its store: the fork then skips the
 * fence and the notice, which costs parallelism, never a task.) Results: a
 * mask of what the owner took (bit 1 for element 1, bit 2 for element 2; 8 if it took one
 * twice), what the thief took (0 for nothing), elements left, and 1 if the second push reported
 * an empty deque.
 */
@JCStressTest
@Outcome(id = "6, 0, 0, 0", expect = ACCEPTABLE, desc = "the thief came too early or too late: the owner took both")
@Outcome(id = "4, 1, 0, 1", expect = ACCEPTABLE, desc = "the thief took the older before the second push, which saw the deque empty")
@Outcome(id = "4, 1, 0, 0", expect = ACCEPTABLE, desc = "the thief took the older after the second push read top")
@Outcome(expect = FORBIDDEN, desc = "an element taken twice, lost, or from the wrong end, or an empty deque reported while it held the first element")
@State
public class DequeUnfencedForksVersusExitAndThiefTest {

    private final ChaseLevDeque<Integer> deque = new ChaseLevDeque<>();

    @Actor
    public void ownerForksThenExits(IIII_Result r) {
        deque.push(1);
        r.r4 = deque.push(2) ? 1 : 0;
        int mask = 0;
        for (Integer e; (e = deque.pop()) != null; ) {
            int bit = 1 << e;
            mask = (mask & bit) != 0 ? mask | 8 : mask | bit;
        }
        r.r1 = mask;
    }

    @Actor
    public void thief(IIII_Result r) {
        Integer e = deque.steal();
        r.r2 = e == null ? 0 : e;
    }

    @Arbiter
    public void left(IIII_Result r) {
        r.r3 = deque.size();
    }
}
