package io.github.stealpool.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.github.stealpool.internal.ChaseLevDeque;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.I_Result;

/**
 * Safe publication through the deque: the owner pushes a freshly built object whose fields are
 * plain (not final); a thief that steals it must see them as the constructor left them (the
 * release store of {@code bottom} after the slot write, against the thief's acquire read).
 * Result: the field the thief saw, or -1 if it found the deque empty.
 */
@JCStressTest
@Outcome(id = "-1", expect = ACCEPTABLE, desc = "the thief came before the push")
@Outcome(id = "42", expect = ACCEPTABLE, desc = "stole it, fully built")
@Outcome(expect = FORBIDDEN, desc = "stole an object whose fields were not yet visible")
@State
public class DequeStealSeesConstructedElementTest {

    /** A task-like object with plain fields. */
    static final class Item {
        int value;

        Item() {
            value = 42;
        }
    }

    private final ChaseLevDeque<Item> deque = new ChaseLevDeque<>();

    @Actor
    public void owner() {
        deque.push(new Item());
    }

    @Actor
    public void thief(I_Result r) {
        Item e = deque.steal();
        r.r1 = e == null ? -1 : e.value;
    }
}
