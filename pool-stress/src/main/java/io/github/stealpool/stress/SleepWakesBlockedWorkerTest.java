package io.github.stealpool.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.github.stealpool.internal.Sleep;
import java.util.concurrent.atomic.AtomicBoolean;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Mode;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.Signal;
import org.openjdk.jcstress.annotations.State;

/**
 * The idle protocol end to end, blocking for real: a worker runs the sleep sequence
 * (announce sleepy, search, sleep unless the jobs-event counter moved) while a submitter
 * publishes a job (a sequentially consistent write, as the injection queue's CAS) and notifies.
 * The worker must end up with the job: it sees it in a search, backs out of its sleep, or is
 * woken. A lost wake-up leaves it asleep with the job posted: STALE. The signal usually comes
 * once the worker is blocked; {@link SleepNoLostWakeUpTest} aims at the window before that.
 */
@JCStressTest(Mode.Termination)
@Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "the worker found the job")
@Outcome(id = "STALE", expect = FORBIDDEN, desc = "lost wake-up: asleep with a job posted")
@State
public class SleepWakesBlockedWorkerTest {

    private final Sleep sleep = new Sleep(1, () -> false);
    private final AtomicBoolean job = new AtomicBoolean();

    @Actor
    public void worker() {
        while (!job.get()) {
            long jec = sleep.announceSleepy();
            if (job.get()) { // the search after the announcement
                return;
            }
            // Interruptible only so that jcstress can reclaim the thread of a STALE run.
            sleep.sleep(0, jec, () -> false, true);
            if (Thread.currentThread().isInterrupted()) {
                return;
            }
        }
    }

    @Signal
    public void submit() {
        job.set(true);
        sleep.notifyNewJob();
    }
}
