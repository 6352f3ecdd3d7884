package io.github.stealpool.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ExecutorService;
import org.junit.jupiter.api.Test;

/**
 * What {@link SubmitBenchmark}'s operations wait for: every task run, for each kind of work, each
 * pool and several submitters, so that a figure never times an operation that ended early.
 */
class SubmitBenchmarkTest {

    private static final int TASKS = 10_000;

    @Test
    void everyKindOfWorkWaitsForEveryTask() throws Exception {
        for (String pool : new String[] {"stealpool", "forkjoin", "fixed"}) {
            ExecutorService executor = Contender.of(pool).create(4);
            ExecutorService producers = Contender.FIXED.create(3);
            try {
                for (int p : new int[] {1, 3}) {
                    assertEquals(0, SubmitBenchmark.submit(executor, producers, p, TASKS, false),
                            pool + ", tiny, producers " + p + ": the latch's count at the end");
                    assertEquals(0, SubmitBenchmark.submit(executor, producers, p, TASKS, true),
                            pool + ", 1us, producers " + p);
                    assertEquals(TASKS, SubmitBenchmark.submitCounted(executor, producers, p, TASKS),
                            pool + ", tiny-adder, producers " + p + ": the adder's sum at the end");
                }
            } finally {
                Contender.stop(executor);
                Contender.stop(producers);
            }
        }
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
