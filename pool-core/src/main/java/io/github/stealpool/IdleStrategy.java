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
 *       posted while it falls asleep is missed (see the README, "How it works").</li>
 * </ol>
 * Idle workers spin and yield only while they are <em>searching</em>, at most half the pool at
 * a time; the others park at once. A worker waiting inside a task for a join spins and yields
 * the same way before it parks, whether or not others search: its join may end any moment.
 *
 * <p>The {@linkplain #standard() standard} strategy spins 8 rounds and yields none, and spins
 * none when the pool has more workers than the machine has cores, where a spinning worker takes
 * a core from one with real work. Yield rounds are off by default because, measured on Linux's
 * EEVDF scheduler (6.6 and later), a thread that yields is treated as having used its time
 * slice: when it is next woken onto a busy core it waits instead of preempting, and wake-ups
 * got slower, not faster (the README gives the figures).
 */
public final class IdleStrategy {

    /** Spin rounds of the standard strategy, when the pool has no more workers than cores. */
    static final int STANDARD_SPIN_ROUNDS = 8;

    private static final IdleStrategy STANDARD = new IdleStrategy(-1, 0);

    /** Spin rounds; -1: the standard choice, which depends on the pool's parallelism. */
    private final int spinRounds;
    private final int yieldRounds;

    private IdleStrategy(int spinRounds, int yieldRounds) {
        this.spinRounds = spinRounds;
        this.yieldRounds = yieldRounds;
    }

    /**
     * The default: 8 spin rounds, no yield rounds, then park; no spin rounds when the pool has
     * more workers than {@code Runtime.getRuntime().availableProcessors()}.
     *
     * @return the standard strategy
     */
    public static IdleStrategy standard() {
        return STANDARD;
    }

    /**
     * Spin {@code spinRounds} rounds, then yield {@code yieldRounds} rounds, then park.
     * {@code backoff(0, 0)} parks after one more search, which suits pools that share their
     * cores with other busy threads; large counts trade CPU for latency.
     *
     * @param spinRounds  searches separated by a short spin-wait pause, at least 0
     * @param yieldRounds searches separated by {@link Thread#yield()}, at least 0
     * @return a strategy with exactly these rounds, whatever the pool's parallelism
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

    /** Spin rounds a pool of {@code parallelism} workers uses. */
    int spinRounds(int parallelism) {
        if (spinRounds >= 0) {
            return spinRounds;
        }
        return parallelism > Runtime.getRuntime().availableProcessors() ? 0 : STANDARD_SPIN_ROUNDS;
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

    /** {@code IdleStrategy.standard()} or {@code IdleStrategy.backoff(spins, yields)}. */
    @Override
    public String toString() {
        return spinRounds < 0 ? "IdleStrategy.standard()"
                : "IdleStrategy.backoff(" + spinRounds + ", " + yieldRounds + ")";
    }
}
