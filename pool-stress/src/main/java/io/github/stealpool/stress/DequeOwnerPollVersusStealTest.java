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
 * FIFO mode: two elements, the owner polling the top ({@code poll}, which retries a CAS lost to
 * a thief and clears the slot it took) while a thief steals the top once. The owner always gets
 * one element, the oldest left when it wins; the thief gets the other or nothing (it may lose
 * its CAS and not retry); no element is taken twice or lost. Results: what the owner got, what
 * the thief got (0 for nothing), elements left, and 1 if the owner's own next poll finds the
 * element that is left (clearing a slot must never remove a live element).
 */
@JCStressTest
@Outcome(id = "1, 2, 0, 0", expect = ACCEPTABLE, desc = "owner first: the oldest; the thief the other")
@Outcome(id = "2, 1, 0, 0", expect = ACCEPTABLE, desc = "thief first: the oldest; the owner the other")
@Outcome(id = "1, 0, 1, 1", expect = ACCEPTABLE, desc = "the thief lost its CAS to the owner: one left")
@Outcome(expect = FORBIDDEN, desc = "an element taken twice, lost, or cleared while live")
@State
public class DequeOwnerPollVersusStealTest {

    private final ChaseLevDeque<Integer> deque = new ChaseLevDeque<>();

    public DequeOwnerPollVersusStealTest() {
        deque.push(1);
        deque.push(2);
    }

    @Actor
    public void owner(IIII_Result r) {
        Integer e = deque.poll();
        r.r1 = e == null ? 0 : e;
    }

    @Actor
    public void thief(IIII_Result r) {
        Integer e = deque.steal();
        r.r2 = e == null ? 0 : e;
    }

    @Arbiter
    public void left(IIII_Result r) {
        r.r3 = deque.size();
        Integer e = deque.poll(); // the arbiter runs after both, as the owner would next
        r.r4 = e != null && e == 2 ? 1 : 0;
    }
}
