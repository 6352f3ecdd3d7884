package io.github.stealpool.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * Puts idle workers to sleep and wakes them when work arrives, without lost wake-ups, without a
 * thundering herd, and at the cost of one volatile read per new job while no worker is idle.
 *
 * <h2>The protocol</h2>
 * After Rayon's sleep module ({@code rayon-core/src/sleep/README.md}). One word, {@link #ctl},
 * packs a <em>jobs-event counter</em> (JEC) and the number of sleeping workers:
 * <pre>
 *   bits 63..16  JEC: bumped when a job is posted while some worker is sleepy.
 *                Its low bit (bit 16) is set ("sleepy") when a worker announced it is about to
 *                sleep and no job has been posted since.
 *   bits 15..0   number of workers counted as sleeping (not yet woken)
 * </pre>
 * A worker that found no work for a while:
 * <ol>
 *   <li>{@link #announceSleepy()}: makes the JEC odd (sleepy) if it is not, by CAS, and keeps
 *       the (odd) JEC value as its snapshot;</li>
 *   <li>searches every queue once more;</li>
 *   <li>{@link #sleep}: under its own lock, CASes {@code ctl} from (snapshot, s) to
 *       (snapshot, s + 1) and fails if the JEC moved (a job was posted since step 1: go back
 *       to searching); then blocks on its condition until a waker clears its {@code blocked}
 *       flag.</li>
 * </ol>
 * A thread that posts a job first publishes it (a sequentially consistent write, or a full fence
 * after a release write), then calls {@link #notifyNewJob()}: one volatile read of {@code ctl};
 * if the JEC is sleepy it CASes the JEC one step further (even again), and if it then sees a
 * sleeping worker it wakes exactly one.
 *
 * <h2>Why no wake-up is lost (proof sketch)</h2>
 * Let P post job J and W go to sleep. All accesses to {@code ctl} are volatile or CAS, and P's
 * publication of J precedes its read of {@code ctl}; so all of them sit in one total order.
 * <ul>
 *   <li>P reads {@code ctl} before W's announcement (step 1): then J's publication precedes
 *       step 1, which precedes W's search (step 2), so W's search sees J (Dekker).</li>
 *   <li>P reads {@code ctl} after step 1 but before W's sleep CAS (step 3): if the JEC still
 *       equals W's snapshot, P sees it sleepy and moves it; if not, someone else moved it. Either
 *       way W's CAS in step 3 fails, and W searches again after that CAS, so after P's read, and
 *       sees J.</li>
 *   <li>P reads {@code ctl} after step 3: P sees at least one sleeper and wakes one (or W was
 *       already woken and searches again). Whichever worker wakes searches after P released
 *       its lock, so after J's publication, and finds J (or J was taken).</li>
 * </ul>
 * So every job is seen by a search that follows its publication, and a worker blocks only after
 * a successful step 3, which no poster that could have missed it preceded.
 * A waker that sees a sleeper counted takes each worker's lock in turn. A worker holds its own
 * lock from before its counting CAS until it blocks (the condition releases it), so the waker
 * cannot miss a worker that is counted but not yet blocked. A worker that backs out after being
 * counted (pool shutting down) uncounts itself under the same lock.
 *
 * <h2>No thundering herd</h2>
 * One job wakes at most one worker; {@link #wakeAll()} is only for shutdown.
 *
 * <h2>Orderings</h2>
 * {@code ctl}: volatile read and CAS (sequentially consistent). {@code blocked} and the idle
 * statistics (parks, wake-ups, parked time): guarded by their worker's lock.
 */
public final class Sleep extends SleepCtl {

    static final int SLEEPING_BITS = 16;
    static final long SLEEPING_MASK = (1L << SLEEPING_BITS) - 1;
    static final long ONE_SLEEPING = 1L;
    static final long JEC_ONE = 1L << SLEEPING_BITS;
    /** Low bit of the JEC: some worker announced it is sleepy and no job was posted since. */
    static final long JEC_SLEEPY = JEC_ONE;

    private static final VarHandle CTL;

    static {
        try {
            CTL = MethodHandles.lookup().findVarHandle(SleepCtlField.class, "ctl", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * Per-worker sleep state; the lock is taken only on the idle path. The statistics are
     * guarded by the lock too: a reader takes it (the sleeper releases it while blocked), so it
     * sees a park's time either still under way or already added, never both or neither.
     */
    private static final class SleepState {
        final ReentrantLock lock = new ReentrantLock();
        final Condition wake = lock.newCondition();
        boolean blocked; // guarded by lock
        long parks; // guarded by lock
        long wakeups; // guarded by lock
        long parkedNanos; // guarded by lock: parks that ended
        boolean parked; // guarded by lock
        long parkStart; // guarded by lock: System.nanoTime() when the current park began
    }

    private final SleepState[] states;
    private final BooleanSupplier mustNotSleep;

    /**
     * @param workers      number of workers, each identified by an index below this
     * @param mustNotSleep checked under the worker's lock after it is counted; true (the pool is
     *                     shutting down) makes the worker back out of its sleep
     */
    public Sleep(int workers, BooleanSupplier mustNotSleep) {
        if (workers < 1 || workers > SLEEPING_MASK) {
            throw new IllegalArgumentException("workers must be in [1, " + SLEEPING_MASK + "]: " + workers);
        }
        this.states = new SleepState[workers];
        for (int i = 0; i < workers; i++) {
            states[i] = new SleepState();
        }
        this.mustNotSleep = mustNotSleep;
    }

    private long lvCtl() {
        return (long) CTL.getVolatile(this);
    }

    private boolean casCtl(long expect, long update) {
        return CTL.compareAndSet(this, expect, update);
    }

    private void uncountSleeper() {
        long prev = (long) CTL.getAndAdd(this, -ONE_SLEEPING);
        assert (prev & SLEEPING_MASK) != 0 : "sleeper count underflow: " + describe(prev);
    }

    /** Step 1 of falling asleep: returns the JEC snapshot to pass to {@link #sleep}. */
    public long announceSleepy() {
        for (;;) {
            long c = lvCtl();
            if ((c & JEC_SLEEPY) != 0) {
                return c >>> SLEEPING_BITS;
            }
            if (casCtl(c, c + JEC_ONE)) {
                return (c + JEC_ONE) >>> SLEEPING_BITS;
            }
        }
    }

    /**
     * Step 3 of falling asleep: blocks worker {@code index} unless a job was posted since
     * {@code jecSnapshot} was taken, or the pool is shutting down.
     *
     * @return true if the worker blocked and was woken, false if it did not block
     */
    public boolean sleep(int index, long jecSnapshot) {
        return sleep(index, jecSnapshot, mustNotSleep);
    }

    /**
     * As {@link #sleep(int, long)}, for a worker waiting inside a task for a latch: it backs out
     * if {@code abort} holds once it is counted (its latch was set), and the latch's completer
     * wakes it with {@link #wakeWorker}. The check under the worker's lock closes the window
     * between the worker's last look at the latch and its blocking.
     */
    public boolean sleep(int index, long jecSnapshot, BooleanSupplier abort) {
        return sleep(index, jecSnapshot, abort, false);
    }

    /**
     * As {@link #sleep(int, long, BooleanSupplier)}; if {@code interruptible}, an interrupt ends
     * the sleep too (the worker uncounts itself under its lock) and stays set for the caller.
     */
    public boolean sleep(int index, long jecSnapshot, BooleanSupplier abort, boolean interruptible) {
        SleepState s = states[index];
        s.lock.lock();
        try {
            for (;;) {
                long c = lvCtl();
                if ((c >>> SLEEPING_BITS) != jecSnapshot) {
                    return false; // a job was posted after we announced: search again
                }
                if (casCtl(c, c + ONE_SLEEPING)) {
                    break;
                }
            }
            if (abort.getAsBoolean()) {
                uncountSleeper();
                return false;
            }
            s.blocked = true;
            s.parks++;
            s.parked = true;
            s.parkStart = System.nanoTime();
            try {
                return block(s, interruptible);
            } finally {
                s.parked = false;
                s.parkedNanos += System.nanoTime() - s.parkStart;
            }
        } finally {
            s.lock.unlock();
        }
    }

    /** Blocks on {@code s.wake} (its lock held) until woken; see {@link #sleep}. */
    private boolean block(SleepState s, boolean interruptible) {
        do {
            if (!interruptible) {
                // An interrupt aimed at a task must not wake an idle worker into a spin; the
                // worker clears its interrupt status before it runs the next task.
                s.wake.awaitUninterruptibly();
                continue;
            }
            try {
                s.wake.await();
            } catch (InterruptedException e) {
                if (s.blocked) { // nobody woke us: uncount ourselves, as a waker would
                    s.blocked = false;
                    uncountSleeper();
                }
                Thread.currentThread().interrupt();
                return true;
            }
        } while (s.blocked);
        return true;
    }

    /**
     * Called by whoever just published a job (after the publication, see the class comment).
     * While no worker is sleepy or asleep this is a single volatile read.
     */
    public void notifyNewJob() {
        long c = lvCtl();
        if ((c & (JEC_SLEEPY | SLEEPING_MASK)) != 0) {
            notifySlow(c);
        }
    }

    /**
     * As {@link #notifyNewJob()} for {@code jobs} jobs published together (a batch moved from the
     * injection queue into a deque): the proof above is per job, so each needs its own notice;
     * one notice for the batch would wake one sleeper for several newly stealable jobs. Stops
     * early once nobody is sleepy or asleep (later sleepers will see the jobs in their search).
     */
    public void notifyNewJobs(int jobs) {
        for (int i = 0; i < jobs; i++) {
            long c = lvCtl();
            if ((c & (JEC_SLEEPY | SLEEPING_MASK)) == 0) {
                return;
            }
            notifySlow(c);
        }
    }

    private void notifySlow(long c) {
        while ((c & JEC_SLEEPY) != 0) {
            if (casCtl(c, c + JEC_ONE)) {
                c += JEC_ONE;
                break;
            }
            c = lvCtl();
        }
        if ((c & SLEEPING_MASK) != 0) {
            wakeOne();
        }
    }

    private void wakeOne() {
        // Start anywhere, so concurrent posters do not all queue on the first worker's lock.
        int n = states.length;
        int start = n == 1 ? 0 : ThreadLocalRandom.current().nextInt(n);
        for (int k = 0; k < n; k++) {
            if (tryWake(states[(start + k) % n])) {
                return;
            }
        }
        // none blocked: the counted sleeper backed out, or another poster woke it
    }

    /** Wakes worker {@code index} if it is blocked (its latch was set). */
    public void wakeWorker(int index) {
        tryWake(states[index]);
    }

    /** Unblocks {@code s} and uncounts it, if it is blocked; true if it was. */
    private boolean tryWake(SleepState s) {
        s.lock.lock();
        try {
            if (!s.blocked) {
                return false;
            }
            s.blocked = false;
            s.wakeups++;
            uncountSleeper();
            s.wake.signal();
            return true;
        } finally {
            s.lock.unlock();
        }
    }

    /** Wakes every sleeping worker (shutdown). */
    public void wakeAll() {
        for (int i = 0; i < states.length; i++) {
            wakeWorker(i);
        }
    }

    /**
     * Adds up the idle statistics of every worker: {@code [parks, wake-ups, parked nanoseconds]},
     * the last including parks still under way. Takes each worker's lock in turn, briefly.
     */
    public long[] idleTotals() {
        long parks = 0;
        long wakeups = 0;
        long nanos = 0;
        for (SleepState s : states) {
            s.lock.lock();
            try {
                parks += s.parks;
                wakeups += s.wakeups;
                nanos += s.parkedNanos;
                if (s.parked) {
                    nanos += Math.max(0L, System.nanoTime() - s.parkStart);
                }
            } finally {
                s.lock.unlock();
            }
        }
        return new long[] {parks, wakeups, nanos};
    }

    /** Number of workers counted as sleeping right now. */
    public int sleepingWorkers() {
        return (int) (lvCtl() & SLEEPING_MASK);
    }

    @Override
    public String toString() {
        return describe(lvCtl());
    }

    static String describe(long c) {
        long jec = c >>> SLEEPING_BITS;
        return "Sleep[jec=" + jec + ((jec & 1) != 0 ? " (sleepy)" : "")
                + ", sleeping=" + (c & SLEEPING_MASK) + "]";
    }
}

/** Padding before {@code ctl}: the JVM lays superclass fields first and never mixes levels. */
abstract class SleepPad0 {
    long p00, p01, p02, p03, p04, p05, p06, p07;
    long p08, p09, p0a, p0b, p0c, p0d, p0e, p0f;
}

/** The word every poster reads; see {@link Sleep}. */
abstract class SleepCtlField extends SleepPad0 {
    volatile long ctl;
}

/** Padding after {@code ctl}. */
abstract class SleepCtl extends SleepCtlField {
    long p10, p11, p12, p13, p14, p15, p16, p17;
    long p18, p19, p1a, p1b, p1c, p1d, p1e, p1f;
}
