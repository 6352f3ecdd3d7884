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
 * Three indexes: the owner takes a batch of two from the low end while a thief splits off the
 * upper half. Every index is handed out exactly once. Results as bit masks (bit i for index i):
 * owner, thief, left over.
 */
@JCStressTest
@Outcome(id = "3, 4, 0", expect = ACCEPTABLE, desc = "owner first: [0,2); the thief the last index")
@Outcome(id = "1, 6, 0", expect = ACCEPTABLE, desc = "thief first: [1,3); the owner what is left")
@Outcome(expect = FORBIDDEN, desc = "an index taken twice, or lost")
@State
public class RangeOwnerBatchVersusStealTest {

    private final StealableRange range = new StealableRange(0, 3);

    @Actor
    public void owner(III_Result r) {
        r.r1 = RangeMasks.of(range, range.take(2));
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
