package io.github.stealpool.stress;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE_INTERESTING;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

import io.github.stealpool.internal.ChaseLevDeque;
import java.lang.invoke.VarHandle;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * The race the fork's narrowed fence rests on (Worker.fork; ShutdownSweep, rules 2 and 3). The
 * owner forks twice: the first push lands on an empty deque and is fenced, the second lands on
 * a deque that holds work and is not; then it reads the run state. {@code shutdownNow} stores
 * STOP and sweeps the deque from the top. Afterwards the owner, exiting, pops what is left (the
 * arbiter, as {@code settleExit}). Each element must be taken exactly once, by the sweep or by
 * the exit; and if the owner read RUNNING after its fenced push, the sweep must have seen that
 * push (the Dekker pair the fence keeps). The sweep may miss the unfenced one while the owner
 * reads RUNNING: the exit settles it. Results: what the owner read (1: STOP), a mask of what the
 * sweep took (bit 1 for element 1, bit 2 for element 2; 8 for one taken twice), a mask of what
 * the exit took.
 */
@JCStressTest
@Outcome(id = {"1, 0, 6", "1, 2, 4", "1, 6, 0"}, expect = ACCEPTABLE, desc = "the owner saw STOP; each element taken once")
@Outcome(id = "0, 6, 0", expect = ACCEPTABLE, desc = "the owner read RUNNING; the sweep took both")
@Outcome(id = "0, 2, 4", expect = ACCEPTABLE_INTERESTING,
        desc = "the owner read RUNNING and the sweep missed the unfenced fork: the exit settles it")
@Outcome(expect = FORBIDDEN,
        desc = "an element taken twice or lost, or the sweep missed the fenced fork while the owner read RUNNING")
@State
public class DequeForkVersusStopSweepTest {

    private final ChaseLevDeque<Integer> deque = new ChaseLevDeque<>();
    private volatile int stop;

    @Actor
    public void owner(III_Result r) {
        if (deque.push(1)) { // onto an empty deque: fenced, as Worker.fork does
            VarHandle.fullFence();
        }
        deque.push(2); // onto a deque that holds work: no fence
        r.r1 = stop;
    }

    @Actor
    public void shutdownNow(III_Result r) {
        stop = 1;
        int mask = 0;
        while (!deque.isEmpty()) { // as ShutdownSweep.sweepQueues
            Integer e = deque.steal();
            if (e != null) {
                mask = add(mask, e);
            }
        }
        r.r2 = mask;
    }

    @Arbiter
    public void exit(III_Result r) {
        int mask = 0;
        for (Integer e; (e = deque.pop()) != null; ) {
            mask = add(mask, e);
        }
        r.r3 = mask;
    }

    private static int add(int mask, int e) {
        int bit = 1 << e;
        return (mask & bit) != 0 ? mask | 8 : mask | bit;
    }
}
