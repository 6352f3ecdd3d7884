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
 * Issue 37: the delay timer about to linger (PARKED_SOON, after a turn that took something in)
 * against a submitter whose entry is due before the timer's new deadline but after the one an
 * earlier turn left ({@code DelayScheduler}, "No lost wake-up"). The timer writes its deadline
 * and its state, then looks at its inbox; the submitter offers, then reads the state and the
 * deadline. Either the timer's look sees the offer, or the submitter sees it lingering with a
 * deadline after its entry's and must wake it. Fails if a submitter leaves a lingering timer
 * asleep (wakes only a deep one), reads before it offers, or the timer parks without looking
 * again. Results: whether the timer would park; whether the submitter unparked it.
 */
@JCStressTest
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "the timer saw the entry and goes round")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the timer parks and is unparked")
@Outcome(id = "0, 1", expect = ACCEPTABLE_INTERESTING, desc = "both: a spare unpark")
@Outcome(id = "1, 0", expect = FORBIDDEN, desc = "parked past the entry's deadline, never unparked")
@Outcome(expect = FORBIDDEN, desc = "impossible")
@State
public class TimerLingeringWakeUpTest {

    private static final Scheduler POOL =
            new Scheduler(new SchedulerConfig(1, "stress", null, true, null, 0, 0, false, 0, 1L));

    private final DelayScheduler.WakeUpProbe probe = new DelayScheduler.WakeUpProbe(POOL, true);

    @Actor
    public void timer(II_Result r) {
        r.r1 = probe.timerWouldPark() ? 1 : 0;
    }

    @Actor
    public void submitter(II_Result r) {
        r.r2 = probe.submitterWakes() ? 1 : 0;
    }
}
