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
 * Issue 37: a periodic task's runner giving its entry back to the timer, which then takes it
 * in, against the user cancelling it ({@code DelayScheduler}, "A cancel before the timer takes
 * the entry in"). The runner marks the entry not taken before its offer; the timer marks it
 * taken as it takes it in; the cancel asks for a removal only if it reads it taken. Results:
 * whether the timer placed the entry in its heap; whether the entry is still in the heap once
 * the timer has taken in its inbox again. A runner that marked the entry after its offer could
 * overwrite the timer's mark, and the cancel would then leave the entry in the heap until its
 * deadline.
 */
@JCStressTest
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "cancelled first: the timer dropped it")
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "taken in first: the cancel's removal took it out")
@Outcome(id = "1, 1", expect = FORBIDDEN, desc = "a cancelled entry left in the heap")
@Outcome(expect = FORBIDDEN, desc = "impossible")
@State
public class TimerRearmVersusCancelTest {

    private static final Scheduler POOL =
            new Scheduler(new SchedulerConfig(1, "stress", null, true, null, 0, 0, false, 0, 1L));

    private final DelayScheduler.TakeInProbe probe = new DelayScheduler.TakeInProbe(POOL, true);

    @Actor
    public void runnerThenTimer(II_Result r) {
        r.r1 = probe.rearmedAndTakenIn() ? 1 : 0;
    }

    @Actor
    public void cancel() {
        probe.cancel();
    }

    @Arbiter
    public void after(II_Result r) {
        r.r2 = probe.leftInTheHeap() ? 1 : 0;
    }
}
