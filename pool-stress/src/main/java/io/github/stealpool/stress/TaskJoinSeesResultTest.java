package io.github.stealpool.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.github.stealpool.Task;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Join completion: one thread runs a task (as a thief would) while another checks it. A joiner
 * that sees the task done sees its result, and everything the task wrote before returning (its
 * completion CAS releases, {@code isDone}/{@code join} acquire). Results: the result seen (-1
 * if not done yet), the task's side effect seen by the joiner.
 */
@JCStressTest
@Outcome(id = {"-1, 0", "-1, 1"}, expect = ACCEPTABLE, desc = "not done yet (the racy read may see either)")
@Outcome(id = "42, 1", expect = ACCEPTABLE, desc = "done: result and side effect both visible")
@Outcome(expect = FORBIDDEN, desc = "done, but its result or side effect not visible")
@State
public class TaskJoinSeesResultTest {

    /** A result object with plain fields, as most results are. */
    static final class Box {
        int value;
    }

    int sideEffect; // plain: published only by the task's completion

    private final Task<Box> task = new Task<>() {
        @Override
        protected Box compute() {
            sideEffect = 1;
            Box b = new Box();
            b.value = 42;
            return b;
        }
    };

    @Actor
    public void thief() {
        task.run();
    }

    @Actor
    public void joiner(II_Result r) {
        if (task.isDone()) {
            r.r1 = task.join().value;
            r.r2 = sideEffect;
        } else {
            r.r1 = -1;
            r.r2 = sideEffect;
        }
    }
}
