package io.github.stealpool.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.github.stealpool.internal.Sleep;
import java.util.concurrent.atomic.AtomicBoolean;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * The lost-wake-up window of the idle protocol: a worker falling asleep (announce sleepy,
 * search, count itself as sleeping unless the jobs-event counter moved) against a submitter
 * publishing a job (a sequentially consistent write, as the injection queue's CAS) and notifying.
 *
 * <p>The worker never blocks here: {@code sleep}'s abort hook runs once it is counted, under
 * its lock, which is exactly when it would block. There it waits briefly for the submitter to
 * finish. A submitter that saw the worker counted must wake it, and so is stuck on that lock
 * until the hook returns; so a submitter that finishes while the worker is counted, with a job
 * the worker's search missed, saw no sleeper and bumped no counter the worker checked: the
 * worker would sleep with the job posted. Results: worker saw the job in its search, worker got
 * counted, submitter finished while the worker was counted (a lost wake-up).
 */
@JCStressTest
@Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "the worker's search found the job")
@Outcome(id = "0, 0, 0", expect = ACCEPTABLE, desc = "the counter moved: the worker backs out and searches")
@Outcome(id = "0, 1, 0", expect = ACCEPTABLE, desc = "counted first: the submitter wakes it (or comes later)")
@Outcome(id = "0, 1, 1", expect = FORBIDDEN, desc = "lost wake-up: asleep, job posted, nobody to wake it")
@Outcome(expect = FORBIDDEN, desc = "impossible")
@State
public class SleepNoLostWakeUpTest {

    /** How long the counted worker waits for the submitter: a few microseconds. */
    private static final int PATIENCE = 2_000;

    private final Sleep sleep = new Sleep(1, () -> false);
    private final AtomicBoolean job = new AtomicBoolean();
    private volatile boolean submitterDone;

    @Actor
    public void worker(III_Result r) {
        long jec = sleep.announceSleepy();
        if (job.get()) {
            r.r1 = 1;
            return;
        }
        sleep.sleep(0, jec, () -> {
            r.r2 = 1; // counted: from here it would block
            for (int i = 0; i < PATIENCE && !submitterDone; i++) {
                Thread.onSpinWait();
            }
            r.r3 = submitterDone ? 1 : 0;
            return true; // back out instead of blocking
        });
    }

    @Actor
    public void submitter() {
        job.set(true);
        sleep.notifyNewJob();
        submitterDone = true;
    }
}
