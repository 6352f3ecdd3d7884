package io.github.stealpool.internal;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The lab switch {@code stealpool.lab.timerHandAheadNanos} (DelayScheduler, "Handing over
 * ahead"): with it on, an idle pool's due task goes to a sleeping worker ahead of its deadline,
 * and still never starts before it. Bounds detect hangs only.
 */
class TimerHandAheadTest {

    private static final long HANG = 30;
    private static final String SWITCH = "stealpool.lab.timerHandAheadNanos";

    /**
     * One task at a time on an idle pool of one worker, 2 ms away, until fifty were handed over
     * ahead (the timer must wake within the lead, which a loaded machine may miss a few
     * times): every task starts at or after its deadline, and none is left with the timer.
     */
    @Test
    void aTaskHandedOverAheadStillNeverStartsBeforeItsDeadline() throws Exception {
        Scheduler s = new Scheduler(SchedulerConfig.basic(1, "hand-ahead", 8, 0));
        s.start();
        DelayScheduler d = timerWithTheSwitch(s);
        try {
            long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(HANG); // a hang detector
            int rounds = 0;
            while (d.handedAhead() < 50) {
                assertTrue(System.nanoTime() - giveUp < 0L, "only " + d.handedAhead() + " of "
                        + rounds + " tasks were handed over ahead");
                idle(s); // idle, parked long enough to be handed a task
                AtomicLong started = new AtomicLong();
                DelayedTask<Void> t = d.schedule(() -> started.set(System.nanoTime()), 2, TimeUnit.MILLISECONDS,
                        true, null);
                t.get(HANG, TimeUnit.SECONDS);
                assertTrue(started.get() - t.time >= 0L,
                        "started " + (t.time - started.get()) + " ns before its deadline");
                rounds++;
            }
            assertEquals(0, d.pending());
        } finally {
            s.shutdown();
            assertTrue(s.awaitTermination(HANG, TimeUnit.SECONDS));
        }
    }

    /** What a worker handed a task ahead runs: the task, once its time has come. */
    @Test
    void aWorkerHandedATaskAheadWaitsForItsTime() {
        long time = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2);
        AtomicLong started = new AtomicLong();
        new RunWhenDue(() -> started.set(System.nanoTime()), time).run();
        assertTrue(started.get() - time >= 0L, "started " + (time - started.get()) + " ns early");
    }

    /**
     * An entry the timer runs itself ({@code submitWithTimeout}'s timeout without an action) is
     * never handed ahead: it runs on the timer thread, with the switch on.
     */
    @Test
    void anEntryTheTimerRunsItselfStaysWithTheTimer() throws Exception {
        Scheduler s = new Scheduler(SchedulerConfig.basic(1, "hand-ahead-on-timer", 8, 0));
        s.start();
        DelayScheduler d = timerWithTheSwitch(s);
        try {
            for (int i = 0; i < 50; i++) {
                idle(s);
                AtomicReference<Thread> ranOn = new AtomicReference<>();
                DelayedTask<Void> t = d.scheduleOnTimer(() -> ranOn.set(Thread.currentThread()), 2,
                        TimeUnit.MILLISECONDS);
                t.get(HANG, TimeUnit.SECONDS);
                assertSame(d.thread, ranOn.get(), "round " + i);
            }
            assertEquals(0, d.handedAhead());
        } finally {
            s.shutdown();
            assertTrue(s.awaitTermination(HANG, TimeUnit.SECONDS));
        }
    }

    /** The pool's timer, made with the switch at 100 us (the property as it was before, after). */
    private static DelayScheduler timerWithTheSwitch(Scheduler s) {
        String before = System.getProperty(SWITCH);
        System.setProperty(SWITCH, String.valueOf(TimeUnit.MICROSECONDS.toNanos(100)));
        try {
            return s.delays(); // the timer reads the switch as it is made
        } finally {
            if (before == null) {
                System.clearProperty(SWITCH);
            } else {
                System.setProperty(SWITCH, before);
            }
        }
    }

    /** Waits (polling every millisecond) until the pool's one worker may be handed a task. */
    private static void idle(Scheduler s) {
        await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1)).atMost(HANG, TimeUnit.SECONDS)
                .until(s.sleep::handOffReady);
    }

    /** Without the switch nothing is handed over ahead (the default). */
    @Test
    void offByDefault() throws Exception {
        assumeTrue(System.getProperty(SWITCH) == null, "the JVM was started with the switch");
        Scheduler s = new Scheduler(SchedulerConfig.basic(1, "hand-ahead-off", 8, 0));
        s.start();
        try {
            DelayScheduler d = s.delays();
            for (int i = 0; i < 20; i++) {
                idle(s);
                d.schedule(() -> { }, 1, TimeUnit.MILLISECONDS, true, null).get(HANG, TimeUnit.SECONDS);
            }
            assertEquals(0, d.handedAhead());
        } finally {
            s.shutdown();
            assertTrue(s.awaitTermination(HANG, TimeUnit.SECONDS));
        }
    }
}
