package io.github.stealpool.metrics;

import io.github.stealpool.PoolStats;
import io.github.stealpool.TaskTimingListener;
import io.github.stealpool.WorkStealingPool;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.noop.NoopTimer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * Publishes a {@link WorkStealingPool}'s statistics as Micrometer meters, in the style of
 * Micrometer's own {@code ExecutorServiceMetrics}: every meter is tagged {@code name} (plus any
 * extra tags), has a description, and uses Micrometer's name and base unit where Micrometer
 * already has the meter, so a dashboard made for a {@code ForkJoinPool} or
 * {@code ThreadPoolExecutor} works unchanged.
 *
 * <pre>{@code
 * WorkStealingPool pool = WorkStealingPool.create();
 * WorkStealingPoolMetrics.monitor(registry, pool, "requests");
 * }</pre>
 *
 * <table>
 *   <caption>Meters (Prometheus names in brackets)</caption>
 *   <tr><td>{@code executor.completed}</td><td>counter, tasks</td>
 *       <td>tasks finished, normally or exceptionally ({@code executor_completed_tasks_total})</td></tr>
 *   <tr><td>{@code executor.failed}</td><td>counter, tasks</td>
 *       <td>tasks that threw ({@code executor_failed_tasks_total})</td></tr>
 *   <tr><td>{@code executor.rejected}</td><td>counter, tasks</td>
 *       <td>submissions refused ({@code executor_rejected_tasks_total})</td></tr>
 *   <tr><td>{@code executor.submitted}</td><td>counter, tasks, tag {@code source=external|worker}</td>
 *       <td>where work entered ({@code executor_submitted_tasks_total})</td></tr>
 *   <tr><td>{@code executor.queued}</td><td>gauge</td>
 *       <td>injection queue plus deques, approximate ({@code executor_queued})</td></tr>
 *   <tr><td>{@code executor.active}</td><td>gauge</td>
 *       <td>workers with a task in hand ({@code executor_active})</td></tr>
 *   <tr><td>{@code executor.running}</td><td>gauge</td>
 *       <td>workers running tasks: not looking for work, not parked in a join
 *       ({@code executor_running})</td></tr>
 *   <tr><td>{@code executor.parked}</td><td>gauge, threads</td>
 *       <td>workers parked ({@code executor_parked_threads})</td></tr>
 *   <tr><td>{@code executor.pool.size}</td><td>gauge, threads</td>
 *       <td>worker threads alive ({@code executor_pool_size_threads})</td></tr>
 *   <tr><td>{@code executor.parallelism}</td><td>gauge, threads</td>
 *       <td>configured workers ({@code executor_parallelism_threads})</td></tr>
 *   <tr><td>{@code executor.steals}</td><td>counter</td>
 *       <td>tasks taken from another worker's deque ({@code executor_steals_total})</td></tr>
 *   <tr><td>{@code executor.steal.attempts}</td><td>counter</td>
 *       <td>looks into another worker's deque ({@code executor_steal_attempts_total})</td></tr>
 *   <tr><td>{@code executor.parks}</td><td>counter</td>
 *       <td>times a worker parked ({@code executor_parks_total})</td></tr>
 *   <tr><td>{@code executor.wakeups}</td><td>counter</td>
 *       <td>parked workers woken ({@code executor_wakeups_total})</td></tr>
 *   <tr><td>{@code executor.worker.idle}</td><td>counter, seconds</td>
 *       <td>time workers spent parked ({@code executor_worker_idle_seconds_total})</td></tr>
 *   <tr><td>{@code executor.queue.remaining}</td><td>gauge, tasks; bounded pools only</td>
 *       <td>outside submissions that can still be queued before the
 *       {@linkplain io.github.stealpool.SaturationPolicy saturation policy} applies
 *       ({@code executor_queue_remaining_tasks})</td></tr>
 *   <tr><td>{@code executor.caller.runs}</td><td>counter, tasks; bounded pools only</td>
 *       <td>outside submissions run by their submitter at the bound
 *       ({@code executor_caller_runs_tasks_total})</td></tr>
 *   <tr><td>{@code executor.submit.blocked}</td><td>counter, tasks; bounded pools only</td>
 *       <td>outside submissions that waited for room at the bound
 *       ({@code executor_submit_blocked_tasks_total})</td></tr>
 * </table>
 *
 * <p>The meters read one {@link WorkStealingPool#stats()} snapshot, shared by every meter read
 * within {@link #SNAPSHOT_REUSE_NANOS} of it: one scrape takes one snapshot, and its figures come
 * from one moment (completed never ahead of submitted because they were read apart). A snapshot
 * sums a few counters per worker, so scraping costs the pool nothing on its hot paths. When the pool
 * terminates, the meters are removed from every registry this binder was bound to (as they would
 * otherwise report a dead pool forever).
 *
 * <p>A name is one pool's at a time: binding a pool under a name and tags another pool's meters
 * already use replaces those meters with the new pool's (a restarted or reconfigured pool keeps
 * its series), and the old pool, when it terminates, removes only meters that are still its own.
 * The meter replaced is the one registering would hand back, found through the registry's
 * filters (common tags) as Micrometer's {@code removeByPreFilterId} finds it. A pool already
 * terminated at the call gets no meters, and its timed executor times nothing: they would go at
 * once, after replacing a live pool's under that name.
 */
public final class WorkStealingPoolMetrics implements MeterBinder {

    /** Tag key naming the pool, as Micrometer's executor meters use it. */
    public static final String NAME_TAG = "name";

    /**
     * How long a snapshot serves further meter reads: a scrape reads all meters within
     * microseconds, and scrapes come seconds apart.
     */
    static final long SNAPSHOT_REUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private final WorkStealingPool pool;
    private final Tags tags;
    private PoolStats snapshot; // guarded by this
    private long snapshotTakenAt; // guarded by this

    /**
     * A binder for {@code pool}'s meters; nothing is registered until {@link #bindTo} is called,
     * which may be done for several registries.
     *
     * @param pool the pool to publish
     * @param name its name, the value of the {@code name} tag
     * @param tags extra tags on every meter
     * @throws NullPointerException if an argument is null
     */
    public WorkStealingPoolMetrics(WorkStealingPool pool, String name, Iterable<Tag> tags) {
        this.pool = Objects.requireNonNull(pool, "pool");
        Objects.requireNonNull(name, "name");
        this.tags = Tags.concat(Objects.requireNonNull(tags, "tags"), NAME_TAG, name);
    }

    /**
     * Binds the pool's meters to {@code registry} and returns the pool, as Micrometer's
     * {@code ExecutorServiceMetrics.monitor} does.
     *
     * @param registry where the meters are registered
     * @param pool     the pool to publish; its meters are removed from {@code registry} when it
     *                 terminates
     * @param name     the pool's name, the value of the {@code name} tag
     * @param tags     extra tags as key-value pairs, e.g. {@code "region", "eu"}
     * @return {@code pool}, so that a pool can be created and monitored in one expression
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException if {@code tags} has an odd number of strings
     */
    public static WorkStealingPool monitor(MeterRegistry registry, WorkStealingPool pool, String name,
                                           String... tags) {
        return monitor(registry, pool, name, Tags.of(Objects.requireNonNull(tags, "tags")));
    }

    /**
     * As {@link #monitor(MeterRegistry, WorkStealingPool, String, String...)}, with Tag objects.
     *
     * @param registry where the meters are registered
     * @param pool     the pool to publish; its meters are removed from {@code registry} when it
     *                 terminates
     * @param name     the pool's name, the value of the {@code name} tag
     * @param tags     extra tags on every meter
     * @return {@code pool}, so that a pool can be created and monitored in one expression
     * @throws NullPointerException if an argument is null
     */
    public static WorkStealingPool monitor(MeterRegistry registry, WorkStealingPool pool, String name,
                                           Iterable<Tag> tags) {
        Objects.requireNonNull(registry, "registry");
        new WorkStealingPoolMetrics(pool, name, tags).bindTo(registry);
        return pool;
    }

    /**
     * How many tasks {@link #timed(MeterRegistry, WorkStealingPool, String, String...)} times:
     * one in this many. A compromise: a pool running a hundred tasks a second still gives its
     * timers a few hundred samples a minute, and a timed sample (about 100 ns: three clock
     * reads, an object, two timer records) is spread over 16 tasks. docs/lab/timing-cost.md
     * has what it costs.
     */
    public static final int DEFAULT_SAMPLE_EVERY = 16;

    /**
     * Task timings, as Micrometer's {@code ExecutorServiceMetrics.monitor} gives them by wrapping
     * an executor: returns an {@code ExecutorService} that hands every call to {@code pool} and
     * times a sample of the tasks given to it (one in {@link #DEFAULT_SAMPLE_EVERY}) with two
     * timers, {@code executor} (run time) and {@code executor.idle} (time from submission to
     * start). Only tasks submitted through the returned executor are timed; submit the tasks to
     * time there, and use the pool itself for the rest (fork/join and range loops are never
     * timed). The pool's other meters come from {@link #monitor}. The timers are removed when the
     * pool terminates.
     *
     * @param registry where the timers are registered
     * @param pool     the pool that runs the tasks
     * @param name     the pool's name, the value of the {@code name} tag
     * @param tags     extra tags as key-value pairs
     * @return an executor whose tasks run in {@code pool}; shutting it down shuts the pool down.
     *         For a pool already terminated at the call, one that rejects every task and
     *         registers no timers
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException if {@code tags} has an odd number of strings
     */
    public static ExecutorService timed(MeterRegistry registry, WorkStealingPool pool, String name,
                                        String... tags) {
        return timed(registry, pool, name, DEFAULT_SAMPLE_EVERY, Tags.of(Objects.requireNonNull(tags, "tags")));
    }

    /**
     * As {@link #timed(MeterRegistry, WorkStealingPool, String, String...)}, timing one task in
     * {@code sampleEvery}. With 1 every task is timed, and the timers' counts are task counts;
     * otherwise a timer's count is the number of tasks sampled (about one in {@code sampleEvery}),
     * while its mean, maximum and percentiles estimate those of all tasks. Count tasks with
     * {@code executor.completed}.
     *
     * @param registry    where the timers are registered
     * @param pool        the pool that runs the tasks
     * @param name        the pool's name, the value of the {@code name} tag
     * @param sampleEvery time one task in this many, chosen at random per task; 1 times all
     * @param tags        extra tags on both timers
     * @return an executor whose tasks run in {@code pool}; shutting it down shuts the pool down.
     *         For a pool already terminated at the call, one that rejects every task and
     *         registers no timers
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException if {@code sampleEvery} is less than 1
     */
    public static ExecutorService timed(MeterRegistry registry, WorkStealingPool pool, String name,
                                        int sampleEvery, Iterable<Tag> tags) {
        Objects.requireNonNull(registry, "registry");
        if (sampleEvery < 1) {
            throw new IllegalArgumentException("sampleEvery must be at least 1, was " + sampleEvery);
        }
        WorkStealingPoolMetrics binder = new WorkStealingPoolMetrics(pool, name, tags);
        synchronized (registry) {
            return binder.bindTimers(registry, sampleEvery);
        }
    }

    private ExecutorService bindTimers(MeterRegistry registry, int sampleEvery) {
        if (pool.isTerminated()) {
            // Its timers would be removed at once, after replacing a live pool's of that name.
            return new TimedPoolExecutor(pool, new NoopTimer(timerId("executor")),
                    new NoopTimer(timerId("executor.idle")), sampleEvery);
        }
        Timer[] timers = registerTimers(registry);
        pool.terminationFuture().thenRun(() -> unbind(registry, List.of(timers)));
        return new TimedPoolExecutor(pool, timers[0], timers[1], sampleEvery);
    }

    /** The {@code executor} and {@code executor.idle} timers, both or neither. */
    private Timer[] registerTimers(MeterRegistry registry) {
        Timer execution = timer(registry, "executor");
        try {
            return new Timer[] {execution, timer(registry, "executor.idle")};
        } catch (RuntimeException | Error e) {
            unbind(registry, List.of(execution)); // a registry refused it: leave none of ours behind
            throw e;
        }
    }

    /**
     * Task timings measured inside the pool ({@link WorkStealingPool#addTaskTimingListener}):
     * Micrometer's two executor timers, {@code executor} (run time) and {@code executor.idle}
     * (time from submission to start), for a sample of every task submitted to the pool with
     * {@code execute}, {@code submit}, {@code invokeAll} or {@code invokeAny}, from outside or
     * from its workers (fork/join pieces and range loops are never timed). The sample is spread
     * over time: about one task per 50 microseconds per submitting thread, every task when they
     * come slower ({@link TaskTimingListener}). A timer's count is the number of tasks timed;
     * count tasks with {@code executor.completed}. It costs under 1% on tasks of a microsecond
     * and on fork/join work; on tasks of a few tens of nanoseconds docs/lab/timing-cost.md
     * has the figures, well below {@link #timed}'s. The pool's other meters come from
     * {@link #monitor}. The timers
     * are removed, and the pool stops timing for them, when it terminates. Calling this again
     * for the same pool, registry and name changes nothing. Timing through both this and a
     * {@link #timed} executor of the same pool records tasks submitted there twice: use one.
     *
     * <pre>{@code
     * WorkStealingPool pool = WorkStealingPoolMetrics.timeTasks(registry,
     *         WorkStealingPoolMetrics.monitor(registry, WorkStealingPool.create(), "orders"), "orders");
     * }</pre>
     *
     * @param registry where the timers are registered
     * @param pool     the pool to time; a pool already terminated gets no timers
     * @param name     the pool's name, the value of the {@code name} tag
     * @param tags     extra tags as key-value pairs
     * @return {@code pool}
     * @throws NullPointerException     if an argument is null
     * @throws IllegalArgumentException if {@code tags} has an odd number of strings
     */
    public static WorkStealingPool timeTasks(MeterRegistry registry, WorkStealingPool pool, String name,
                                             String... tags) {
        return timeTasks(registry, pool, name, Tags.of(Objects.requireNonNull(tags, "tags")));
    }

    /**
     * As {@link #timeTasks(MeterRegistry, WorkStealingPool, String, String...)}, with Tag objects.
     *
     * @param registry where the timers are registered
     * @param pool     the pool to time; a pool already terminated gets no timers
     * @param name     the pool's name, the value of the {@code name} tag
     * @param tags     extra tags on both timers
     * @return {@code pool}
     * @throws NullPointerException if an argument is null
     */
    public static WorkStealingPool timeTasks(MeterRegistry registry, WorkStealingPool pool, String name,
                                             Iterable<Tag> tags) {
        Objects.requireNonNull(registry, "registry");
        WorkStealingPoolMetrics binder = new WorkStealingPoolMetrics(pool, name, tags);
        synchronized (registry) {
            binder.bindTaskTimers(registry);
        }
        return pool;
    }

    private void bindTaskTimers(MeterRegistry registry) {
        if (pool.isTerminated()) {
            return; // its timers would be removed at once, after replacing a live pool's of that name
        }
        Timer[] timers = registerTimers(registry);
        Timer execution = timers[0];
        Timer idle = timers[1];
        if (!FED_BY_THE_POOL.add(execution)) {
            return; // timed already, by an earlier call for this pool, registry and name
        }
        TaskTimingListener listener = (queuedNanos, runNanos) -> {
            idle.record(queuedNanos, TimeUnit.NANOSECONDS);
            execution.record(runNanos, TimeUnit.NANOSECONDS);
        };
        pool.addTaskTimingListener(listener);
        pool.terminationFuture().thenRun(() -> {
            pool.removeTaskTimingListener(listener);
            FED_BY_THE_POOL.remove(execution);
            unbind(registry, List.of(timers));
        });
    }

    /**
     * The {@code executor} timers a pool's own listener records into ({@link #timeTasks}), by
     * identity: a second call for the same pool, registry and name gets the same timers back
     * ({@link #timer}) and must not add a second listener, which would record every task twice.
     * An entry leaves when its pool terminates.
     */
    private static final Set<Timer> FED_BY_THE_POOL = Collections.synchronizedSet(
            Collections.newSetFromMap(new IdentityHashMap<>()));

    /**
     * The timers registered for each pool's timed executors, by registry and the id asked for
     * (before the registry's filters add common tags): a second {@code timed} executor of the
     * same pool and name shares them while they are registered, another pool's replaces them.
     * Keyed weakly by the pool (which compares by identity); a timer holds no reference to its
     * pool.
     */
    private static final Map<WorkStealingPool, Map<List<Object>, Timer>> TIMERS_OF_POOL =
            Collections.synchronizedMap(new WeakHashMap<>());

    private Meter.Id timerId(String meter) {
        return new Meter.Id(meter, tags, null, null, Meter.Type.TIMER);
    }

    private Timer timer(MeterRegistry registry, String meter) {
        Map<List<Object>, Timer> mine = TIMERS_OF_POOL.computeIfAbsent(pool, p -> new ConcurrentHashMap<>());
        Meter.Id asked = timerId(meter);
        List<Object> key = List.of(registry, asked); // a registry is equal only to itself
        Timer shared = mine.get(key);
        if (shared != null && registered(registry, shared.getId()) == shared) {
            return shared;
        }
        registry.removeByPreFilterId(asked); // another pool's, under this name: see removeOther
        // No description, as Micrometer's TimedExecutorService registers them: Prometheus keeps
        // one help text per family, and a ForkJoinPool's timers share these families.
        Timer timer = Timer.builder(meter).tags(tags).register(registry);
        mine.put(key, timer);
        return timer;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        synchronized (registry) { // against another binder replacing or unbinding the same ids
            bindMeters(registry);
        }
    }

    private void bindMeters(MeterRegistry registry) {
        if (pool.isTerminated()) {
            // Its meters would be removed at once, after replacing a live pool's of that name.
            return;
        }
        List<Meter> meters = new ArrayList<>();
        try {
            registerMeters(registry, meters);
        } catch (RuntimeException | Error e) {
            unbind(registry, meters); // a registry refused one: leave none of ours behind
            throw e;
        }
        // Meters of a dead pool would report its last values forever: drop them. Registries
        // hold meter sources weakly; this action, held by the pool until it terminates, is what
        // keeps this binder (the source) alive as long as the pool.
        pool.terminationFuture().thenRun(() -> unbind(registry, meters));
    }

    private void registerMeters(MeterRegistry registry, List<Meter> meters) {
        // Names, units and descriptions as Micrometer's ExecutorServiceMetrics gives them where
        // the meaning is the same (completed as for a ThreadPoolExecutor, the others as for a
        // ForkJoinPool, which this pool replaces): one metric family, one help text, whichever
        // executor a dashboard looks at.
        meters.add(counter(registry, "executor.completed", BaseUnits.TASKS,
                "The approximate total number of tasks that have completed execution",
                PoolStats::completedTasks, Tags.empty()));
        // One description for both: Prometheus keeps one help text per metric family.
        String submitted = "Tasks submitted to the pool: source=external from threads outside it,"
                + " source=worker from its own tasks (forks, joins, loops included)";
        meters.add(counter(registry, "executor.submitted", BaseUnits.TASKS, submitted,
                PoolStats::externalSubmissions, Tags.of("source", "external")));
        meters.add(counter(registry, "executor.submitted", BaseUnits.TASKS, submitted,
                PoolStats::workerSubmissions, Tags.of("source", "worker")));
        meters.add(counter(registry, "executor.failed", BaseUnits.TASKS,
                "Tasks that threw: execute and submit tasks and Tasks whose compute threw,"
                        + " wherever the failure went (future, joiner or handler)",
                PoolStats::failedTasks, Tags.empty()));
        meters.add(counter(registry, "executor.rejected", BaseUnits.TASKS,
                "Submissions refused with RejectedExecutionException",
                PoolStats::rejectedSubmissions, Tags.empty()));
        meters.add(counter(registry, "executor.steals", null,
                "Estimate of the total number of tasks stolen from one thread's work queue by another."
                        + " The reported value underestimates the actual total number of steals when the"
                        + " pool is not quiescent",
                PoolStats::steals, Tags.empty()));
        meters.add(counter(registry, "executor.steal.attempts", null,
                "Looks into another worker's deque, successful or not",
                PoolStats::stealAttempts, Tags.empty()));
        meters.add(counter(registry, "executor.parks", null,
                "Times a worker parked because it found nothing to do",
                PoolStats::parks, Tags.empty()));
        meters.add(counter(registry, "executor.wakeups", null,
                "Parked workers woken, by a new task, a finished join or shutdown",
                PoolStats::wakeups, Tags.empty()));
        meters.add(counter(registry, "executor.compensations", BaseUnits.THREADS,
                "Spare threads started to stand in for workers blocked in WorkStealingPool.blocking",
                PoolStats::compensations, Tags.empty()));
        removeOther(registry, "executor.worker.idle", Tags.empty(), Meter.Type.COUNTER);
        meters.add(FunctionCounter.builder("executor.worker.idle", this,
                        m -> m.stats().parkedNanos() / 1e9)
                .tags(tags)
                .description("Time workers spent parked, including parks still under way")
                .baseUnit("seconds") // Micrometer has no BaseUnits constant for it
                .register(registry));

        meters.add(gauge(registry, "executor.queued", null,
                "The approximate number of tasks that are queued for execution",
                PoolStats::queuedTasks));
        // Micrometer's ThreadPoolExecutor help text: workers with a task in hand, not those
        // looking for one (which its ForkJoinPool meter counts too).
        meters.add(gauge(registry, "executor.active", null,
                "The approximate number of threads that are actively executing tasks",
                PoolStats::activeWorkers));
        // Micrometer's ForkJoinPool meter and help text: workers not parked in a join. Ours
        // also leaves out workers looking for work, which ForkJoinPool's estimate counts.
        meters.add(gauge(registry, "executor.running", null,
                "An estimate of the number of worker threads that are not blocked waiting to join"
                        + " tasks or for other managed synchronization threads",
                PoolStats::runningWorkers));
        meters.add(gauge(registry, "executor.parked", BaseUnits.THREADS,
                "The number of workers parked because they found nothing to do",
                PoolStats::parkedWorkers));
        meters.add(gauge(registry, "executor.blocked", BaseUnits.THREADS,
                "Threads inside WorkStealingPool.blocking calls, for which spare threads stand in",
                PoolStats::blockedWorkers));
        meters.add(gauge(registry, "executor.pool.size", BaseUnits.THREADS,
                "The current number of threads in the pool",
                PoolStats::poolSize));
        meters.add(gauge(registry, "executor.parallelism", BaseUnits.THREADS,
                "The targeted parallelism level of this pool",
                PoolStats::parallelism));
        if (stats().queueRemaining() != Long.MAX_VALUE) { // bounded (maxQueuedSubmissions)
            // Micrometer's ThreadPoolExecutor meter, name, unit and help text.
            meters.add(gauge(registry, "executor.queue.remaining", BaseUnits.TASKS,
                    "The number of additional elements that this queue can ideally accept without blocking",
                    PoolStats::queueRemaining));
            meters.add(counter(registry, "executor.caller.runs", BaseUnits.TASKS,
                    "Outside submissions that met the bound on queued submissions and were run"
                            + " by their submitting thread (SaturationPolicy.CALLER_RUNS)",
                    PoolStats::callerRunSubmissions, Tags.empty()));
            meters.add(counter(registry, "executor.submit.blocked", BaseUnits.TASKS,
                    "Outside submissions that met the bound on queued submissions and waited for"
                            + " room (SaturationPolicy.BLOCK)",
                    PoolStats::blockedSubmissions, Tags.empty()));
        }
        // Delayed tasks (issue 37): Micrometer's TimedScheduledExecutorService names for the two
        // counters (it gives them no unit and no description); the pending gauge is ours.
        meters.add(counter(registry, "executor.scheduled.once", null,
                "Calls of the one-shot schedule methods",
                PoolStats::scheduledOnce, Tags.empty()));
        meters.add(counter(registry, "executor.scheduled.repetitively", null,
                "Calls of scheduleAtFixedRate and scheduleWithFixedDelay",
                PoolStats::scheduledRepetitively, Tags.empty()));
        meters.add(gauge(registry, "executor.scheduled.pending", BaseUnits.TASKS,
                "Delayed tasks waiting for their delay, periodic ones between two runs and"
                        + " submitWithTimeout's time limits included",
                PoolStats::delayedTasksPending));
    }

    /**
     * Removes this binder's meters, but only those still registered: a pool monitored later
     * under the same name and tags has replaced them (see {@link #bindTo}) and keeps its own.
     */
    private void unbind(MeterRegistry registry, List<Meter> meters) {
        synchronized (registry) {
            for (Meter m : meters) {
                if (registered(registry, m.getId()) == m) {
                    registry.remove(m);
                }
            }
        }
    }

    /**
     * Removes the meter that registering {@code meter} with this binder's tags plus {@code extra}
     * would hand back, if there is one: another pool's of the same name (or another binder's
     * under that id). The registry would otherwise return that meter instead of registering
     * ours, so the new pool would have no series of its own, and none at all once the old one
     * terminated. Micrometer's {@code removeByPreFilterId} finds it by the id asked for, through
     * the registry's filters (common tags), as {@code register} would.
     */
    private void removeOther(MeterRegistry registry, String meter, Tags extra, Meter.Type type) {
        registry.removeByPreFilterId(new Meter.Id(meter, Tags.concat(tags, extra), null, null, type));
    }

    /** The meter registered under exactly {@code id}'s name and tags, or null. */
    private static Meter registered(MeterRegistry registry, Meter.Id id) {
        for (Meter m : registry.find(id.getName()).tags(id.getTagsAsIterable()).meters()) {
            if (m.getId().getTags().equals(id.getTags())) {
                return m;
            }
        }
        return null;
    }

    /** The pool's statistics, reused for reads close together (one scrape). */
    private synchronized PoolStats stats() {
        long now = System.nanoTime();
        if (snapshot == null || now - snapshotTakenAt > SNAPSHOT_REUSE_NANOS) {
            snapshot = pool.stats();
            snapshotTakenAt = now;
        }
        return snapshot;
    }

    private Meter counter(MeterRegistry registry, String meter, String unit, String description,
                          ToDoubleFunction<PoolStats> value, Tags extra) {
        removeOther(registry, meter, extra, Meter.Type.COUNTER);
        return FunctionCounter.builder(meter, this, m -> value.applyAsDouble(m.stats()))
                .tags(tags)
                .tags(extra)
                .description(description)
                .baseUnit(unit)
                .register(registry);
    }

    private Meter gauge(MeterRegistry registry, String meter, String unit, String description,
                        ToDoubleFunction<PoolStats> value) {
        removeOther(registry, meter, Tags.empty(), Meter.Type.GAUGE);
        return Gauge.builder(meter, this, m -> value.applyAsDouble(m.stats()))
                .tags(tags)
                .description(description)
                .baseUnit(unit)
                .register(registry);
    }
}
