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
 * The searcher throttle: a submitter that sees somebody searching wakes nobody, so that searcher,
 * when it stops, must pass the search on. Worker 1 falls asleep (announce, search, sleep unless
 * the jobs-event counter moved). The other actor publishes a job (a sequentially consistent
 * write) and notifies while worker 0 is counted as searching, then worker 0 stops searching
 * (it found other work) and, as the last searcher with somebody asleep, looks at the queues and
 * wakes a searcher if it sees the job. One actor plays both the submitter and the searcher
 * because jcstress runs no more actors than the machine has CPUs (two here); program order
 * gives the case that matters, the submitter's read of the counters before the searcher's
 * decrement.
 *
 * <p>As in {@link SleepNoLostWakeUpTest}, worker 1 never blocks: the abort hook runs once it
 * is counted, under the sleep lock, where it would block, and waits briefly for the other actor
 * to finish. Anyone who decided to wake it is stuck on that lock until the hook returns; so if
 * the other actor finishes while worker 1 is counted and its search missed the job, nobody will
 * wake it: a lost wake-up. Results: worker 1 saw the job in its search, worker 1 got counted,
 * the other actor finished while it was counted.
 */
@JCStressTest
@Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "worker 1's search found the job")
@Outcome(id = "0, 0, 0", expect = ACCEPTABLE, desc = "the counter moved: worker 1 backs out and searches")
@Outcome(id = "0, 1, 0", expect = ACCEPTABLE, desc = "counted: the searcher wakes it (or comes later)")
@Outcome(id = "0, 1, 1", expect = FORBIDDEN, desc = "lost wake-up: asleep, job posted, nobody to wake it")
@Outcome(expect = FORBIDDEN, desc = "impossible")
@State
public class SleepLastSearcherHandsOnTest {

    /** How long the counted worker waits for the other actor: a few microseconds. */
    private static final int PATIENCE = 2_000;

    private final Sleep sleep = new Sleep(2, () -> false);
    private final AtomicBoolean job = new AtomicBoolean();
    private volatile boolean done;

    public SleepLastSearcherHandsOnTest() {
        sleep.tryStartSearching(); // worker 0 searches
    }

    @Actor
    public void submitThenStopSearching() {
        job.set(true);
        sleep.notifyNewJob(); // sees worker 0 searching: wakes nobody
        if (sleep.stopSearching() && job.get()) { // job.get(): worker 0's look at every queue
            sleep.wakeSearcher();
        }
        done = true;
    }

    @Actor
    public void sleeper(III_Result r) {
        long jec = sleep.announceSleepy();
        if (job.get()) {
            r.r1 = 1;
            return;
        }
        sleep.sleep(1, jec, () -> {
            r.r2 = 1; // counted: from here it would block
            for (int i = 0; i < PATIENCE && !done; i++) {
                Thread.onSpinWait();
            }
            r.r3 = done ? 1 : 0;
            return true; // back out instead of blocking
        });
    }
}
