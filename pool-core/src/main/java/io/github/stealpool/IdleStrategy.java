package io.github.stealpool;

/**
 * What a worker does when it runs out of work, before it parks: spin, then yield, then park, in
 * the spirit of Agrona's {@code BackoffIdleStrategy}. Set with
 * {@link WorkStealingPool.Builder#idleStrategy}.
 *
 * <ol>
 *   <li><b>Spin rounds:</b> the worker searches every queue, then pauses with 64
 *       {@link Thread#onSpinWait()} hints (a few microseconds), and searches again. A task
 *       posted meanwhile is picked up without a context switch, but the core stays busy.</li>
 *   <li><b>Yield rounds:</b> the same, with a {@link Thread#yield()} between two searches: the
 *       core goes to any thread that wants it, and the worker comes back when the OS scheduler
 *       lets it.</li>
 *   <li><b>Park:</b> the worker sleeps until new work wakes it, using no CPU at all. No task
 *       posted while it falls asleep is missed (see docs/design.md).</li>
 * </ol>
 * Idle workers spin and yield only while they are <em>searching</em>, at most half the pool at
 * a time; the others park at once. A worker waiting inside a task for a join spins and yields
 * the same way before it parks, whether or not others search: its join may end any moment.
 *
 * <p>The {@linkplain #standard() standard} strategy neither spins nor yields: an idle worker
 * searches every queue three times (once after its last task, once as a searcher, once after
 * announcing that it is about to sleep) and parks, as tokio's and Go's workers and JDK 17's
 * {@code ForkJoinPool} do. Spin rounds made wake-ups slower and bought no throughput: the
 * worker that was woken spins on a core its submitter may need. Yield rounds are worse still on
 * Linux's EEVDF scheduler (6.6 and later): a thread that yields is treated as having used its
 * time slice, and when it is next woken onto a busy core it waits instead of preempting. The
 * measurements are in docs/lab/wake-ups.md ("Choosing the idle strategy"). Spin rounds may pay
 * where cores are plentiful and tasks arrive in bursts a few microseconds apart: measure with
 * your own load.
 */
public final class IdleStrategy {

    private static final IdleStrategy STANDARD = new IdleStrategy(0, 0);

    private final int spinRounds;
    private final int yieldRounds;

    private IdleStrategy(int spinRounds, int yieldRounds) {
        this.spinRounds = spinRounds;
        this.yieldRounds = yieldRounds;
    }

    /**
     * The default: no spin rounds, no yield rounds; an idle worker parks after searching every
     * queue three times. The same as {@code backoff(0, 0)}.
     *
     * @return the standard strategy
     */
    public static IdleStrategy standard() {
        return STANDARD;
    }

    /**
     * Spin {@code spinRounds} rounds, then yield {@code yieldRounds} rounds, then park. Large
     * counts trade CPU for latency; a pool whose workers outnumber the cores should not spin
     * (a spinning worker takes a core from one with work).
     *
     * @param spinRounds  searches separated by a short spin-wait pause, at least 0
     * @param yieldRounds searches separated by {@link Thread#yield()}, at least 0
     * @return a strategy with exactly these rounds
     * @throws IllegalArgumentException if either count is negative
     */
    public static IdleStrategy backoff(int spinRounds, int yieldRounds) {
        if (spinRounds < 0) {
            throw new IllegalArgumentException("spinRounds must not be negative: " + spinRounds);
        }
        if (yieldRounds < 0) {
            throw new IllegalArgumentException("yieldRounds must not be negative: " + yieldRounds);
        }
        return new IdleStrategy(spinRounds, yieldRounds);
    }

    /** Spin rounds. */
    int spinRounds() {
        return spinRounds;
    }

    /** Yield rounds. */
    int yieldRounds() {
        return yieldRounds;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IdleStrategy
                && ((IdleStrategy) o).spinRounds == spinRounds
                && ((IdleStrategy) o).yieldRounds == yieldRounds;
    }

    @Override
    public int hashCode() {
        return 31 * spinRounds + yieldRounds;
    }

    /** {@code IdleStrategy.backoff(spins, yields)}. */
    @Override
    public String toString() {
        return "IdleStrategy.backoff(" + spinRounds + ", " + yieldRounds + ")";
    }
}
