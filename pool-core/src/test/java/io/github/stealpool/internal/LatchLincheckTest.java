package io.github.stealpool.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicBoolean;
import org.jetbrains.lincheck.Lincheck;
import org.junit.jupiter.api.Test;

/**
 * Issue 35, item 11: {@link Latch} under Lincheck's model checker, which runs each block below
 * many times, each time under a different thread interleaving (switching threads at every
 * shared access, park and unpark), where jcstress only samples. It checks the interleavings
 * of the waiter stack's protocol (push, re-read, unlink sweep, set and close) under sequential
 * consistency; it does not model the weaker orderings (plain reads) the class comment argues
 * for, and it does not model time: a timed wait here has a zero timeout, so it pushes,
 * re-reads and unlinks without parking (the one path where its timeout matters). A lost
 * wake-up shows as a hang, which Lincheck reports as a deadlock; a gone node left linked, or a
 * waiting one unlinked, as a failed assertion, with the interleaving.
 */
class LatchLincheckTest {

    /** Interleavings tried per test: small, to keep it within seconds. */
    private static final int INVOCATIONS = 1_000;

    private static void joinAll(Thread... threads) {
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }

    /**
     * A waiter that parks until set, one that gives up (and unlinks) and the completer: the one
     * that stays is always woken, and the closed stack holds nothing.
     */
    @Test
    void aWaiterThatGivesUpNeverCostsOneThatStaysItsWakeUp() {
        Lincheck.runConcurrentTest(INVOCATIONS, () -> {
            Signal latch = new Signal();
            AtomicBoolean stayerDone = new AtomicBoolean();
            Thread stayer = new Thread(() -> {
                latch.await(); // parks (a thread outside any pool)
                stayerDone.set(true);
            });
            Thread leaver = new Thread(() -> {
                try {
                    latch.await(0L); // push, re-read, unlink
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            });
            Thread setter = new Thread(latch::set);
            stayer.start();
            leaver.start();
            setter.start();
            joinAll(stayer, leaver, setter);
            assertTrue(stayerDone.get());
            assertEquals(0, latch.waiterCount());
        });
    }

    /**
     * Two waiters give up at once while a third node stays on a latch never set: their sweeps
     * race through each other's nodes, and afterwards exactly the staying node is linked.
     */
    @Test
    void concurrentSweepsUnlinkEveryGoneNodeAndNoOther() {
        Lincheck.runConcurrentTest(INVOCATIONS, () -> {
            Signal latch = new Signal();
            Thread stays = new Thread(() -> {
                // Registers like a waiter that will park, without parking: nothing sets it.
                assertTrue(latch.addWaiter(new LatchAlgorithm.Waiter(Thread.currentThread(), null)));
            });
            Runnable giveUp = () -> {
                try {
                    assertEquals(false, latch.await(0L));
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            };
            Thread leaver1 = new Thread(giveUp);
            Thread leaver2 = new Thread(giveUp);
            stays.start();
            leaver1.start();
            leaver2.start();
            joinAll(stays, leaver1, leaver2);
            assertEquals(1, latch.waiterCount());
        });
    }
}
