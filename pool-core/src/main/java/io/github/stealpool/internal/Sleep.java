package io.github.stealpool.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Puts idle workers to sleep and wakes them when work arrives: no lost wake-ups, at most one
 * wake-up in flight for a stream of jobs from outside (a computation spreads faster: see
 * "Spreading a computation"), and one volatile read per new job while nobody
 * sleeps or while some worker is already looking for work (the first post after a worker
 * announced it is sleepy, or after a hand-off, moves the JEC with a CAS); a fork onto a deque
 * that holds work, which is no job here, costs one plain read.
 *
 * <h2>State</h2>
 * One word, {@link #ctl}, after Rayon's sleep module ({@code rayon-core/src/sleep}) and tokio's
 * idle state ({@code runtime/scheduler/multi_thread/idle.rs}):
 * <pre>
 *   bits 63..32  JEC, the jobs-event counter: bumped when a job is posted while some worker is
 *                sleepy. Its low bit (bit 32) is set ("sleepy") when a worker announced it is
 *                about to sleep, or a job was handed off (see there), and no job has been
 *                posted since. It only grows; a waker that finds a searcher moves it by two.
 *   bits 31..16  searching: workers awake and looking for work, not running a task
 *   bits 15..0   sleeping: workers counted as asleep (not yet woken)
 * </pre>
 * Besides it, under {@link #lock}: the stack of sleeping workers (the last to fall asleep is the
 * first woken: its caches are warm and its core the least likely to be in a deep idle state,
 * as in {@code ForkJoinPool}'s idle stack and tokio's sleeper list) and each worker's sleep
 * record. A worker is counted as sleeping and pushed on the stack in one critical section, and
 * uncounted and popped in another, so whoever holds the lock sees the count and the stack agree.
 *
 * <p>Errors: a sleep may be entered at any stack depth (a join waits in it), and so may a
 * wake-up (a fork's notice deep in a recursion, a completer deep in nested helping), so a
 * StackOverflowError, or an OutOfMemoryError, may strike any call. Each sleep and each waker
 * that takes the lock ({@code wakeOne}, {@code wakeAnother}, {@link #wakeWorker},
 * {@link #tryHandOff}, {@link #wakeAll}) first calls {@link StackHeadroom#ensure()}, which takes more stack than the
 * deepest chain the section makes (the JDK's lock, park and clock included, and the sleeper's
 * whole way out on an interrupt, a time-out or an Error) and gives it back: a real overflow
 * strikes there, before anything is done, or nowhere in the section. The VarHandle call sites
 * the sections use are linked by the static initializer, since a first use links deeper than
 * any headroom; the wakers read the clock and allocate before they take the lock. Behind that
 * check, what fails anyway (an OutOfMemoryError, or an overflow beyond the headroom) is
 * undone: the sleeper makes every call that may fail before it counts itself, except its abort
 * check, whose failure (any Throwable) it undoes by uncounting itself; it pushes itself after
 * the check with plain stores, no call between; one taking itself off uncounts itself with its
 * last call before the unlock. A waker relies on the headroom alone: it uncounts a sleeper, then
 * pops and releases it through small methods (no allocation, no clock, no first link), and an
 * overflow beyond the headroom between the uncount and the release is not undone (the count
 * would then read one less than the stack). An Error at the sleeper's unlock or while parked
 * takes it off the stack again, unless a waker was first (then it returns that wake-up, whose
 * duty only its caller can fulfil). A lock or unlock that throws while the lock is held
 * (an overflow held back by the JDK's reserved stack until the lock's method returns) lets it
 * go, having failed before or after releasing it: a retry would re-enter the lock and keep it.
 * An Error at the unlock after it took itself off is thrown, never answered with a wake-up: the
 * record marks that no waker ended this sleep, since what an earlier waker left there would have
 * the caller stop a search nobody counted, or run a job nobody handed over. So, within the
 * headroom, the count, the stack and the records agree whatever fails, and a worker counted
 * asleep is on the stack.
 *
 * <p>What an overflow costs: one at a waker's check loses that wake-up, and nothing else; the
 * caller gets the Error. A post's job is published already: a forked job stays in its worker's
 * deque, which that worker runs (the lost notice costs parallelism, never the job), but an
 * external submission whose notice is lost waits for the next post or search; a completer's
 * lost {@link #wakeWorker} leaves its joiner asleep until another wake-up. A hand-off that
 * overflows hands nothing off, and the caller posts the job as usual. Not covered, since Java
 * cannot undo it: an overflow or OutOfMemoryError in the unpark after a waker released a
 * sleeper, beyond the headroom (the sleeper is then off the stack, uncounted, and parked until
 * another unpark), and an error in the sleeper's way out after a waker released it but before
 * its sleep returned, beyond the headroom (the wake-up's duty is lost with the Error).
 *
 * <h2>Falling asleep</h2>
 * A worker that ran out of work searches, counted as searching ({@link #tryStartSearching}, at
 * most half the pool at once, as in tokio: more searchers only collide on the same queues),
 * for as long as its idle strategy says. Then:
 * <ol>
 *   <li>{@link #stopSearching()} (if it was searching), handing the search on if it was the
 *       last searcher and sees work queued (see Waking);</li>
 *   <li>{@link #announceSleepy()}: makes the JEC odd if it is not, and keeps it as a snapshot;</li>
 *   <li>searches every queue once more;</li>
 *   <li>{@link #sleep}: under the lock, CASes {@code ctl} from (snapshot, s) to
 *       (snapshot, s + 1), and fails if the JEC moved (a job was posted since step 2: search
 *       again); uncounts itself and backs out if its abort check then holds (its latch was
 *       set, or the pool shuts down); else pushes itself on the stack, in the same critical
 *       section, releases the lock and parks until a waker clears its {@code parked}
 *       flag.</li>
 * </ol>
 *
 * <h2>Waking</h2>
 * A thread that posts a job first publishes it (a sequentially consistent write, or a full
 * fence after a release write), then calls {@link #notifyNewJob()}: one volatile read of
 * {@code ctl}; if the JEC is sleepy it moves it one step (even again); then, <em>only if nobody
 * is searching</em> and somebody sleeps, it wakes one sleeper, which it counts as searching in
 * the same atomic step that uncounts it as sleeping. So while one woken worker is on its way,
 * further posts wake nobody: one submitter feeding many idle workers wakes them one at a time,
 * not one per task. The chain goes on from the workers themselves (after Go's scheduler,
 * {@code proc.go}, and tokio's): a searcher that stops, having found work or not, calls
 * {@link #stopSearching()}; if it was the last searcher while somebody sleeps, and it sees work
 * queued anywhere, it wakes the next searcher with {@link #wakeSearcher()}. Under the lock a waker checks once more
 * that nobody is searching, so racing posters wake one worker, not one each.
 *
 * <h2>Spreading a computation</h2>
 * One wake-up in flight suits one producer trickling jobs, but a fork tree would then reach its
 * workers one wake-up after another. So two more posts wake a sleeper even while others search,
 * through {@link #spread()}: a fork or a worker's {@code execute} that lands on its empty deque
 * (JDK 17's {@code ForkJoinPool} rule for pushes), and a steal that leaves tasks behind in its
 * victim (JDK 26's, openjdk PR 26479). Each woken worker that forks or steals can wake one more,
 * so n workers are reached in O(log n) generations. An outside producer's posts never spread;
 * the thieves of the batches its tasks arrive in do, within the bounds. Bounded by half the
 * workers searching (as {@link #tryStartSearching}) and by as many awake as the JVM has
 * processors: more would only queue for a core (docs/lab/wake-ups.md has the A/B that chose
 * this rule). The proof below does not change: such a wake-up is one more, under the lock, that
 * pops a sleeper and counts it as a searcher in one step, exactly as {@code wakeOne}'s; no post
 * relies on it (it takes the lock only with {@code tryLock}, gives up when it is busy, and never
 * throws).
 *
 * <h2>Forks onto a deque that holds work</h2>
 * A worker's fork onto its own deque when that deque holds work (as {@code push}'s read of
 * {@code top} found it: a thief may steal between that read and the store of {@code bottom}, and
 * then the push lands on an empty deque reporting "not empty") is pushed with no fence, outside a
 * blocking call, and its notice is a hint ({@link #hintNewJob()}: a plain read of {@code ctl},
 * then {@link #notifyNewJob()} if that read says it would act), which may read {@code ctl}
 * before the push is visible (under the lab switch {@code stealpool.lab.forkNotice=fenced}
 * there is none): it is
 * no post in the proof below, whose "jobs" are everything else (submissions,
 * forks onto an empty deque or inside a blocking call, a worker's {@code execute}, batches moved
 * into a deque). Such a fork sits above the floor of the task that forked it, on its owner's
 * deque, and the owner is awake, running that task or one above it on its stack. It never waits
 * for a sleeper, only for its owner: the join of that task, or of any frame below it on the
 * owner's stack, pops it, and a task that returns leaves it to the owner's loop; after
 * {@code shutdownNow} the owner abandons it on its way out (ShutdownSweep, rules 2 and 3). A
 * thief is a gain in parallelism, not a condition of progress; in practice one comes, since a
 * fenced push began the fan-out and the steals that follow leave tasks behind and wake more
 * ("Spreading a computation"), but that is not proved: the push that a steal emptied the deque
 * under goes unannounced.
 *
 * <p>So an owner must not wait without taking tasks while its deque holds unannounced forks. It
 * does so only where the pool makes it wait, and each such place first fences its deque and
 * notifies ({@code Worker.publishForks}), which makes those forks posts from then on: a blocking
 * call (and every fork inside one is fenced), a join past its depth bound, a timed wait on a task
 * or a submitted future, a wait on a delayed task, and a wait on another pool (its termination,
 * its quiescence, room under its bound). {@code invokeAll} and {@code invokeAny} from a worker
 * submit through {@code execute}, whose fence publishes the forks before them. Not covered: a
 * task that blocks any other way on work it forked (a lock, a latch, I/O outside
 * {@code blocking}, {@code CompletableFuture.join} or a plain {@code FutureTask.get}), as in
 * {@code ForkJoinPool}, which signals a push only onto an empty queue; and an owner blocked for
 * good at STOP, whose unswept forks are settled only once its task returns (docs/guarantees.md
 * says both).
 *
 * <h2>Handing a job to the worker woken for it</h2>
 * A thread outside the pool with a job to post, that finds the pool idle (as many sleepers as
 * its parallelism, nobody searching) and its most recent sleeper an idle worker parked for at least
 * {@link #HAND_OFF_AFTER_NANOS} (not one asleep inside a join, which must look at its latch
 * first when woken: its join may be done, and a handed job would then run on top of it), gives
 * the job to that sleeper instead of queueing it ({@link #tryHandOff}): under the lock it pops
 * the sleeper, and in one CAS on {@code ctl} (whose witness counts no searcher) counts it as
 * searching, uncounts it as sleeping and makes the JEC sleepy if it is not; it stores the job and
 * that JEC in the sleeper's record and releases it. The sleeper's {@link #sleep} returns
 * {@link #HANDED_OFF}, {@link #takeHandOff} gives it the job, and it stops searching
 * ({@link #stopSearchingAfterHandOff}) before it runs the job.
 *
 * <p>Sleeping spare threads count among the sleepers: a pool whose blocked workers' spares
 * sleep with the other workers is idle, since no thread free to run tasks is awake; so, until
 * a surplus spare retires, is one with a worker running beside a sleeping spare. Idleness only
 * decides when a hand-off pays; the proof below never uses it.
 *
 * <p>Why: a worker coming out of a long sleep finds nothing in its caches, and on a virtual
 * machine not even its page mappings, so every queue it reads on its way to the job costs
 * microseconds; woken with the job in hand it reads none, which brings a cold wake-up close to
 * {@code ForkJoinPool}'s. Why only into an idle pool, after a long sleep: hand-offs into any idle
 * moment slowed a submitter that feeds a pool which drains and sleeps between its tasks; bounded
 * so, it hands off about once per burst and costs nothing measurable (docs/lab/wake-ups.md has
 * the figures).
 *
 * <p>A job handed off is in the hands of one thread from the moment its record is released: a
 * sleeper whose record was released always returns from {@link #sleep} with what the waker
 * said, even if it was interrupted or out of time, so the job is run (ShutdownSweep, "Nothing
 * lost", rule 1). It is never queued, so the proof below, about queued jobs, needs only one addition:
 * such a worker searches nowhere before its job, and as it stops it looks at every queue only if
 * it is the last searcher while somebody sleeps (as any searcher) and the JEC moved since its
 * hand-off (case five below says why that is enough).
 *
 * <h2>Why no job is left behind while a worker sleeps (proof sketch)</h2>
 * Every access to {@code ctl} is a volatile read or an atomic update (except the plain read in
 * {@link #hintNewJob()}, a filter whose value no step below uses), and a poster's publication
 * of job J precedes its read of {@code ctl}; so they all sit in one total order. Let P post J
 * and read {@code ctl} as c. A search that starts after P's read sees J (or J was taken, and
 * whoever took it runs it). A poster may publish several jobs before one fence and one read
 * (the timer hands due tasks over in batches: DelayScheduler, "Handing over in batches"); the
 * argument below holds for each of them with that read, so one notice stands for them all.
 * <ul>
 *   <li><b>A worker W falling asleep</b> (steps 2 to 4). If W announced (step 2) before P's
 *       read, P sees the JEC sleepy and moves it (or someone else did), so W's CAS in step 4
 *       fails and W searches again. If W announced after P's read, its search in step 3 sees J
 *       (a stripe of the injection queue that another worker holds is skipped by that search;
 *       its holder looks again after unlocking and gives notice of what is left, see
 *       InjectionQueue, "Tasks left behind a lock").
 *       So W blocks with J unseen only if it was counted before P's read: then c counts it.</li>
 *   <li><b>c counts no searcher and some sleeper:</b> P wakes one. Under the lock it pops a
 *       sleeper, whose search follows the pop, hence P's read. If somebody searches by then,
 *       the next case covers P, taken from that moment. If the stack is empty by then, every
 *       sleeper c counted left it after P's read: popped by other wakers (woken to search, or
 *       with a job in hand: searchers, the next case and the last), woken by name by its
 *       latch's completer or by {@link #wakeAll}, or off by itself (a joiner interrupted, a
 *       spare whose keep-alive ran out, a sleeper hit by an Error), or never on it: a joiner
 *       whose latch was set, or a worker of a pool shutting down, counted and uncounted in one
 *       critical section by its abort check. None of these need search for P: a worker
 *       counted asleep after P's read announced after it (the first case: one that announced
 *       before fails its CAS), so it searched after P's read. So while J waits, nobody sleeps who has
 *       not searched since P's read, and the workers awake search when done (the fourth
 *       case). A joiner woken by name still passes a notice on if it sees work queued, to
 *       start J sooner; the proof does not rely on it, nor on the joiner interrupted, which
 *       leaves for its interrupt without one.</li>
 *   <li><b>c counts a searcher:</b> P wakes nobody. Consider the first time after P's read that
 *       the number of searchers drops to zero, by worker T's {@link #stopSearching()} (if it
 *       never drops to zero, a searcher that started after P's read exists and searches).
 *       Whatever T does next (it found work; it gives up, and its last search may still find
 *       some other job, so it need not sleep; it leaves for its latch), it looks at every queue
 *       after its decrement and, if it sees work while somebody sleeps, wakes a searcher (the
 *       previous case, with T as poster). If T sees no work, J was taken.</li>
 *   <li><b>c counts nobody asleep and nobody searching:</b> every worker is running a task or
 *       between tasks; each searches again when it is done, and one falling asleep is covered by
 *       the first case. One kind of worker may leave instead, without a last search: a spare
 *       thread no longer needed (SpareThreads, "Blocking calls"). It leaves only while more
 *       spares are alive than workers blocked in blocking calls, so at least
 *       {@code parallelism} threads not blocked remain, and they search when done.</li>
 *   <li><b>Workers woken with a job in hand</b> (H, the hand-off's CAS; W, its worker; s, the
 *       JEC it left, sleepy). W counts as a searcher from H, and the second and third cases
 *       treat it as one with a single difference: at its stop G, as the last searcher with
 *       somebody asleep, W skips the look if the JEC at G is still s. A post P relies on W's
 *       look only if W is the first searcher after P's read to bring the count to zero, or if P
 *       saw no searcher, and its {@code wakeOne} then found W searching under the lock. If P
 *       read {@code ctl} after H: it saw the JEC either moved already (it only grows, so G sees
 *       it moved and W looks) or still s, sleepy, and moved it itself; if that CAS came before G,
 *       W looks, and if after, P's CAS succeeded on a value that counts W's stop, so P wakes a
 *       searcher itself if nobody searches (or somebody started after P's read). If P read
 *       before H and saw a searcher, the count dropped to zero between P's read and H (H's
 *       witness counts no searcher), and that stop covers P: W is not the first. If P read
 *       before H, saw nobody searching and somebody asleep, and its {@code wakeOne} took the
 *       lock after H with W still searching, {@code wakeOne} moves the JEC (by two, keeping its
 *       parity) in a CAS that succeeds only while a searcher is counted; if W's stop came
 *       first, the CAS fails and {@code wakeOne} sees nobody searching and wakes a sleeper.
 *       Either way W looks, or somebody else does the work of the look.</li>
 * </ul>
 * So no worker stays asleep while a job posted before its sleep waits for it, unless other
 * workers, awake, will search after that job's publication. (A fork onto a deque that holds
 * work is no post: its owner is awake and takes it; see "Forks onto a deque that holds work".)
 *
 * <h2>Orderings</h2>
 * {@code ctl}: volatile reads and atomic updates (sequentially consistent; the proof needs the
 * total order), and one plain read, {@link #hintNewJob()}'s filter, which the proof never
 * uses. Each record's {@code parked} flag: written under the lock, read by its parked
 * owner with a volatile read, which makes the waker's writes to the record (how it was woken,
 * and the job handed to it) visible; the owner clears the job with a plain write, ordered
 * before the next waker's store by the lock its next sleep takes. The stack, the records'
 * other fields and the idle statistics: guarded by the lock.
 * {@link LockSupport#unpark} comes after the flag is cleared, outside the lock; a stale permit
 * only makes a later park return early, and the owner parks again while its flag is set.
 */
public final class Sleep extends SleepCtl {

    /** {@link #sleep} returns this when the worker did not block. */
    public static final int BACKED_OUT = 0;
    /** ... when it blocked and was woken by name, by shutdown, or by an interrupt. */
    public static final int WOKEN = 1;
    /**
     * ... when it blocked and was woken for a new job: it is counted as searching, and must call
     * {@link #stopSearching()} when it stops.
     */
    public static final int WOKEN_TO_SEARCH = 2;
    /**
     * ... when it blocked with a time limit ({@link #sleepAtMost}) and nobody woke it before
     * the limit: it took itself off the stack, as an interrupted sleeper does.
     */
    public static final int TIMED_OUT = 3;
    /**
     * ... when it blocked and was woken with a job handed to it ({@link #tryHandOff}): it is
     * counted as searching, as for {@link #WOKEN_TO_SEARCH}, and must take the job with
     * {@link #takeHandOff} and run it.
     */
    public static final int HANDED_OFF = 4;

    static final long SLEEPING_MASK = (1L << 16) - 1;
    static final long ONE_SLEEPING = 1L;
    static final int SEARCHING_SHIFT = 16;
    static final long SEARCHING_MASK = SLEEPING_MASK << SEARCHING_SHIFT;
    static final long ONE_SEARCHING = 1L << SEARCHING_SHIFT;
    static final int JEC_SHIFT = 32;
    static final long JEC_ONE = 1L << JEC_SHIFT;
    /**
     * {@link Record#wokenAs} after the owner took itself off the stack: no waker ended that
     * sleep. Never returned by {@link #sleep}.
     */
    private static final int TOOK_ITSELF_OFF = -1;

    /** Low bit of the JEC: some worker announced it is sleepy and no job was posted since. */
    static final long JEC_SLEEPY = JEC_ONE;

    private static final VarHandle CTL;

    static {
        try {
            CTL = MethodHandles.lookup().findVarHandle(SleepCtlField.class, "ctl", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
        // Rule: the VarHandle call sites the guarded sections use are linked here, once.
        // Reason: a call site's first use links it, deeper than StackHeadroom's figure.
        Sleep linked = new Sleep(1, 1, NeverAbort.INSTANCE, 0L);
        linked.casCtl(linked.lvCtl(), linked.addCtl(linked.lpCtl() & 0L));
    }

    /** A plain class, not a lambda: a lambda's first use bootstraps deep in the initializer. */
    private static final class NeverAbort implements BooleanSupplier {
        static final NeverAbort INSTANCE = new NeverAbort();

        @Override
        public boolean getAsBoolean() {
            return false;
        }
    }

    /** One worker's sleep record. Fields other than {@code parked}'s reads: guarded by the lock. */
    private static final class Record {
        /** Set when counted and pushed, cleared by the waker: the owner parks while it is set. */
        volatile boolean parked;
        /**
         * How the last sleep ended: {@link #WOKEN}, {@link #WOKEN_TO_SEARCH} or {@link #HANDED_OFF},
         * set by its waker, or {@link #TOOK_ITSELF_OFF}, set by the owner.
         */
        int wokenAs;
        /** The job handed to the owner with its wake-up; taken and cleared by the owner. */
        Runnable handOff;
        /** The JEC the hand-off left, sleepy: a different one later means a post came since. */
        long handOffJec;
        /** Asleep as an idle worker, not inside a join: a job may be handed to it. */
        boolean takesHandOff;
        Thread thread;
        long parks;
        long wakeups;
        long handOffs; // jobs handed to this worker as it was woken
        long parkedNanos; // parks that ended
        long parkStart; // System.nanoTime() when the current park began
    }

    /**
     * A job is handed only to a worker parked at least this long (and only while every worker
     * sleeps): 100 us. Cold caches are what a hand-off saves, and they come with long sleeps; a
     * pool that goes idle for a moment between one submitter's tasks keeps the queue-and-wake
     * path, whose woken worker searches and takes a batch of the queued tasks.
     */
    static final long HAND_OFF_AFTER_NANOS = 100_000L;
    private final long handOffAfterNanos;

    private final ReentrantLock lock = new ReentrantLock();
    private final Record[] records;
    /** Sleeping workers' indexes, the most recent on top. Guarded by lock. */
    private final int[] sleepers;
    private int sleeperCount; // guarded by lock
    /**
     * Whether at least {@link #workers} threads sleep, spares included: the submitter's first look
     * before a hand-off. Written under the lock, and only when it changes, so that submitters
     * to a busy pool read a line nobody writes (see "Handing a job to the worker woken for it").
     */
    private final AllAsleep allAsleep = new AllAsleep();
    /** The pool's parallelism: at most half of it searches at once. */
    private final int workers;
    /** The processors the JVM may use: {@link #spread} wakes nobody once as many are awake. */
    private final int cores;
    private final BooleanSupplier mustNotSleep;

    /** The points inside a sleep where a test may make an Error strike ({@link #faultHook}). */
    enum Fault {
        /** In the park loop, before each park: as a park, a clock read or a re-lock may fail. */
        PARK,
        /** Just before the unlock that ends the sleeper's critical section. */
        UNLOCK,
        /** Just before the unlock that ends a sleeper's taking itself off the stack. */
        TAKE_OFF_UNLOCK
    }

    /**
     * Test hook, null outside tests: run at each {@link Fault} point, so that a test can throw
     * the Error a stack overflow or an out-of-memory would throw there. Read only by a worker on
     * its way to a park, never by posters.
     */
    volatile Consumer<Fault> faultHook;

    /**
     * For tests, from a {@link #faultHook} on the thread that holds the lock: releases it, so
     * that the Error the hook throws next stands for an unlock that fails after releasing.
     */
    void releaseLockForTest() {
        lock.unlock();
    }

    private void mayFail(Fault point) {
        Consumer<Fault> hook = faultHook;
        if (hook != null) {
            hook.accept(point);
        }
    }

    /**
     * @param workers      number of workers, each identified by an index below this
     * @param mustNotSleep checked under the lock after a worker is counted; true (the pool is
     *                     shutting down) makes the worker back out of its sleep
     */
    public Sleep(int workers, BooleanSupplier mustNotSleep) {
        this(workers, workers, mustNotSleep);
    }

    /**
     * @param workers      the pool's parallelism, which bounds the searchers (half of it)
     * @param slots        number of worker indexes, {@code workers} plus the spare threads that
     *                     may stand in for blocked workers; each index is below this
     * @param mustNotSleep as above
     */
    public Sleep(int workers, int slots, BooleanSupplier mustNotSleep) {
        this(workers, slots, mustNotSleep, HAND_OFF_AFTER_NANOS);
    }

    /**
     * As above, handing jobs to sleepers parked for at least {@code handOffAfterNanos} (the
     * pool uses {@link #HAND_OFF_AFTER_NANOS}; tests of the protocol use 0).
     */
    Sleep(int workers, int slots, BooleanSupplier mustNotSleep, long handOffAfterNanos) {
        this(workers, slots, mustNotSleep, handOffAfterNanos,
                Runtime.getRuntime().availableProcessors());
    }

    /** As above, {@link #spread} counting {@code cores} processors (tests of it pass their own). */
    Sleep(int workers, int slots, BooleanSupplier mustNotSleep, long handOffAfterNanos,
          int cores) {
        this.cores = cores;
        if (workers < 1 || slots < workers || slots > SLEEPING_MASK) {
            throw new IllegalArgumentException("need 1 <= workers <= slots <= " + SLEEPING_MASK
                    + ": workers " + workers + ", slots " + slots);
        }
        this.handOffAfterNanos = handOffAfterNanos;
        this.workers = workers;
        this.records = new Record[slots];
        for (int i = 0; i < slots; i++) {
            records[i] = new Record();
        }
        this.sleepers = new int[slots];
        this.mustNotSleep = mustNotSleep;
    }

    private long lvCtl() {
        return (long) CTL.getVolatile(this);
    }

    /** Plain: only for {@link #hintNewJob()}, whose value is a filter that the notice reads again. */
    private long lpCtl() {
        return (long) CTL.get(this);
    }

    private boolean casCtl(long expect, long update) {
        return CTL.compareAndSet(this, expect, update);
    }

    /**
     * Adds {@code delta} to {@code ctl}, returning the value before. The one getAndAdd call
     * site of the guarded sections, linked by the static initializer.
     */
    private long addCtl(long delta) {
        return (long) CTL.getAndAdd(this, delta);
    }

    private static int searching(long c) {
        return (int) ((c & SEARCHING_MASK) >>> SEARCHING_SHIFT);
    }

    private static int sleeping(long c) {
        return (int) (c & SLEEPING_MASK);
    }

    /** Whether a poster seeing {@code c} must wake somebody: nobody searches, somebody sleeps. */
    private static boolean wantsWaker(long c) {
        return (c & SEARCHING_MASK) == 0 && (c & SLEEPING_MASK) != 0;
    }

    // ------------------------------------------------------------------ searching

    /**
     * A worker that ran out of work asks to search, counted as searching; refused while half the
     * workers already search. A worker refused goes on towards sleep without the spin phase.
     */
    public boolean tryStartSearching() {
        // A read, then an add rather than a CAS: workers going idle together may overshoot the
        // bound by a few, which costs nothing but some extra searching; a CAS loop would make
        // them queue on this word.
        if (2 * searching(lvCtl()) >= workers) {
            return false;
        }
        addCtl(ONE_SEARCHING);
        return true;
    }

    /**
     * A searcher stops searching: it found work, gives up to fall asleep, or leaves for another
     * reason. Returns true if it was the last searcher while somebody sleeps: then it must look
     * at every queue and call {@link #wakeSearcher()} if it sees work (see the proof).
     */
    public boolean stopSearching() {
        long c = addCtl(-ONE_SEARCHING) - ONE_SEARCHING;
        assert searching(c + ONE_SEARCHING) != 0 : "searcher count underflow: " + describe(c);
        return wantsWaker(c);
    }

    /** Wakes one sleeper to search, unless somebody searches already or nobody sleeps. */
    public void wakeSearcher() {
        wakeOne();
    }

    // ------------------------------------------------------------------ falling asleep

    /** Step 2 of falling asleep: returns the JEC snapshot to pass to {@link #sleep}. */
    public long announceSleepy() {
        for (;;) {
            long c = lvCtl();
            if ((c & JEC_SLEEPY) != 0) {
                return c >>> JEC_SHIFT;
            }
            if (casCtl(c, c + JEC_ONE)) {
                return (c + JEC_ONE) >>> JEC_SHIFT;
            }
        }
    }

    /**
     * Step 4 of falling asleep: blocks worker {@code index} unless a job was posted since
     * {@code jecSnapshot} was taken, or the pool is shutting down. Interrupts do not end the
     * sleep; the interrupt status is kept for the caller.
     *
     * @return {@link #BACKED_OUT}, {@link #WOKEN}, {@link #WOKEN_TO_SEARCH} or {@link #HANDED_OFF}
     */
    public int sleep(int index, long jecSnapshot) {
        return sleep(index, jecSnapshot, mustNotSleep, false, 0L, true);
    }

    /**
     * As {@link #sleep(int, long)}, for a worker waiting inside a task for a latch: it backs out
     * if {@code abort} holds once it is counted (its latch was set), and the latch's completer
     * wakes it with {@link #wakeWorker}. The check under the lock closes the window between the
     * worker's last look at the latch and its blocking: the completer's {@code wakeWorker}
     * takes the lock too, before or after the whole count-check-push.
     */
    public int sleep(int index, long jecSnapshot, BooleanSupplier abort) {
        return sleep(index, jecSnapshot, abort, false, 0L, false);
    }

    /**
     * As {@link #sleep(int, long, BooleanSupplier)}; if {@code interruptible}, an interrupt ends
     * the sleep too (the worker takes itself off the stack, unless a waker was first) and stays
     * set for the caller.
     */
    public int sleep(int index, long jecSnapshot, BooleanSupplier abort, boolean interruptible) {
        return sleep(index, jecSnapshot, abort, interruptible, 0L, false);
    }

    /**
     * As {@link #sleep(int, long)}, giving up after {@code nanos} (a spare thread's keep-alive):
     * then the worker takes itself off the stack, unless a waker was first, and gets
     * {@link #TIMED_OUT}. Like a worker that backs out, it must search again before it leaves or
     * sleeps: the proof's second case counts on a sleeper that uncounts itself after a poster's
     * read searching afterwards, as for an interrupted sleeper.
     *
     * @param nanos the longest time to stay parked; positive
     */
    public int sleepAtMost(int index, long jecSnapshot, long nanos) {
        if (nanos <= 0L) {
            throw new IllegalArgumentException("nanos must be positive: " + nanos);
        }
        return sleep(index, jecSnapshot, mustNotSleep, false, nanos, true);
    }

    /**
     * {@code takesHandOff}: an idle worker's sleep, not one inside a join (see the hand-off).
     *
     * <p>Errors (a StackOverflowError in a deep join, an OutOfMemoryError): a real overflow
     * strikes at the headroom check, first, or nowhere here (see the class comment). Behind it,
     * the calls that may fail come before the count (the clock, the CAS itself, which fails only before it acts),
     * except the abort check, whose Error is undone by uncounting; once the check passed, the
     * worker pushes itself with plain stores, no call in between, so no Error leaves a count
     * without its stack entry. An Error at the unlock or while parked takes the worker off the
     * stack again ({@link #leaveOnError}); one at the unlock after it took itself off, out of
     * time or interrupted, is thrown ({@link #takeOffStack}).
     */
    private int sleep(int index, long jecSnapshot, BooleanSupplier abort, boolean interruptible,
                      long nanos, boolean takesHandOff) {
        StackHeadroom.ensure(); // an overflow strikes here, before anything is done, or nowhere
        Record r = records[index];
        Thread self = Thread.currentThread();
        long now = System.nanoTime();
        boolean counted = false;
        acquire();
        try {
            long c = lvCtl();
            // A moved JEC: a job was posted after we announced, so search again.
            while ((c >>> JEC_SHIFT) == jecSnapshot && !casCtl(c, c + ONE_SLEEPING)) {
                c = lvCtl();
            }
            if ((c >>> JEC_SHIFT) == jecSnapshot) {
                // Counted. The abort check is the one call before the push; an Error in it is
                // undone by the same kind of call, from this frame, as the CAS just made.
                boolean backOut;
                try {
                    backOut = abort.getAsBoolean();
                } catch (Throwable e) { // whatever it throws: a sneaky checked exception too
                    addCtl(-ONE_SLEEPING);
                    throw e;
                }
                if (backOut) {
                    addCtl(-ONE_SLEEPING);
                } else {
                    // From here to the flag, plain stores only.
                    r.thread = self;
                    r.takesHandOff = takesHandOff;
                    r.parks++;
                    r.parkStart = now;
                    sleepers[sleeperCount++] = index;
                    if (sleeperCount >= workers && !allAsleep.value) {
                        allAsleep.value = true; // sleepersChanged, written out: no call here
                    }
                    r.parked = true;
                    counted = true;
                }
            }
        } catch (Throwable e) {
            lock.unlock(); // nothing is counted: the abort check's failure was undone
            throw e;
        }
        try {
            mayFail(Fault.UNLOCK);
            lock.unlock();
        } catch (RuntimeException | Error e) {
            // The unlock failed, before it released the lock (then it is still ours) or after.
            if (lock.isHeldByCurrentThread()) {
                lock.unlock();
            }
            if (!counted) {
                throw e;
            }
            return leaveOnError(index, r, e);
        }
        return counted ? block(index, r, interruptible, nanos) : BACKED_OUT;
    }

    /**
     * Takes the lock. If an Error comes out after the lock was taken (the JDK's reserved stack
     * pages let a lock in progress finish and throw the StackOverflowError on return), lets it go
     * before the Error propagates: a lock left held would stop every sleep and wake-up.
     */
    private void acquire() {
        try {
            lock.lock();
        } catch (RuntimeException | Error e) {
            if (lock.isHeldByCurrentThread()) {
                lock.unlock();
            }
            throw e;
        }
    }

    /** As {@link #acquire()}, without waiting: false if another thread holds the lock. */
    private boolean tryAcquire() {
        try {
            return lock.tryLock();
        } catch (RuntimeException | Error e) {
            if (lock.isHeldByCurrentThread()) {
                lock.unlock();
            }
            throw e;
        }
    }

    /**
     * Releases the lock, as the waker's {@code finally}. If the unlock fails before it released
     * the lock, lets it go before the Error propagates: a retry would re-enter it and keep it.
     */
    private void release() {
        try {
            lock.unlock();
        } catch (RuntimeException | Error e) {
            if (lock.isHeldByCurrentThread()) {
                lock.unlock();
            }
            throw e;
        }
    }

    /**
     * A counted sleeper whose sleep failed with {@code e}: as an interrupted sleeper, it takes
     * itself off the stack and throws {@code e}, unless a waker was first; then it returns how
     * it was woken and drops {@code e}, since the wake-up carries a duty (a search, a job in
     * hand) that only the caller can fulfil, and nothing of the sleep is left to undo. If it
     * had taken itself off already (an Error at that unlock), it throws {@code e}: the record
     * then holds no wake-up of this sleep, only {@link #TOOK_ITSELF_OFF}.
     */
    private int leaveOnError(int index, Record r, Throwable e) {
        if (takeOffStack(index, r) || r.wokenAs == TOOK_ITSELF_OFF) {
            if (e instanceof Error) {
                throw (Error) e;
            }
            throw (RuntimeException) e; // only these are caught
        }
        return r.wokenAs;
    }

    /** Parks while {@code r} is parked; {@code nanos} > 0 bounds the time, 0 means none. */
    private int block(int index, Record r, boolean interruptible, long nanos) {
        boolean interrupted = false;
        try {
            long deadline = nanos > 0L ? System.nanoTime() + nanos : 0L;
            while (r.parked) {
                mayFail(Fault.PARK);
                if (nanos <= 0L) {
                    LockSupport.park(this);
                } else {
                    long left = deadline - System.nanoTime();
                    if (left <= 0L) {
                        if (takeOffStack(index, r)) {
                            return TIMED_OUT;
                        }
                        continue; // woken meanwhile: r.parked is false now
                    }
                    LockSupport.parkNanos(this, left);
                }
                if (Thread.interrupted()) {
                    // Non-interruptible: an interrupt aimed at a task must not wake an idle
                    // worker into a spin; it is kept, and the worker clears it before its next
                    // task. Parking with the status set would return at once, hence the clear.
                    interrupted = true;
                    if (interruptible && takeOffStack(index, r)) {
                        return WOKEN;
                    }
                }
            }
            return r.wokenAs;
        } catch (RuntimeException | Error e) {
            return leaveOnError(index, r, e); // a counted worker never leaves parked
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * The owner of {@code r}, interrupted, out of time or hit by an Error: uncounts itself unless
     * a waker was first. Every call comes before the uncount, which is the last before the
     * unlock: an Error leaves the sleeper counted and stacked, as before, or off both. An Error
     * at the unlock, before or after it released the lock, lets the lock go; it is thrown if the
     * owner took itself off (marked {@link #TOOK_ITSELF_OFF}, so that {@link #leaveOnError}
     * throws it too rather than return the previous sleep's wake-up), and dropped if a waker was
     * first, as {@link #leaveOnError} drops one: its caller returns the wake-up.
     */
    private boolean takeOffStack(int index, Record r) {
        long now = System.nanoTime();
        acquire();
        boolean tookOff = false;
        try {
            if (r.parked) {
                addCtl(-ONE_SLEEPING);
                // Uncounted: off the stack with plain stores only, keeping the others' order.
                int k = sleeperCount - 1;
                while (sleepers[k] != index) {
                    k--; // present: its record is parked, and parked records are on the stack
                }
                for (; k < sleeperCount - 1; k++) {
                    sleepers[k] = sleepers[k + 1];
                }
                sleeperCount--;
                if (allAsleep.value && sleeperCount < workers) {
                    allAsleep.value = false; // sleepersChanged, written out: no call here
                }
                long parked = now - r.parkStart;
                if (parked > 0L) {
                    r.parkedNanos += parked;
                }
                r.wokenAs = TOOK_ITSELF_OFF;
                r.parked = false;
                tookOff = true;
            } // else woken meanwhile: keep what the waker said
        } catch (Throwable e) {
            lock.unlock(); // the uncount, the first act, fails only before it acts: nothing done
            throw e;
        }
        try {
            mayFail(Fault.TAKE_OFF_UNLOCK);
            lock.unlock();
        } catch (RuntimeException | Error e) {
            if (lock.isHeldByCurrentThread()) {
                lock.unlock(); // it failed before releasing: a retry would re-enter and keep it
            }
            if (tookOff) {
                throw e;
            }
        }
        return tookOff;
    }

    // ------------------------------------------------------------------ waking

    /**
     * Called by whoever just published a job (after the publication, see the class comment).
     * While nobody is sleepy, and nobody sleeps or somebody searches, this is one volatile read.
     */
    public void notifyNewJob() {
        long c = lvCtl();
        if ((c & JEC_SLEEPY) != 0 || wantsWaker(c)) {
            notifySlow(c);
        }
    }

    /**
     * For a fork onto a deque that holds work, which is no post (class comment, "Forks onto a
     * deque that holds work"): {@link #notifyNewJob()} when a plain read of {@code ctl} says it
     * would act. Plain is enough because nothing relies on this notice, and the notice reads
     * {@code ctl} again, volatile, before it acts: a stale or torn (JLS 17.7) value can only
     * skip a notice that would have acted, or cost one more volatile read, never make a
     * wake-up the notice would not. A volatile read would keep the compiler from moving the
     * fork's other accesses across it, on every fork.
     */
    void hintNewJob() {
        long c = lpCtl();
        if ((c & JEC_SLEEPY) != 0 || wantsWaker(c)) {
            notifyNewJob();
        }
    }

    /**
     * The rest of {@link #notifyNewJob()} for a poster that read {@code c}. Package-private for
     * SleepTest, which replays a post whose read came before another thread's hand-off.
     */
    void notifySlow(long c) {
        while ((c & JEC_SLEEPY) != 0) {
            if (casCtl(c, c + JEC_ONE)) {
                c += JEC_ONE;
                break;
            }
            c = lvCtl();
        }
        if (wantsWaker(c)) {
            wakeOne();
        }
    }

    /** Pops the most recent sleeper and wakes it as a searcher, if nobody searches meanwhile. */
    private void wakeOne() {
        StackHeadroom.ensure(); // an overflow costs this wake-up only, before anything is done
        long now = System.nanoTime();
        Thread t;
        acquire();
        try {
            // Checked again under the lock: posters racing here wake one worker, not one each.
            // One that finds a searcher now is covered by that searcher (proof, third case);
            // with sleepers counted and stacked together under the lock, a sleeper here means
            // the searcher is why no wake-up is wanted. That searcher may have been woken with
            // a job in hand, and look at the queues only if the JEC moved since: move it, by
            // two so that its parity (sleepy or not) stays, and only while it still searches.
            for (;;) {
                if (sleeperCount == 0) {
                    return;
                }
                long c = lvCtl();
                if (wantsWaker(c)) {
                    break;
                }
                if (casCtl(c, c + 2 * JEC_ONE)) {
                    return;
                }
            }
            // Before the flag is cleared: the wakee's stopSearching must find itself counted.
            addCtl(ONE_SEARCHING - ONE_SLEEPING);
            int index = sleepers[--sleeperCount];
            sleepersChanged();
            t = release(records[index], WOKEN_TO_SEARCH, now);
        } finally {
            release();
        }
        LockSupport.unpark(t);
    }

    /**
     * Called after {@link #notifyNewJob()} by a worker whose fork landed on its empty deque, or
     * whose steal left tasks behind: wakes one more sleeper to search even while others search,
     * so that a computation's wake-ups spread in generations (see "Spreading a computation").
     * Bounded: only while fewer than half the workers search, and fewer are awake than cores.
     * While nobody sleeps, one volatile read.
     */
    public void spread() {
        long c = lvCtl();
        int asleep = sleeping(c);
        if (asleep != 0 && 2 * searching(c) < workers && workers - asleep < cores) {
            try {
                wakeAnother();
            } catch (Throwable lost) {
                // Best effort, never thrown: no post relies on this wake-up, and a caller
                // holding a stolen task, or an execute that already queued its task, must not
                // fail for it (an Error is one that StackHeadroom let through before the lock).
            }
        }
    }

    /**
     * Pops the most recent sleeper and wakes it as a searcher, whoever searches, unless the
     * lock is busy (another waker is at work: this wake-up is one more, never one the proof
     * needs) or half the workers search by then.
     */
    private void wakeAnother() {
        StackHeadroom.ensure(); // an overflow costs this wake-up only, before anything is done
        long now = System.nanoTime();
        Thread t;
        if (!tryAcquire()) {
            return;
        }
        try {
            long c = lvCtl();
            if (sleeperCount == 0 || 2 * searching(c) >= workers
                    || workers - sleeping(c) >= cores) { // the bounds again: spreaders race
                return;
            }
            // Before the flag is cleared: the wakee's stopSearching must find itself counted.
            addCtl(ONE_SEARCHING - ONE_SLEEPING);
            int index = sleepers[--sleeperCount];
            sleepersChanged();
            t = release(records[index], WOKEN_TO_SEARCH, now);
        } finally {
            release();
        }
        LockSupport.unpark(t);
    }

    /**
     * Called by a thread outside the pool with {@code job} to post, before it publishes it
     * anywhere: if as many workers sleep as the parallelism (spares count), nobody searches, and the most recent sleeper is an idle
     * worker (not one asleep inside a join) parked for {@link #HAND_OFF_AFTER_NANOS} or more,
     * wakes it with the job in hand, counted as searching (see "Handing a job to the worker
     * woken for it"), and returns true; the job is then that worker's. Otherwise returns false
     * and the caller posts the job as usual. While any worker is awake this is one volatile read
     * of a line written only when the pool goes idle or wakes.
     */
    public boolean tryHandOff(Runnable job) {
        if (!allAsleep.value) {
            return false;
        }
        StackHeadroom.ensure(); // an overflow here hands nothing off: the caller posts the job
        long now = System.nanoTime();
        Thread t;
        acquire();
        try {
            if (!topTakesHandOff(now)) {
                return false;
            }
            long c;
            long next;
            do {
                c = lvCtl();
                if (!wantsWaker(c)) {
                    return false;
                }
                // Before the release: the wakee's stop must find itself counted. The JEC made
                // sleepy, so that the next post moves it (see the proof).
                next = c + ONE_SEARCHING - ONE_SLEEPING;
                if ((next & JEC_SLEEPY) == 0) {
                    next += JEC_ONE;
                }
            } while (!casCtl(c, next));
            int index = sleepers[--sleeperCount];
            sleepersChanged();
            Record r = records[index];
            r.handOff = job; // published by the release's volatile write of r.parked
            r.handOffJec = next >>> JEC_SHIFT;
            r.handOffs++;
            t = release(r, HANDED_OFF, now);
        } finally {
            release();
        }
        LockSupport.unpark(t);
        return true;
    }

    /**
     * Under the lock: whether the most recent sleeper may be handed a job: an idle worker (one
     * asleep in a join is woken as usual, to look at its latch first), parked long enough.
     */
    private boolean topTakesHandOff(long now) {
        if (sleeperCount == 0 || sleeperCount < workers) {
            return false; // the pool is not idle: allAsleep was read before a wake-up
        }
        Record top = records[sleepers[sleeperCount - 1]];
        return top.takesHandOff && now - top.parkStart >= handOffAfterNanos;
    }

    /**
     * Whether as many workers slept as the parallelism at this read (volatile): the cheap look
     * that {@link #tryHandOff} starts with, for a caller that must prepare before it tries.
     */
    public boolean allAsleep() {
        return allAsleep.value;
    }

    /** Whether {@link #tryHandOff} would hand a job off now. For tests, which wait for it. */
    boolean handOffReady() {
        long now = System.nanoTime();
        acquire();
        try {
            return topTakesHandOff(now) && wantsWaker(lvCtl());
        } finally {
            release();
        }
    }

    /** Under the lock, after the stack changed: keeps {@link #allAsleep} current. */
    private void sleepersChanged() {
        boolean all = sleeperCount >= workers;
        if (allAsleep.value != all) {
            allAsleep.value = all;
        }
    }

    /**
     * As {@link #stopSearching()}, for worker {@code index} woken with a job in hand: true if it
     * must look at every queue and call {@link #wakeSearcher()} if it sees work, that is, if it
     * was the last searcher while somebody sleeps and the JEC moved since its hand-off (else no
     * post counted on it: see the proof).
     */
    public boolean stopSearchingAfterHandOff(int index) {
        long c = addCtl(-ONE_SEARCHING) - ONE_SEARCHING;
        assert searching(c + ONE_SEARCHING) != 0 : "searcher count underflow: " + describe(c);
        return wantsWaker(c) && (c >>> JEC_SHIFT) != records[index].handOffJec;
    }

    /**
     * Worker {@code index}'s thread, after its sleep returned {@link #HANDED_OFF}: the job
     * handed to it, which it must run. Read after the sleep saw its record released (a volatile
     * read), which makes the waker's store visible.
     */
    public Runnable takeHandOff(int index) {
        Record r = records[index];
        Runnable job = r.handOff;
        r.handOff = null; // no reference kept to a job that ran
        return job;
    }

    /** Wakes worker {@code index} if it sleeps (its latch was set); not as a searcher. */
    public void wakeWorker(int index) {
        StackHeadroom.ensure(); // an overflow costs this wake-up only, before anything is done
        long now = System.nanoTime();
        Thread t;
        acquire();
        try {
            Record r = records[index];
            if (!r.parked) {
                return;
            }
            addCtl(-ONE_SLEEPING);
            removeSleeper(index);
            t = release(r, WOKEN, now);
        } finally {
            release();
        }
        LockSupport.unpark(t);
    }

    /** Wakes every sleeping worker (shutdown). */
    public void wakeAll() {
        StackHeadroom.ensure(); // an overflow costs these wake-ups only, before anything is done
        long now = System.nanoTime();
        Thread[] woken = new Thread[records.length]; // allocated before the lock: no OOM inside
        acquire();
        try {
            for (int k = 0; sleeperCount > 0; k++) {
                addCtl(-ONE_SLEEPING);
                int index = sleepers[--sleeperCount];
                woken[k] = release(records[index], WOKEN, now);
            }
            sleepersChanged();
        } finally {
            release();
        }
        for (Thread t : woken) {
            if (t == null) {
                break;
            }
            LockSupport.unpark(t);
        }
    }

    /**
     * Under the lock: ends {@code r}'s sleep and returns its thread, for unparking; {@code now}
     * was read before the lock. Plain stores and the flag's write: nothing here can fail.
     */
    private static Thread release(Record r, int how, long now) {
        r.wokenAs = how;
        r.wakeups++;
        long parked = now - r.parkStart;
        if (parked > 0L) {
            r.parkedNanos += parked;
        }
        r.parked = false;
        return r.thread;
    }

    /**
     * Under the lock: removes {@code index} from the stack, keeping the others' order. Plain
     * stores only (no arraycopy, a call): nothing here can fail.
     */
    private void removeSleeper(int index) {
        int k = sleeperCount - 1;
        while (sleepers[k] != index) {
            k--; // present: its record is parked, and parked records are on the stack
        }
        for (; k < sleeperCount - 1; k++) {
            sleepers[k] = sleepers[k + 1];
        }
        sleeperCount--;
        sleepersChanged();
    }

    /**
     * For tests: null if the state is consistent, else what is wrong. Consistent: the lock is
     * free, the sleeping count equals the stack's size, each record is parked exactly while its
     * index is on the stack (once), and {@link #allAsleep} agrees with the stack.
     */
    String inconsistency() {
        try {
            // A hang detector, not a timing: in a live pool other threads take the lock briefly.
            if (!lock.tryLock(30, java.util.concurrent.TimeUnit.SECONDS)) {
                return "lock held";
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
        try {
            if (lock.getHoldCount() != 1) {
                return "lock held by the caller";
            }
            if (sleeping(lvCtl()) != sleeperCount) {
                return "sleeping count " + sleeping(lvCtl()) + " but " + sleeperCount + " stacked";
            }
            if (sleeperCount < 0 || sleeperCount > sleepers.length) {
                return "stack size " + sleeperCount + " out of 0.." + sleepers.length;
            }
            int[] onStack = new int[records.length];
            for (int k = 0; k < sleeperCount; k++) {
                if (sleepers[k] < 0 || sleepers[k] >= records.length) {
                    return "stack entry " + k + " is " + sleepers[k] + ", not a worker index";
                }
                onStack[sleepers[k]]++;
            }
            for (int i = 0; i < records.length; i++) {
                if (onStack[i] > 1 || records[i].parked != (onStack[i] == 1)) {
                    return "record " + i + (records[i].parked ? " parked" : " not parked")
                            + ", on the stack " + onStack[i] + " times";
                }
            }
            if (allAsleep.value != (sleeperCount >= workers)) {
                return "allAsleep " + allAsleep.value + " with " + sleeperCount + " stacked";
            }
            return null;
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------------ statistics

    /**
     * Adds up the idle statistics of every worker: {@code [parks, wake-ups, parked nanoseconds,
     * jobs handed off]}, the third including parks still under way. Takes the lock, briefly.
     * A job's hand-off is counted under the lock before its worker is released, so a reading
     * that follows the job's completion counts it.
     */
    public long[] idleTotals() {
        long parks = 0;
        long wakeups = 0;
        long nanos = 0;
        long handOffs = 0;
        long now = System.nanoTime();
        acquire();
        try {
            for (Record r : records) {
                parks += r.parks;
                wakeups += r.wakeups;
                handOffs += r.handOffs;
                nanos += r.parkedNanos;
                if (r.parked) {
                    nanos += Math.max(0L, now - r.parkStart);
                }
            }
        } finally {
            release();
        }
        return new long[] {parks, wakeups, nanos, handOffs};
    }

    /**
     * The state word read under the lock: no worker is then between counting itself asleep and
     * backing out, and no waker between uncounting a sleeper and popping it. For
     * {@code Quiescence.isQuiescent}, off the hot paths.
     */
    long readUnderLock() {
        acquire();
        try {
            return lvCtl();
        } finally {
            release();
        }
    }

    /** The sleepers counted in state word {@code c}. */
    static int sleepingIn(long c) {
        return sleeping(c);
    }

    /** Number of workers counted as sleeping right now. */
    public int sleepingWorkers() {
        return sleeping(lvCtl());
    }

    /** Number of workers counted as searching right now. */
    public int searchingWorkers() {
        return searching(lvCtl());
    }

    @Override
    public String toString() {
        return describe(lvCtl());
    }

    static String describe(long c) {
        long jec = c >>> JEC_SHIFT;
        return "Sleep[jec=" + jec + ((jec & 1) != 0 ? " (sleepy)" : "")
                + ", searching=" + searching(c) + ", sleeping=" + sleeping(c) + "]";
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

/** Padding before {@link AllAsleep}'s flag. */
abstract class AllAsleepPad0 {
    long p00, p01, p02, p03, p04, p05, p06, p07;
    long p08, p09, p0a, p0b, p0c, p0d, p0e, p0f;
}

/** The flag. */
abstract class AllAsleepField extends AllAsleepPad0 {
    volatile boolean value;
}

/**
 * Whether as many workers sleep as the parallelism (Sleep's {@code allAsleep}), on cache lines of its own: it
 * changes only when the pool goes idle or wakes, and submitters read it on every submission.
 */
final class AllAsleep extends AllAsleepField {
    long p10, p11, p12, p13, p14, p15, p16, p17;
    long p18, p19, p1a, p1b, p1c, p1d, p1e, p1f;
}
