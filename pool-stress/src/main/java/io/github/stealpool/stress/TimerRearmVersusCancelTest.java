package io.github.stealpool.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.github.stealpool.internal.DelayScheduler;
import io.github.stealpool.internal.Scheduler;
import io.github.stealpool.internal.SchedulerConfig;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Issue 37: a periodic task's runner giving its entry back to the timer, against the timer
 * taking in its inbox ({@code DelayScheduler}, "A cancel before the timer takes the entry in").
 * The runner marks the entry not taken, then offers it; the timer marks it taken as it takes
 * it in. Afterwards the user cancels it, which asks for a removal only if it reads the entry
 * taken, and the timer takes in its inbox again. Results: whether the timer's first take
 * placed the entry in its heap; whether the heap still holds it at the end. A runner that
 * marked the entry after its offer could overwrite the timer's mark once the entry is in the
 * heap, and the cancel would then leave it there until its deadline. (The cancel racing the
 * take-in itself is {@code TimerTakeInVersusCancelTest}'s.)
 */
@JCStressTest
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "the timer looked first; the cancelled entry was dropped later")
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "taken in; the cancel's removal took it out")
@Outcome(id = "1, 1", expect = FORBIDDEN, desc = "a cancelled entry left in the heap")
@Outcome(expect = FORBIDDEN, desc = "impossible")
@State
public class TimerRearmVersusCancelTest {

    private static final Scheduler POOL =
            new Scheduler(new SchedulerConfig(1, "stress", null, true, null, 0, 0, false, 0, 1L));

    private final DelayScheduler.TakeInProbe probe = new DelayScheduler.TakeInProbe(POOL, true);

    @Actor
    public void runner() {
        probe.rearm();
    }

    @Actor
    public void timer(II_Result r) {
        r.r1 = probe.timerDrains() ? 1 : 0;
    }

    @Arbiter
    public void after(II_Result r) {
        r.r2 = probe.cancelledAndLeftInTheHeap() ? 1 : 0;
    }
}
