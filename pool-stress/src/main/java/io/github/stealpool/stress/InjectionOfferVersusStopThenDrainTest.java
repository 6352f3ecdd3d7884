package io.github.stealpool.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.github.stealpool.internal.InjectionQueue;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Issue 35, item 6: a submission that links a new chunk of an injection-queue stripe, against
 * {@code shutdownNow}. The stripe holds {@code CHUNK - 1} tasks, so the submitter's offer is the
 * one that CASes the producer index odd and links a chunk, during which JCTools' poll answers
 * null. The submitter does what {@code Scheduler.pushExternal} does: offer, full fence, read the
 * run state, and if it left RUNNING, sweep and take its task back (refused). The stopper does
 * what {@code shutdownNow} does: publish STOP, then sweep ({@code drainTo}). Results: the
 * submitter took its task back; the stopper's sweep returned it. Exactly one of the two: a task
 * neither refused nor drained was accepted and lost (the sweep skipped a link in progress), one
 * found by both was handed out twice.
 */
@JCStressTest
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "the submitter saw STOP and took its task back")
@Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "shutdownNow's sweep returned it")
@Outcome(id = "0, 0", expect = FORBIDDEN, desc = "lost: accepted, neither run nor returned")
@Outcome(id = "1, 1", expect = FORBIDDEN, desc = "handed out twice")
@Outcome(expect = FORBIDDEN, desc = "impossible")
@State
public class InjectionOfferVersusStopThenDrainTest {

    private static final Runnable FILLER = () -> { };

    private final InjectionQueue queue = new InjectionQueue(1);
    private final Runnable task = () -> { };
    private volatile boolean stopped;

    public InjectionOfferVersusStopThenDrainTest() {
        for (int i = 0; i < InjectionQueue.CHUNK - 1; i++) { // the next offer links a chunk
            queue.offer(FILLER);
        }
    }

    private boolean sweepFinds() {
        List<Runnable> swept = new ArrayList<>();
        queue.drainTo(swept);
        for (Runnable r : swept) {
            if (r == task) {
                return true;
            }
        }
        return false;
    }

    @Actor
    public void submitter(II_Result r) {
        queue.offer(task);
        VarHandle.fullFence(); // as Scheduler.pushExternal: the whole offer before the re-check
        if (stopped) {
            r.r1 = sweepFinds() ? 1 : 0; // settleLate: found means refused
        }
    }

    @Actor
    public void stopper(II_Result r) {
        stopped = true;
        r.r2 = sweepFinds() ? 1 : 0;
    }
}
