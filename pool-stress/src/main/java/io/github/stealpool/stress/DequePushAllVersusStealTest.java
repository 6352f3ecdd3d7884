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
 * The owner pushes a batch of two freshly built elements with one {@code pushAll} (capacity 2,
 * one element already in: the array grows if the owner reads {@code top} before the thief's
 * first steal, and the batch goes into the old array if after; both paths are covered), while
 * a thief steals three times. The
 * batch appears all at once, fully built, whichever array the thief reads: once a steal has
 * seen its first element, the next steal (with no rival) gets the second. (Pushed one by one,
 * the thief could see the first element of the batch and then not the second.) Results: the values
 * the three steals saw (0 for none, -1 for an element whose field was not yet visible), and the
 * sum of the values left, popped by the owner afterwards.
 */
@JCStressTest
@Outcome(id = "1, 0, 0, 5", expect = ACCEPTABLE, desc = "the thief saw the element that was there; the batch came later")
@Outcome(id = "1, 0, 2, 3", expect = ACCEPTABLE, desc = "the batch came between the second steal and the third")
@Outcome(id = "1, 2, 0, 3", expect = FORBIDDEN, desc = "half a batch: the second element not yet visible")
@Outcome(id = "1, 2, 3, 0", expect = ACCEPTABLE, desc = "the thief saw the whole batch")
@Outcome(expect = FORBIDDEN, desc = "an element lost, duplicated, out of order, or seen half built")
@State
public class DequePushAllVersusStealTest {

    /** A task-like object with a plain (not final) field. */
    static final class Item {
        int value;

        Item(int value) {
            this.value = value;
        }
    }

    private final ChaseLevDeque<Item> deque = new ChaseLevDeque<>(2);

    public DequePushAllVersusStealTest() {
        deque.push(new Item(1));
    }

    @Actor
    public void owner() {
        Item[] batch = {null, new Item(2), new Item(3)};
        deque.pushAll(batch, 1, 3);
    }

    @Actor
    public void thief(IIII_Result r) {
        r.r1 = valueOf(deque.steal());
        r.r2 = valueOf(deque.steal());
        r.r3 = valueOf(deque.steal());
    }

    @Arbiter
    public void drain(IIII_Result r) {
        int sum = 0;
        for (Item e; (e = deque.pop()) != null; ) {
            sum += e.value;
        }
        r.r4 = sum;
    }

    private static int valueOf(Item e) {
        return e == null ? 0 : e.value == 0 ? -1 : e.value;
    }
}
