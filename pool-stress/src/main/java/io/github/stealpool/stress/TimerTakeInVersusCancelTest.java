package io.github.stealpool.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.github.stealpool.internal.DelayScheduler;
import io.github.stealpool.internal.Scheduler;
import io.github.stealpool.internal.SchedulerConfig;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * Issue 37: the timer polling a delayed task's entry, against the user cancelling it
 * ({@code DelayScheduler}, "A cancel before the timer takes the entry in"). The timer looks
 * whether the entry is done (and drops it unmarked if so), marks it taken, then looks again;
 * the cancel CASes the state, then asks for a removal only if the entry is marked taken. Results: whether the timer placed the entry in
 * its heap; whether the cancel asked for its removal; whether the entry is still in the heap
 * once the timer has taken in its inbox. An entry left in the heap is a cancelled task kept
 * until its deadline (here ~146 years).
 */
@JCStressTest
@Outcome(id = "0, 0, 0", expect = ACCEPTABLE, desc = "cancelled first: the timer dropped it, no removal needed")
@Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "taken in first: the cancel's removal took it out")
@Outcome(id = "0, 1, 0", expect = ACCEPTABLE_INTERESTING, desc = "both saw each other: a spare removal")
@Outcome(id = "1, 0, 1", expect = FORBIDDEN, desc = "a cancelled entry left in the heap")
@Outcome(expect = FORBIDDEN, desc = "impossible")
@State
public class TimerTakeInVersusCancelTest {

    private static final Scheduler POOL =
            new Scheduler(new SchedulerConfig(1, "stress", null, true, null, 0, 0, false, 0, 1L));

    private final DelayScheduler.TakeInProbe probe = new DelayScheduler.TakeInProbe(POOL);

    @Actor
    public void timer(III_Result r) {
        r.r1 = probe.timerTakesIn() ? 1 : 0;
    }

    @Actor
    public void cancel(III_Result r) {
        r.r2 = probe.cancelAsksForRemoval() ? 1 : 0;
    }

    @Arbiter
    public void after(III_Result r) {
        r.r3 = probe.leftInTheHeap() ? 1 : 0;
    }
}
