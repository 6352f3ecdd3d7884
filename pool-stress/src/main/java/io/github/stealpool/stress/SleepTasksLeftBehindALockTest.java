package io.github.stealpool.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.github.stealpool.internal.ChaseLevDeque;
import io.github.stealpool.internal.InjectionQueue;
import io.github.stealpool.internal.Sleep;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * A worker's search skips an injection-queue stripe another worker holds, and may then go to
 * sleep: the holder, after its unlock, reads the stripe again and gives notice of any task left
 * (InjectionQueue, "Tasks left behind a lock"). The stripe holds one batch and one task more;
 * the holder takes a batch (so one task is left); the other worker falls asleep (announce, one
 * poll as its search, sleep unless the jobs-event counter moved).
 *
 * <p>As in {@link SleepNoLostWakeUpTest}, the sleeper never blocks: the abort hook runs once it
 * is counted, under the sleep lock, where it would block, and waits briefly for the holder to
 * finish. A holder that decided to wake it is stuck on that lock until the hook returns; so if
 * the holder finishes while the sleeper is counted and the sleeper's poll got nothing, nobody
 * will wake it for the task left: a lost wake-up. Results: the sleeper's poll got a task, the
 * sleeper got counted, the holder finished while it was counted.
 */
@JCStressTest
@Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "the sleeper's poll took tasks")
@Outcome(id = "0, 0, 0", expect = ACCEPTABLE, desc = "the counter moved: the sleeper backs out and searches")
@Outcome(id = "0, 1, 0", expect = ACCEPTABLE, desc = "counted: the holder wakes it (or comes later)")
@Outcome(id = "0, 1, 1", expect = FORBIDDEN, desc = "lost wake-up: asleep, a task left, nobody to wake it")
@Outcome(expect = FORBIDDEN, desc = "impossible")
@State
public class SleepTasksLeftBehindALockTest {

    /** How long the counted sleeper waits for the holder: a few microseconds. */
    private static final int PATIENCE = 2_000;

    private final Sleep sleep = new Sleep(2, () -> false);
    private final InjectionQueue queue = new InjectionQueue(1, sleep::notifyNewJob);
    private final ChaseLevDeque<Runnable> holderDeque = new ChaseLevDeque<>();
    private final ChaseLevDeque<Runnable> sleeperDeque = new ChaseLevDeque<>();
    private volatile boolean holderDone;

    public SleepTasksLeftBehindALockTest() {
        Runnable task = () -> { };
        for (int i = 0; i <= InjectionQueue.BATCH; i++) {
            queue.offer(task);
        }
    }

    @Actor
    public void holder() {
        queue.poll(0, holderDeque); // a batch; one task stays, and its notice follows the unlock
        holderDone = true;
    }

    @Actor
    public void sleeper(III_Result r) {
        long jec = sleep.announceSleepy();
        if (queue.poll(0, sleeperDeque) != null) { // its search, after the announcement
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
}
