package io.github.stealpool.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.github.stealpool.internal.Sleep;
import java.util.concurrent.atomic.AtomicBoolean;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * A spare thread's keep-alive ({@link Sleep#sleepAtMost}) runs out while a submitter posts a job
 * and wakes a sleeper. The sleeper takes itself off the stack, or the waker pops it first; either
 * way the counts must match what the sleeper was told: counted as searching exactly when it was
 * woken to search (it then stops searching, as a worker does), never still counted as asleep. A
 * count left behind would make every later poster wait for a searcher that does not exist.
 * (That the job is not lost then rests on the sleeper searching again after it took itself off,
 * which Worker does; Sleep's proof, second case.)
 *
 * <p>r1: how the sleep ended (0 backed out, 2 woken to search, 3 timed out); r2: searchers
 * counted afterwards, before the sleeper's stopSearching; r3: sleepers counted afterwards.
 */
@JCStressTest
@Outcome(id = "0, 0, 0", expect = ACCEPTABLE, desc = "the job was posted before the sleep: backed out")
@Outcome(id = "3, 0, 0", expect = ACCEPTABLE, desc = "timed out, took itself off the stack")
@Outcome(id = "2, 1, 0", expect = ACCEPTABLE, desc = "the waker popped it first: woken to search")
@Outcome(id = "-1, 0, 0", expect = ACCEPTABLE, desc = "saw the job before sleeping")
@Outcome(expect = FORBIDDEN, desc = "counts out of step with the sleeper's answer")
@State
public class SleepKeepAliveRunsOutTest {

    private final Sleep sleep = new Sleep(1, () -> false);
    private final AtomicBoolean job = new AtomicBoolean();
    private int how = -1;

    @Actor
    public void spare() {
        long jec = sleep.announceSleepy();
        if (job.get()) { // the search after the announcement
            return;
        }
        how = sleep.sleepAtMost(0, jec, 1L); // 1 ns: runs out at once, racing the waker
    }

    @Actor
    public void submitter() {
        job.set(true); // sequentially consistent, as the injection queue's CAS
        sleep.notifyNewJob();
    }

    @Arbiter
    public void arbiter(III_Result r) {
        r.r1 = how;
        r.r2 = sleep.searchingWorkers();
        r.r3 = sleep.sleepingWorkers();
    }
}
