package io.github.stealpool.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.stealpool.WorkStealingPool;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 14: a batch already claimed is revocable ({@code RangeLoop.split}). Forced without
 * timing: worker A claims all of its part, [0, 32), in one batch (batches of 32); worker B, held
 * until A is inside that batch, runs the other part and quits for lack of work. A then hands the
 * upper half of the rest of its batch, [16, 32), to a new participant, which B runs. Each of A's
 * indexes in [1, 16) waits until an index of [16, 32) has run on another thread: without the
 * split that never happens, and the hang bound fails the test. A reduction checks the fold, as
 * the split adds a range in the middle of A's.
 */
class RangeLoopSplitTest {

    private static final long HANG = 60;

    private final WorkStealingPool pool = WorkStealingPool.builder().parallelism(2).build();

    @AfterEach
    void tearDown() throws Exception {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(HANG, TimeUnit.SECONDS));
    }

    @Test
    void anOwnerSharesItsClaimedBatchWithAWorkerThatRanDry() throws Exception {
        CountDownLatch hold = holdOneWorker();

        int n = 64;
        Thread[] ranOn = new Thread[n];
        AtomicBoolean upperHalfRanElsewhere = new AtomicBoolean();
        AtomicReference<RangeLoop> loopRef = new AtomicReference<>();
        RangeLoops.Reduce<String> loop = new RangeLoops.Reduce<>(32, 32, "", index -> {
            int i = (int) index;
            synchronized (ranOn) {
                assertNull(ranOn[i], "index " + i + " ran twice");
                ranOn[i] = Thread.currentThread();
            }
            if (i == 0) {
                hold.countDown(); // B finishes the holding task, runs [32, 64) and quits
                awaitUntil(() -> loopRef.get().idleParticipants() > 0, "B ran its part and quit");
            } else if (i < 16) {
                awaitUntil(upperHalfRanElsewhere::get, "an index of [16, 32) ran on another worker");
            } else if (i < 32 && Thread.currentThread() != ranOn[0]) {
                upperHalfRanElsewhere.set(true);
            }
            return i + ",";
        }, String::concat);
        loopRef.set(loop);

        pool.submit(() -> loop.run(Worker.current(), 2, 0, n)).get(HANG, TimeUnit.SECONDS);

        String expected = IntStream.range(0, n).mapToObj(i -> i + ",").collect(Collectors.joining());
        assertEquals(expected, loop.result(), "the split range folds in index order");
        for (int i = 0; i < n; i++) {
            assertNotNull(ranOn[i], "index " + i + " never ran");
        }
        assertTrue(upperHalfRanElsewhere.get());
    }

    /**
     * After a split, the rest of the batch runs one index at a time while its indexes are
     * expensive, so a participant that runs dry again is answered within one index. A holds
     * [0, 128) in one batch; B runs [128, 256) and quits; at index 0 A hands [64, 128) to B.
     * Index 1 costs more than {@code SPLIT_RUN_NANOS}. B's first index of [64, 128) waits until A
     * is inside index 2, so B quits again only then; index 2 waits for that. With runs doubling
     * again after the split, index 3 would be in the same run as index 2 and run before A looks
     * again: it waits until an index of [33, 64), the half of the second split, ran elsewhere,
     * so without the second split in time the hang bound fails the test.
     */
    @Test
    void afterASplitTheOwnerAnswersTheNextIdleParticipantWithinOneIndex() throws Exception {
        CountDownLatch hold = holdOneWorker();

        int n = 256;
        Thread[] ranOn = new Thread[n];
        AtomicBoolean ownerInIndexTwo = new AtomicBoolean();
        AtomicBoolean secondHalfRanElsewhere = new AtomicBoolean();
        AtomicReference<RangeLoop> loopRef = new AtomicReference<>();
        RangeLoops.Reduce<String> loop = new RangeLoops.Reduce<>(128, 128, "", index -> {
            int i = (int) index;
            synchronized (ranOn) {
                assertNull(ranOn[i], "index " + i + " ran twice");
                ranOn[i] = Thread.currentThread();
            }
            if (i == 0) {
                hold.countDown(); // B runs [128, 256) and quits
                awaitUntil(() -> loopRef.get().idleParticipants() > 0, "B ran its part and quit");
            } else if (i == 1) {
                atLeast(RangeLoop.SPLIT_RUN_NANOS * 2); // an expensive index: runs stay at 1
            } else if (i == 2) {
                ownerInIndexTwo.set(true);
                awaitUntil(() -> loopRef.get().idleParticipants() > 0, "B ran [64, 128) and quit again");
            } else if (i >= 3 && i < 33) {
                awaitUntil(secondHalfRanElsewhere::get, "an index of [33, 64) ran on another worker");
            } else if (i >= 33 && i < 64 && Thread.currentThread() != ranOn[0]) {
                secondHalfRanElsewhere.set(true);
            } else if (i == 64) {
                awaitUntil(ownerInIndexTwo::get, "the owner is inside index 2");
            }
            return i + ",";
        }, String::concat);
        loopRef.set(loop);

        pool.submit(() -> loop.run(Worker.current(), 2, 0, n)).get(HANG, TimeUnit.SECONDS);

        String expected = IntStream.range(0, n).mapToObj(i -> i + ",").collect(Collectors.joining());
        assertEquals(expected, loop.result(), "both split ranges fold in index order");
        assertTrue(secondHalfRanElsewhere.get());
    }

    /** Keeps one of the two workers busy until the returned latch is counted down. */
    private CountDownLatch holdOneWorker() throws InterruptedException {
        CountDownLatch hold = new CountDownLatch(1);
        CountDownLatch held = new CountDownLatch(1);
        pool.execute(() -> {
            held.countDown();
            try {
                hold.await(HANG, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertTrue(held.await(HANG, TimeUnit.SECONDS));
        return hold;
    }

    /** Busy for at least {@code nanos}: an index that costs that much, whatever the machine. */
    private static void atLeast(long nanos) {
        long start = System.nanoTime();
        while (System.nanoTime() - start < nanos) {
            Thread.onSpinWait();
        }
    }

    /** Hang detector: waits for {@code condition}, failing after {@link #HANG} seconds. */
    private static void awaitUntil(Callable<Boolean> condition, String what) {
        Awaitility.await(what).atMost(HANG, TimeUnit.SECONDS).pollInterval(Duration.ofMillis(1)).until(condition);
    }
}
