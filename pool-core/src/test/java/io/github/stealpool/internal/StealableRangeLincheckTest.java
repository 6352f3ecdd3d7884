package io.github.stealpool.internal;

import static io.github.stealpool.internal.ChaseLevDequeLincheckTest.actor;

import java.util.List;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

/**
 * Lincheck model checking of {@link StealableRange}: every interleaving (up to Lincheck's
 * bounds) of the owner's batches from the low end against thieves splitting off the upper half,
 * on a range short enough that the scenarios exhaust it. jcstress samples two or three such
 * races on real hardware; this enumerates them.
 *
 * <p>Both {@code take} and {@code steal} retry a lost CAS, so the range is linearizable as it
 * stands: the specification is the same arithmetic on two plain offsets. On top, the contract
 * the range loops rely on is checked after every interleaving: each index was handed out exactly
 * once, counting what a final drain takes. Lincheck explores interleavings under sequential
 * consistency; the jcstress Range* tests in pool-stress remain the check of the orderings.
 *
 * <p>{@code take} is in the non-parallel group "owner", so Lincheck runs it on one thread only,
 * which is the range's contract.
 */
@Param(name = "max", gen = IntGen.class, conf = "1:3")
public class StealableRangeLincheckTest {

    /** Odd, so that halving rounds; short, so that three threads' operations exhaust it. */
    private static final int LENGTH = 7;
    private static final long BASE = 100;

    private final StealableRange range = new StealableRange(BASE, LENGTH);
    private final AtomicIntegerArray taken = new AtomicIntegerArray(LENGTH);

    /** Counts the indexes of a claim, and describes it as the specification does. */
    private String claimed(long claim) {
        if (claim == -1) {
            return "none";
        }
        long start = range.start(claim);
        long end = start + StealableRange.count(claim);
        for (long i = start; i < end; i++) {
            taken.incrementAndGet((int) (i - BASE));
        }
        return "[" + start + ", " + end + ")";
    }

    @Operation(nonParallelGroup = "owner")
    public String take(@Param(name = "max") int max) {
        return claimed(range.take(max));
    }

    @Operation
    public String steal() {
        return claimed(range.steal());
    }

    @Operation
    public long remaining() {
        return range.remaining();
    }

    /** Runs after each interleaving, single-threaded: drain, then count. */
    @Validate
    public void everyIndexTakenExactlyOnce() {
        while (!"none".equals(claimed(range.take(Long.MAX_VALUE)))) {
            // drained
        }
        for (int i = 0; i < LENGTH; i++) {
            if (taken.get(i) != 1) {
                throw new AssertionError("index " + (BASE + i) + " taken " + taken.get(i) + " times");
            }
        }
    }

    @Test
    void linearizableAndEveryIndexTakenOnce() {
        Class<?> test = StealableRangeLincheckTest.class;
        Actor steal = actor(test, "steal");
        Actor validation = actor(test, "everyIndexTakenExactlyOnce");
        new ModelCheckingOptions()
                .threads(3)
                .actorsPerThread(3)
                .actorsBefore(1)
                .actorsAfter(1)
                .iterations(20) // random scenarios: small, so that the check stays within seconds
                .invocationsPerIteration(300)
                .sequentialSpecification(Spec.class)
                // Checked on every run, whatever the random scenarios are: the owner's batches
                // against two thieves splitting, down to the last index (which a thief may take).
                .addCustomScenario(new ExecutionScenario(List.of(),
                        List.of(List.of(actor(test, "take", 2), actor(test, "take", 2)), List.of(steal, steal),
                                List.of(steal)),
                        List.of(), validation))
                .check(test);
    }

    /** The sequential specification: the unconsumed offsets are [lo, hi). */
    public static final class Spec {
        private long lo;
        private long hi = LENGTH;

        private static String describe(long from, long to) {
            return from == to ? "none" : "[" + (BASE + from) + ", " + (BASE + to) + ")";
        }

        public String take(int max) {
            long n = Math.min(max, hi - lo);
            long from = lo;
            lo += n;
            return describe(from, lo);
        }

        public String steal() {
            long mid = lo + (hi - lo) / 2;
            long to = hi;
            hi = mid;
            return describe(mid, to);
        }

        public long remaining() {
            return hi - lo;
        }
    }
}
