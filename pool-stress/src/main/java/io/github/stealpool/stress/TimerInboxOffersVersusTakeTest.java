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
 * Issue 37: the delay timer's inbox ({@code TimerInbox}): two threads offer an entry each to
 * the same stripe's stack, so their CASes race on its top; the second thread then takes
 * everything there is, as the timer does, racing the first one's offer (two actors: this
 * machine's jcstress runs no more). The arbiter takes what is left. Results: how many entries
 * the take found; whether each entry was taken exactly once, came out unlinked and was counted
 * as offered, and the stripe's backlog then reads 0 (the flow control's count of entries not
 * yet taken: {@code DelayScheduler}, "A storm of offers"). An entry lost or taken twice, or one
 * taken and still counted as waiting, is forbidden.
 */
@JCStressTest
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "the take found its own entry; the other came later")
@Outcome(id = "2, 1", expect = ACCEPTABLE, desc = "the take found both")
@Outcome(expect = FORBIDDEN, desc = "an entry lost, taken twice, left linked, or taken and still counted")
@State
public class TimerInboxOffersVersusTakeTest {

    private static final Scheduler POOL =
            new Scheduler(new SchedulerConfig(2, "stress", null, true, null, 0, 0, false, 0, 1L));

    private final DelayScheduler.InboxProbe probe = new DelayScheduler.InboxProbe(POOL);

    @Actor
    public void offers() {
        probe.offerFirst();
    }

    @Actor
    public void offersThenTakes(II_Result r) {
        probe.offerSecond();
        r.r1 = probe.takeAll();
    }

    @Arbiter
    public void after(II_Result r) {
        probe.takeAll();
        r.r2 = probe.eachTakenOnce() ? 1 : 0;
    }
}
