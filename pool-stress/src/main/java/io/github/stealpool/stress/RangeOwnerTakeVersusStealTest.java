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
 * The range loops' stealable range, one index left: the owner takes it while a thief steals it
 * (a thief may take a lone last index). Exactly one gets it. Results as bit masks of the indexes
 * each got: owner, thief, left over (taken by the owner afterwards).
 */
@JCStressTest
@Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "the owner took it")
@Outcome(id = "0, 1, 0", expect = ACCEPTABLE, desc = "the thief took it")
@Outcome(expect = FORBIDDEN, desc = "the index taken twice, or lost")
@State
public class RangeOwnerTakeVersusStealTest {

    private final StealableRange range = new StealableRange(0, 1);

    @Actor
    public void owner(III_Result r) {
        r.r1 = RangeMasks.of(range, range.take(1));
    }

    @Actor
    public void thief(III_Result r) {
        r.r2 = RangeMasks.of(range, range.steal());
    }

    @Arbiter
    public void rest(III_Result r) {
        r.r3 = RangeMasks.of(range, range.take(Long.MAX_VALUE));
    }
}
