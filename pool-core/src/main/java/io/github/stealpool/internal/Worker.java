package io.github.stealpool.internal;

/**
 * One worker of a {@link Scheduler}: its deque and the loop its thread runs.
 *
 * <h2>Search order</h2>
 * Own deque (LIFO, no synchronisation on the fast path), then the injection queue, then stealing
 * (FIFO) from the other workers' deques, starting at a victim chosen by this worker's own
 * xorshift generator and sweeping all of them. Stealing comes last because it pushes the victim
 * onto its own slow path (the CAS on the last element) sooner.
 *
 * <h2>Idle protocol</h2>
 * A worker that finds nothing searches again {@link #SPIN_ROUNDS} times with a short
 * {@link Thread#onSpinWait()} pause, then {@link #YIELD_ROUNDS} times with
 * {@link Thread#yield()}, then announces itself sleepy, searches once more, and parks through
 * {@link Sleep}, which proves that no job posted meanwhile is missed. A woken worker starts the
 * rounds again.
 *
 * <h2>Threading</h2>
 * Everything here except {@link #deque}'s steal side, {@link #thread} and {@link #retired} is
 * touched only by the worker's own thread.
 */
public final class Worker implements Runnable {

    /**
     * Searches with a spin pause before yielding: a task posted within a few microseconds of
     * the worker running dry is picked up without a context switch.
     */
    static final int SPIN_ROUNDS = 8;
    /** {@link Thread#onSpinWait()} calls between two searches of the spin phase. */
    static final int SPINS_PER_ROUND = 64;
    /**
     * Searches with a yield between them (Rayon uses 32 rounds); on a machine with more
     * runnable threads than cores the yield hands the core to whoever will post work.
     */
    static final int YIELD_ROUNDS = 16;
    /** The round in which the worker announces it is sleepy; the next round may park. */
    static final int SLEEPY_ROUND = SPIN_ROUNDS + YIELD_ROUNDS;

    /** Set by a worker thread the pool did not create itself (a user's ThreadFactory). */
    static final ThreadLocal<Worker> CURRENT = new ThreadLocal<>();

    final Scheduler scheduler;
    final int index;
    final ChaseLevDeque<Runnable> deque = new ChaseLevDeque<>();

    /** The thread running this worker; replaced if the thread dies abnormally. */
    volatile Thread thread;
    /** Set under the scheduler's lock when this worker retires after shutdown. */
    boolean retired;

    private int seed;
    private int injectionPolls;

    Worker(Scheduler scheduler, int index) {
        this.scheduler = scheduler;
        this.index = index;
        // Any non-zero seed works for xorshift; spread the indexes so neighbours differ.
        this.seed = (index + 1) * 0x9E3779B9 | 1;
    }

    /** This worker's index in its pool, in {@code [0, parallelism)}. */
    public int index() {
        return index;
    }

    @Override
    public void run() {
        boolean foreignThread = !(Thread.currentThread() instanceof WorkerThread);
        if (foreignThread) {
            CURRENT.set(this);
        }
        boolean normalExit = false;
        try {
            runLoop();
            normalExit = true;
        } finally {
            if (foreignThread) {
                CURRENT.remove();
            }
            scheduler.workerExited(this, normalExit);
        }
    }

    private void runLoop() {
        final Scheduler s = scheduler;
        for (;;) {
            if (s.isStopping()) {
                return;
            }
            Runnable task = deque.pop();
            if (task == null && (task = scan()) == null && (task = awaitWork()) == null) {
                return;
            }
            // An interrupt aimed at the previous task (cancel(true) racing its end) or at this
            // worker while it was idle must not reach this task; one from shutdownNow must.
            if (Thread.interrupted() && s.isStopping()) {
                Thread.currentThread().interrupt();
            }
            s.runTask(task);
        }
    }

    /** Injection queue, then the other workers' deques. */
    private Runnable scan() {
        Runnable t = scheduler.injection.poll(index + ++injectionPolls, deque);
        if (t != null) {
            if (!deque.isEmpty()) {
                scheduler.announceLocalJobs(); // the rest of the batch landed in our deque
            }
            return t;
        }
        return steal();
    }

    private Runnable steal() {
        Worker[] ws = scheduler.workers;
        int n = ws.length;
        if (n == 1) {
            return null;
        }
        int i = nextVictim(n);
        for (int k = 0; k < n; k++, i = (i + 1 == n) ? 0 : i + 1) {
            if (i == index) {
                continue;
            }
            ChaseLevDeque<Runnable> victim = ws[i].deque;
            // A null from steal() with the deque still non-empty means another thread won the
            // race for that element: it made progress, so retrying here is lock-free.
            while (!victim.isEmpty()) {
                Runnable t = victim.steal();
                if (t != null) {
                    return t;
                }
            }
        }
        return null;
    }

    /** Xorshift32 (Marsaglia), bounded without division (Lemire). */
    private int nextVictim(int n) {
        int x = seed;
        x ^= x << 13;
        x ^= x >>> 17;
        x ^= x << 5;
        seed = x;
        return (int) (((x & 0xFFFF_FFFFL) * n) >>> 32);
    }

    /** The idle protocol; returns a task, or null when the worker must exit. */
    private Runnable awaitWork() {
        final Scheduler s = scheduler;
        long jec = 0;
        for (int round = 0; ; round++) {
            if (s.isStopping()) {
                return null;
            }
            Runnable t = scan();
            if (t != null) {
                return t;
            }
            if (s.isShutdown() && s.tryRetire(this)) {
                return null;
            }
            if (round < SPIN_ROUNDS) {
                for (int i = 0; i < SPINS_PER_ROUND; i++) {
                    Thread.onSpinWait();
                }
            } else if (round < SLEEPY_ROUND) {
                Thread.yield();
            } else if (round == SLEEPY_ROUND) {
                jec = s.sleep.announceSleepy(); // the next round's scan is the one Sleep relies on
            } else if (!s.injection.isEmpty()) {
                // Tasks are queued but other workers held their stripes for a moment: this
                // check, after the sleepy announcement, is the search Sleep's proof relies on
                // for injected tasks. Do not sleep on them; yield and look again.
                round = SPIN_ROUNDS;
            } else {
                // Woken: start the rounds again. Backed out because a job was posted: search,
                // then announce again.
                round = s.sleep.sleep(index, jec) ? -1 : SLEEPY_ROUND - 1;
            }
        }
    }

    @Override
    public String toString() {
        return "Worker[" + index + ", queued=" + deque.size() + "]";
    }
}
