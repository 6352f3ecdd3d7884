package io.github.stealpool.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.github.stealpool.internal.ChaseLevDeque;
import io.github.stealpool.internal.InjectionQueue;
import io.github.stealpool.internal.Sleep;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * A task offered while another worker holds the stripe, before a sleeper's announcement, and a
 * sleeper whose search then skips the stripe on seeing the lock held (InjectionQueue,
 * "Searches"): only the holder's look after its unlock can give notice of that task. The stripe
 * holds one task, so the holder's batch leaves it empty unless the new task was already there
 * when it took the batch. The sleeper is its own producer: it offers, gives notice (nobody is
 * sleepy yet, so that notice does nothing), then announces, polls once (its search) and falls
 * asleep unless the jobs-event counter moved. Two actors, so it runs on two cores.
 *
 * <p>As in {@link SleepTasksLeftBehindALockTest}, the sleeper never blocks: its abort hook runs
 * once it is counted and waits briefly for the holder; a holder that decided to wake it is stuck
 * on the sleep lock until the hook returns. Results: the sleeper's poll got a task; the sleeper
 * got counted; the holder finished while it was counted; a task was still queued at the end.
 */
@JCStressTest
@Outcome(id = {"1, 0, 0, 0", "1, 0, 0, 1"}, expect = ACCEPTABLE, desc = "the sleeper's poll took a task")
@Outcome(id = {"0, 0, 0, 0", "0, 0, 0, 1"}, expect = ACCEPTABLE, desc = "the counter moved: the sleeper backs out and searches")
@Outcome(id = {"0, 1, 0, 0", "0, 1, 0, 1"}, expect = ACCEPTABLE, desc = "counted: the holder wakes it (or comes later)")
@Outcome(id = "0, 1, 1, 0", expect = ACCEPTABLE, desc = "counted, but the holder's batch took both tasks")
@Outcome(id = "0, 1, 1, 1", expect = FORBIDDEN, desc = "lost wake-up: asleep, a task queued, nobody to wake it")
@Outcome(expect = FORBIDDEN, desc = "impossible")
@State
public class SleepSkipsAHeldStripeTest {

    /** How long the counted sleeper waits for the holder: a few microseconds. */
    private static final int PATIENCE = 2_000;

    private final Sleep sleep = new Sleep(2, () -> false);
    private final InjectionQueue queue = new InjectionQueue(1, sleep::notifyNewJob);
    private final ChaseLevDeque<Runnable> holderDeque = new ChaseLevDeque<>();
    private final ChaseLevDeque<Runnable> sleeperDeque = new ChaseLevDeque<>();
    private final Runnable task = () -> { };
    private volatile boolean holderDone;

    public SleepSkipsAHeldStripeTest() {
        queue.offer(task); // one task: the holder's batch empties the stripe
    }

    @Actor
    public void holder() {
        queue.poll(0, holderDeque); // takes what is there; looks again after its unlock
        holderDone = true;
    }

    @Actor
    public void sleeper(IIII_Result r) {
        queue.offer(task); // a CAS on the producer index, as Scheduler.execute
        sleep.notifyNewJob(); // before the announcement: wakes and moves nothing
        long jec = sleep.announceSleepy();
        if (queue.poll(0, sleeperDeque) != null) { // its search: may skip the held stripe
            r.r1 = 1;
            return;
        }
        sleep.sleep(1, jec, () -> {
            r.r2 = 1; // counted: from here it would block
            for (int i = 0; i < PATIENCE && !holderDone; i++) {
                Thread.onSpinWait();
            }
            r.r3 = holderDone ? 1 : 0;
            return true; // back out instead of blocking
        });
    }

    @Arbiter
    public void arbiter(IIII_Result r) {
        r.r4 = queue.isEmpty() ? 0 : 1;
    }
}
