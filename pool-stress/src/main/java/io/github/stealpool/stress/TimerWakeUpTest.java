package io.github.stealpool.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.github.stealpool.internal.DelayScheduler;
import io.github.stealpool.internal.Scheduler;
import io.github.stealpool.internal.SchedulerConfig;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Issue 37: the delayed tasks' timer about to park with an empty heap, against a submitter
 * handing it an entry ({@code DelayScheduler}, "No lost wake-up"). The timer publishes that it
 * sleeps, then looks at its inbox; the submitter offers, then reads what the timer sleeps
 * towards and unparks it. Results: whether the timer would park; whether the submitter unparked
 * it. A timer that parks without being unparked has lost the entry until the next wake-up,
 * which, with an empty heap, may never come.
 */
@JCStressTest
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "the timer saw the entry and goes round")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the timer parks and is unparked")
@Outcome(id = "0, 1", expect = ACCEPTABLE_INTERESTING, desc = "both: a spare unpark")
@Outcome(id = "1, 0", expect = FORBIDDEN, desc = "lost wake-up: parked, never unparked")
@Outcome(expect = FORBIDDEN, desc = "impossible")
@State
public class TimerWakeUpTest {

    private static final Scheduler POOL =
            new Scheduler(new SchedulerConfig(1, "stress", null, true, null, 0, 0, false, 0, 1L));

    private final DelayScheduler.WakeUpProbe probe = new DelayScheduler.WakeUpProbe(POOL);

    @Actor
    public void timer(II_Result r) {
        r.r1 = probe.timerWouldPark() ? 1 : 0;
    }

    @Actor
    public void submitter(II_Result r) {
        r.r2 = probe.submitterWakes() ? 1 : 0;
    }
}
