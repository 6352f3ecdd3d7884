package io.github.stealpool.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.github.stealpool.internal.StealableRange;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * Three indexes, two thieves: the first splits off [1,3), the second then takes the lone index
 * left. No index taken twice or lost. Results as bit masks: thief 1, thief 2, left over.
 */
@JCStressTest
@Outcome(id = "6, 1, 0", expect = ACCEPTABLE, desc = "thief 1 first")
@Outcome(id = "1, 6, 0", expect = ACCEPTABLE, desc = "thief 2 first")
@Outcome(expect = FORBIDDEN, desc = "an index taken twice, or lost")
@State
public class RangeTwoThievesTest {

    private final StealableRange range = new StealableRange(0, 3);

    @Actor
    public void thief1(III_Result r) {
        r.r1 = RangeMasks.of(range, range.steal());
    }

    @Actor
    public void thief2(III_Result r) {
        r.r2 = RangeMasks.of(range, range.steal());
    }

    @Arbiter
    public void rest(III_Result r) {
        r.r3 = RangeMasks.of(range, range.take(Long.MAX_VALUE));
    }
}
