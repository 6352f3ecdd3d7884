package io.github.stealpool.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.github.stealpool.Task;
import java.util.concurrent.ExecutionException;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Mode;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.Signal;
import org.openjdk.jcstress.annotations.State;

/**
 * A thread outside the pool blocks waiting for a task while another completes it: the waiter's
 * registration on the task's latch (a Treiber stack) races with the completion that releases
 * the waiters. The waiter must always be released: STALE would be a lost wake-up.
 */
@JCStressTest(Mode.Termination)
@Outcome(id = "TERMINATED", expect = ACCEPTABLE, desc = "the waiter saw the completion")
@Outcome(id = "STALE", expect = FORBIDDEN, desc = "the waiter missed the completion")
@State
public class TaskJoinWakesWaiterTest {

    private final Task<Integer> task = new Task<>() {
        @Override
        protected Integer compute() {
            return 42;
        }
    };

    @Actor
    public void waiter() {
        try {
            task.get(); // interruptible, so jcstress can reclaim a STALE run's thread
        } catch (InterruptedException | ExecutionException e) {
            // STALE run reclaimed, or a failure (none here)
        }
    }

    @Signal
    public void complete() {
        task.complete(42);
    }
}
