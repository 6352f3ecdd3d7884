package io.github.stealpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.stealpool.internal.jfr.BlockingCallEvent;
import io.github.stealpool.internal.jfr.CallerRanEvent;
import io.github.stealpool.internal.jfr.PoolShutdownEvent;
import io.github.stealpool.internal.jfr.PoolTerminatedEvent;
import io.github.stealpool.internal.jfr.SubmissionHeldBackEvent;
import io.github.stealpool.internal.jfr.SubmissionRefusedEvent;
import io.github.stealpool.internal.jfr.TaskRunEvent;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import jdk.jfr.Configuration;
import jdk.jfr.Enabled;
import jdk.jfr.Event;
import jdk.jfr.Name;
import jdk.jfr.Recording;
import jdk.jfr.StackTrace;
import jdk.jfr.Threshold;
import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 38: the pool's JDK Flight Recorder events, read back from a recording made in this JVM
 * with the shipped {@code stealpool.jfc} ({@code jdk.jfr.consumer.RecordingFile}): a long task
 * (threshold 0, so every task run from a queue is one: no timing in the assertions), named by
 * the class the user gave (a {@code submitWithTimeout} task by its call, decorated or not), and
 * none under a threshold of an hour; a blocking
 * call that started a spare and one that reused it, a refusal at the bound (ABORT), a run by
 * the caller (CALLER_RUNS), a wait for room (BLOCK), refusals after shutdown, shutdown,
 * shutdownNow and termination, each with its fields. Events of other tests' pools are told
 * apart by the pool's name. Also: nothing of a pool is recorded while its events are disabled,
 * and the settings file parses, enables every event, and holds the same defaults as the event
 * classes (but TaskRun's, which is off unless a recording enables it). Awaitility only detects
 * hangs.
 */
class FlightRecorderTest {

    private static final Duration HANG = Duration.ofSeconds(30);
    private static final int BOUND = 2;

    /** Every stealpool event class: the settings file must name each one. */
    private static final List<Class<? extends Event>> EVENTS = List.of(TaskRunEvent.class,
            BlockingCallEvent.class, SubmissionRefusedEvent.class, CallerRanEvent.class,
            SubmissionHeldBackEvent.class, PoolShutdownEvent.class, PoolTerminatedEvent.class);

    /** A task with a class of its own, so that the events can be told to name it. */
    static final class Named implements Callable<String> {
        @Override
        public String call() {
            return "named";
        }
    }

    /** A time-limited task's call with a class of its own. */
    static final class NamedTimed implements Callable<String> {
        @Override
        public String call() {
            return "timed";
        }
    }

    /** A runnable with a class of its own. */
    static final class NamedRunnable implements Runnable {
        final CountDownLatch ran = new CountDownLatch(1);

        @Override
        public void run() {
            ran.countDown();
        }
    }

    static Configuration settings() throws IOException, java.text.ParseException {
        try (InputStream in = FlightRecorderTest.class.getClassLoader().getResourceAsStream("META-INF/stealpool.jfc")) {
            assertNotNull(in, "META-INF/stealpool.jfc is not on the class path");
            try (Reader r = new InputStreamReader(in, StandardCharsets.UTF_8)) {
                return Configuration.create(r);
            }
        }
    }

    @Test
    void aRecordingReadsBackEveryEventWithItsFields(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("stealpool.jfr");
        NamedRunnable callerRan = new NamedRunnable();
        try (Recording recording = new Recording(settings())) {
            recording.enable("stealpool.TaskRun").withThreshold(Duration.ZERO);
            recording.start();

            try (WorkStealingPool pool = builder("jfr-tasks", 2).build()) {
                assertEquals("named", pool.submit(new Named()).get(HANG.toSeconds(), TimeUnit.SECONDS));
                NamedRunnable r = new NamedRunnable();
                pool.execute(r);
                assertTrue(r.ran.await(HANG.toSeconds(), TimeUnit.SECONDS));
                assertEquals("timed", pool.submitWithTimeout(new NamedTimed(), 1, TimeUnit.HOURS, null)
                        .get(HANG.toSeconds(), TimeUnit.SECONDS));
            }
            try (WorkStealingPool pool = builder("jfr-decorated", 1).taskDecorator(t -> () -> t.run()).build()) {
                assertEquals("timed", pool.submitWithTimeout(new NamedTimed(), 1, TimeUnit.HOURS, null)
                        .get(HANG.toSeconds(), TimeUnit.SECONDS));
            }
            blockingCalls();
            try (WorkStealingPool pool = bounded("jfr-abort", SaturationPolicy.ABORT)) {
                CountDownLatch release = new CountDownLatch(1);
                fill(pool, release);
                assertThrows(RejectedExecutionException.class, () -> pool.execute(new NamedRunnable()));
                release.countDown();
            }
            try (WorkStealingPool pool = bounded("jfr-caller", SaturationPolicy.CALLER_RUNS)) {
                CountDownLatch release = new CountDownLatch(1);
                fill(pool, release);
                pool.execute(callerRan); // runs here, in the caller
                assertEquals(0, callerRan.ran.getCount());
                release.countDown();
            }
            heldBack();
            try (WorkStealingPool pool = builder("jfr-stop", 1).build()) {
                CountDownLatch holding = new CountDownLatch(1);
                CountDownLatch release = new CountDownLatch(1);
                pool.execute(() -> {
                    holding.countDown();
                    awaitQuietly(release);
                });
                assertTrue(holding.await(HANG.toSeconds(), TimeUnit.SECONDS));
                pool.execute(new NamedRunnable()); // queued behind the held worker
                pool.execute(new NamedRunnable());
                assertEquals(2, pool.shutdownNow().size());
                assertThrows(RejectedExecutionException.class, () -> pool.execute(new NamedRunnable()));
                release.countDown();
                assertTrue(pool.awaitTermination(HANG.toSeconds(), TimeUnit.SECONDS));
            }
            recording.stop();
            recording.dump(file);
        }
        Map<String, List<RecordedEvent>> byPool = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().startsWith("stealpool."))
                .filter(e -> e.getString("pool").startsWith("jfr-"))
                .collect(Collectors.groupingBy(e -> e.getString("pool")));

        // Tasks: the class the user gave, not the pool's future around it; no stack trace.
        List<RecordedEvent> runs = of(byPool, "jfr-tasks", "stealpool.TaskRun");
        assertTrue(runs.stream().anyMatch(e -> className(e).equals(Named.class.getName())), runs::toString);
        assertTrue(runs.stream().anyMatch(e -> className(e).equals(NamedRunnable.class.getName())), runs::toString);
        assertTrue(runs.stream().anyMatch(e -> className(e).equals(NamedTimed.class.getName())), runs::toString);
        assertTrue(runs.stream().allMatch(e -> e.getStackTrace() == null && !e.getDuration().isNegative()));
        // submitWithTimeout's task named by its call, through the decorator's wrapper too.
        List<RecordedEvent> decorated = of(byPool, "jfr-decorated", "stealpool.TaskRun");
        assertTrue(decorated.stream().anyMatch(e -> className(e).equals(NamedTimed.class.getName())),
                decorated::toString);

        List<RecordedEvent> calls = of(byPool, "jfr-blocking", "stealpool.BlockingCall");
        assertEquals(List.of(BlockingCallEvent.STARTED, BlockingCallEvent.REUSED),
                calls.stream().map(e -> e.getString("spare")).collect(Collectors.toList()), calls::toString);
        for (RecordedEvent e : calls) {
            assertEquals(1, e.getInt("spareThreads"), e::toString);
            assertEquals(1, e.getInt("blockedWorkers"), e::toString);
            assertNotNull(e.getStackTrace(), "a blocking call's event has the call's stack");
        }

        RecordedEvent refused = single(byPool, "jfr-abort", "stealpool.SubmissionRefused");
        assertEquals(SubmissionRefusedEvent.BOUND_REACHED, refused.getString("reason"));
        assertEquals(NamedRunnable.class.getName(), className(refused));
        assertTrue(refused.getStackTrace().getFrames().stream()
                .anyMatch(f -> f.getMethod().getType().getName().equals(FlightRecorderTest.class.getName())),
                "the submitter's stack");

        RecordedEvent ran = single(byPool, "jfr-caller", "stealpool.CallerRan");
        assertEquals(BOUND, ran.getInt("bound"));
        assertEquals(NamedRunnable.class.getName(), className(ran));
        assertTrue(of(byPool, "jfr-caller", "stealpool.SubmissionRefused").isEmpty());

        RecordedEvent held = single(byPool, "jfr-block", "stealpool.SubmissionHeldBack");
        assertEquals("BLOCK", held.getString("policy"));
        assertEquals(BOUND, held.getInt("bound"));
        assertTrue(held.getBoolean("accepted"));
        assertEquals(NamedRunnable.class.getName(), className(held));

        List<RecordedEvent> shutdowns = of(byPool, "jfr-stop", "stealpool.PoolShutdown");
        assertEquals(1, shutdowns.size(), shutdowns::toString); // close() after shutdownNow changes nothing
        assertTrue(shutdowns.get(0).getBoolean("now"));
        assertEquals(2, shutdowns.get(0).getInt("returnedTasks"));
        RecordedEvent late = single(byPool, "jfr-stop", "stealpool.SubmissionRefused");
        assertEquals(SubmissionRefusedEvent.SHUT_DOWN, late.getString("reason"));
        assertEquals(NamedRunnable.class.getName(), className(late));
        assertNotNull(single(byPool, "jfr-stop", "stealpool.PoolTerminated"));

        // close() shuts a pool down and waits for it: one shutdown, then one termination.
        for (String pool : List.of("jfr-tasks", "jfr-decorated", "jfr-blocking", "jfr-abort", "jfr-caller",
                "jfr-block")) {
            RecordedEvent down = single(byPool, pool, "stealpool.PoolShutdown");
            assertFalse(down.getBoolean("now"), pool);
            assertEquals(0, down.getInt("returnedTasks"), pool);
            RecordedEvent end = single(byPool, pool, "stealpool.PoolTerminated");
            assertFalse(end.getStartTime().isBefore(down.getStartTime()), pool);
        }
    }

    /** A call that starts a spare, then one that finds it parked and reuses it (as BlockingCallTest). */
    private static void blockingCalls() throws Exception {
        try (WorkStealingPool pool = builder("jfr-blocking", 1).build()) { // keep-alive 60 s
            CountDownLatch firstRan = new CountDownLatch(1);
            CountDownLatch secondRan = new CountDownLatch(1);
            pool.submit(() -> {
                pool.execute(firstRan::countDown); // on this worker's deque: only a spare runs it
                WorkStealingPool.blocking(() -> {
                    firstRan.await();
                    await().atMost(HANG).until(() -> pool.stats().parkedWorkers() == 1);
                });
                WorkStealingPool.blocking(() -> {
                    pool.execute(secondRan::countDown); // wakes the parked spare
                    secondRan.await();
                });
                return null;
            }).get(HANG.toSeconds(), TimeUnit.SECONDS);
            assertEquals(1, pool.stats().compensations());
        }
    }

    /** A BLOCK submitter waits at the bound until a worker takes a queued task. */
    private static void heldBack() throws Exception {
        try (WorkStealingPool pool = bounded("jfr-block", SaturationPolicy.BLOCK)) {
            CountDownLatch release = new CountDownLatch(1);
            fill(pool, release);
            NamedRunnable task = new NamedRunnable();
            AtomicReference<Throwable> failed = new AtomicReference<>();
            Thread submitter = new Thread(() -> {
                try {
                    pool.execute(task);
                } catch (Throwable e) {
                    failed.set(e);
                }
            });
            submitter.start();
            await().atMost(HANG).until(() -> pool.stats().blockedSubmissions() == 1
                    && submitter.getState() == Thread.State.WAITING);
            release.countDown();
            submitter.join(HANG.toMillis());
            assertNull(failed.get());
            assertTrue(task.ran.await(HANG.toSeconds(), TimeUnit.SECONDS));
        }
    }

    @Test
    void aTaskShorterThanTheThresholdIsNotRecorded(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("threshold.jfr");
        try (Recording recording = new Recording(settings())) {
            recording.enable("stealpool.TaskRun").withThreshold(Duration.ofHours(1));
            recording.start();
            try (WorkStealingPool pool = builder("jfr-threshold", 1).build()) {
                assertEquals("named", pool.submit(new Named()).get(HANG.toSeconds(), TimeUnit.SECONDS));
            }
            recording.stop();
            recording.dump(file);
        }
        Map<String, List<RecordedEvent>> byPool = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().startsWith("stealpool."))
                .collect(Collectors.groupingBy(e -> e.getString("pool")));
        assertEquals(List.of(), of(byPool, "jfr-threshold", "stealpool.TaskRun"));
        // The pool was recorded all the same: its close is there.
        assertNotNull(single(byPool, "jfr-threshold", "stealpool.PoolShutdown"));
        assertNotNull(single(byPool, "jfr-threshold", "stealpool.PoolTerminated"));
    }

    @Test
    void nothingIsRecordedWhileTheEventsAreDisabled(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("off.jfr");
        try (Recording recording = new Recording(settings())) {
            for (Class<? extends Event> c : EVENTS) {
                // By name: the file's settings are keyed by name, and disable(Class) would add a
                // second key (the type's id) that does not override them.
                recording.disable(c.getAnnotation(Name.class).value());
            }
            recording.start();
            try (WorkStealingPool pool = builder("jfr-off", 1).build()) {
                pool.submit(new Named()).get(HANG.toSeconds(), TimeUnit.SECONDS);
                pool.submit(() -> {
                    WorkStealingPool.blocking(() -> Thread.sleep(1));
                    return null;
                }).get(HANG.toSeconds(), TimeUnit.SECONDS);
            }
            recording.stop();
            recording.dump(file);
        }
        List<RecordedEvent> ours = new ArrayList<>();
        for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
            if (e.getEventType().getName().startsWith("stealpool.") && "jfr-off".equals(e.getString("pool"))) {
                ours.add(e);
            }
        }
        assertEquals(List.of(), ours);
    }

    @Test
    void theSettingsFileEnablesEveryEventWithItsClassDefaults() throws Exception {
        Map<String, String> s = settings().getSettings();
        for (Class<? extends Event> c : EVENTS) {
            String name = c.getAnnotation(Name.class).value();
            assertTrue(name.startsWith("stealpool."), name);
            assertEquals("true", s.get(name + "#enabled"), name);
            // The class's defaults are the file's: a recording that does not name the events
            // (JFR's default profile) records them as the file does; but TaskRun, which costs
            // every task two clock reads while enabled, only where a recording asks for it.
            assertEquals(c != TaskRunEvent.class, c.getAnnotation(Enabled.class).value(), name);
            StackTrace st = c.getAnnotation(StackTrace.class);
            assertEquals(String.valueOf(st == null || st.value()), s.get(name + "#stackTrace"), name);
            Threshold t = c.getAnnotation(Threshold.class);
            assertEquals(t == null ? null : t.value(), s.get(name + "#threshold"), name);
        }
        long named = s.keySet().stream().filter(k -> k.endsWith("#enabled")).count();
        assertEquals(EVENTS.size(), named, () -> "an event in the file but not in EVENTS: " + s);
    }

    @Test
    void theDocsCopyIsTheShippedFile() throws Exception {
        byte[] shipped;
        try (InputStream in = FlightRecorderTest.class.getClassLoader().getResourceAsStream("META-INF/stealpool.jfc")) {
            shipped = in.readAllBytes();
        }
        Path docs = docsCopy();
        assertEquals(new String(Files.readAllBytes(docs), StandardCharsets.UTF_8),
                new String(shipped, StandardCharsets.UTF_8), "docs/stealpool.jfc differs from pool-core's");
    }

    // ------------------------------------------------------------------ helpers

    /**
     * docs/stealpool.jfc of the repository holding the working directory (Maven runs the tests
     * in pool-core; an IDE may run them from the root), found by walking up; the test is
     * skipped where there is none (pool-core built outside its repository).
     */
    private static Path docsCopy() {
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            Path docs = d.resolve("docs").resolve("stealpool.jfc");
            if (Files.isRegularFile(docs)) {
                return docs;
            }
        }
        Assumptions.abort("no docs/stealpool.jfc above " + Path.of("").toAbsolutePath() + ": not in the repository");
        return null; // not reached
    }

    private static WorkStealingPool.Builder builder(String name, int parallelism) {
        return WorkStealingPool.builder().parallelism(parallelism).threadNamePrefix(name).daemon(true);
    }

    private static WorkStealingPool bounded(String name, SaturationPolicy policy) {
        return builder(name, 1).maxQueuedSubmissions(BOUND).saturationPolicy(policy).build();
    }

    /**
     * Holds every worker of {@code pool} on a task blocked until {@code release} opens, then
     * queues {@code BOUND} more behind them, so that the next outside submission meets the bound
     * (as BoundedSubmissionTest does).
     */
    private static void fill(WorkStealingPool pool, CountDownLatch release) throws InterruptedException {
        int p = pool.parallelism();
        CountDownLatch holding = new CountDownLatch(p);
        for (int i = 0; i < p; i++) {
            pool.execute(() -> {
                holding.countDown();
                awaitQuietly(release);
            });
        }
        assertTrue(holding.await(HANG.toSeconds(), TimeUnit.SECONDS));
        for (int i = 0; i < BOUND; i++) {
            pool.execute(() -> awaitQuietly(release));
        }
        assertEquals(0, pool.stats().queueRemaining(), () -> pool.stats().toString());
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            if (!latch.await(HANG.toSeconds(), TimeUnit.SECONDS)) {
                throw new AssertionError("latch never opened");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static List<RecordedEvent> of(Map<String, List<RecordedEvent>> byPool, String pool, String type) {
        return byPool.getOrDefault(pool, List.of()).stream()
                .filter(e -> e.getEventType().getName().equals(type))
                .sorted((a, b) -> a.getStartTime().compareTo(b.getStartTime()))
                .collect(Collectors.toList());
    }

    private static RecordedEvent single(Map<String, List<RecordedEvent>> byPool, String pool, String type) {
        List<RecordedEvent> es = of(byPool, pool, type);
        assertEquals(1, es.size(), () -> pool + " " + type + ": " + es);
        return es.get(0);
    }

    private static String className(RecordedEvent e) {
        RecordedClass c = e.getClass("taskClass");
        return c == null ? "" : c.getName();
    }
}
