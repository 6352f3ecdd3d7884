package io.github.stealpool.bench;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.openjdk.jmh.annotations.Param;

/**
 * What {@link SubmitBenchmark}'s operations wait for: every task run, for each kind of work and
 * each pool its {@code @Param}s name, so that a figure never times an operation that ended
 * early. The timeouts only detect a hang (a task lost by a pool would otherwise hang the build).
 */
@Timeout(120)
class SubmitBenchmarkTest {

    private static final int TASKS = 10_000;

    private static String[] params(String field) throws NoSuchFieldException {
        return SubmitBenchmark.class.getField(field).getAnnotation(Param.class).value();
    }

    @Test
    void everyParameterCombinationRunsToTheEnd() throws Exception {
        for (String pool : params("pool")) {
            for (String work : params("work")) {
                SubmitBenchmark bench = new SubmitBenchmark();
                bench.pool = pool;
                bench.producers = 2;
                bench.work = work;
                bench.setUp();
                try {
                    long expected = "tiny-adder".equals(work) ? SubmitBenchmark.TASKS : 0; // sum, or latch count
                    assertEquals(expected, bench.submitAll(), pool + ", " + work);
                } finally {
                    bench.tearDown();
                }
            }
        }
    }

    @Test
    void theAdderWaitEndsWithEveryTaskRun() throws Exception {
        for (String pool : params("pool")) {
            ExecutorService executor = Contender.of(pool).create(4);
            ExecutorService producers = Contender.FIXED.create(3);
            try {
                for (int p : new int[] {1, 3}) {
                    LongAdder done = new LongAdder();
                    SubmitBenchmark.submitCounted(executor, producers, p, TASKS, new SubmitBenchmark.Add(), done);
                    assertEquals(TASKS, done.sum(), pool + ", producers " + p + ": tasks run when the wait ended");
                }
            } finally {
                Contender.stop(executor);
                Contender.stop(producers);
            }
        }
    }

    @Test
    void awaitSumReturnsOnlyOnceTheTargetIsReached() throws Exception {
        LongAdder adder = new LongAdder();
        adder.add(TASKS - 1);
        Thread waiter = Thread.currentThread();
        AtomicBoolean lastAdded = new AtomicBoolean();
        Thread finisher = new Thread(() -> {
            // the last add only once the waiter is parked between two reads of the sum
            await().atMost(Duration.ofSeconds(60)).until(() -> waiter.getState() == Thread.State.TIMED_WAITING);
            lastAdded.set(true);
            adder.increment();
        });
        finisher.setDaemon(true);
        finisher.start();
        long sum = SubmitBenchmark.awaitSum(adder, TASKS);
        assertTrue(lastAdded.get(), "returned before the last add");
        assertEquals(TASKS, sum);
        finisher.join();
    }

    @Test
    void anInterruptEndsTheWait() {
        Thread.currentThread().interrupt();
        InterruptedException e = assertThrows(InterruptedException.class,
                () -> SubmitBenchmark.awaitSum(new LongAdder(), 1));
        assertTrue(e.getMessage().contains("0 ran"), e.getMessage());
        assertTrue(!Thread.currentThread().isInterrupted(), "the interrupt is consumed by the exception");
    }

    @Test
    void unknownWorkIsRejectedByName() throws Exception {
        SubmitBenchmark bench = new SubmitBenchmark();
        bench.pool = "stealpool";
        bench.producers = 1;
        bench.work = "huge";
        bench.setUp();
        try {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, bench::submitAll);
            assertTrue(e.getMessage().contains("work") && e.getMessage().contains("huge"), e.getMessage());
        } finally {
            bench.tearDown();
        }
    }
}
