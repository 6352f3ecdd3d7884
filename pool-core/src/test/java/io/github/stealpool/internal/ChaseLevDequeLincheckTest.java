package io.github.stealpool.internal;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

/**
 * Lincheck model checking of {@link ChaseLevDeque}: every interleaving (up to Lincheck's bounds)
 * of one owner's push, pushAll, pop, poll and tryUnpush against steals from other threads, on a
 * deque built with capacity 2 so that it grows within the scenario, while thieves hold the old
 * array. jcstress samples such races on real hardware; this enumerates them.
 *
 * <p>Lincheck explores interleavings under sequential consistency: it finds a missing CAS, a
 * wrong index or a lost element, never a too-weak memory ordering; the jcstress tests in
 * pool-stress remain the check of the orderings.
 *
 * <p>The owner's operations share the non-parallel group "owner": Lincheck runs them all on one
 * thread, which is the deque's contract (only the owner pushes, pops and polls). Pushed values
 * come from an owner-side counter, so each is unique and a duplicate or a loss shows in the results.
 *
 * <p>{@link ChaseLevDeque#steal()} may return null while the deque is not empty, when it loses
 * the CAS on {@code top} to another thread; no sequential deque does that, so the two checks
 * split the work:
 * <ul>
 *   <li>this class checks linearizability against an {@link ArrayDeque} (owner end = bottom,
 *       LIFO; steal and poll at the top, FIFO), with a steal that retries a lost race until it
 *       takes an element or sees the deque empty (a lost CAS means another thread took one, so
 *       the retry is lock-free);</li>
 *   <li>{@link RawSteal} runs the bare single-attempt steal and, after every interleaving,
 *       drains the deque and checks that each pushed value was handed out exactly once: a
 *       spurious null is allowed, a duplicate or a loss is not.</li>
 * </ul>
 */
public class ChaseLevDequeLincheckTest {

    /** Capacity 2: the third live element makes the owner grow the array. */
    private final ChaseLevDeque<Integer> deque = new ChaseLevDeque<>(2);
    private int next;           // owner only: the last value pushed (values are 1, 2, ...)
    private Integer lastPushed; // owner only: the object tryUnpush compares by reference

    @Operation(nonParallelGroup = "owner")
    public void push() {
        lastPushed = ++next;
        deque.push(lastPushed);
    }

    @Operation(nonParallelGroup = "owner")
    public void pushTwo() {
        Integer[] two = {++next, ++next};
        lastPushed = two[1];
        deque.pushAll(two, 0, 2);
    }

    @Operation(nonParallelGroup = "owner")
    public Integer pop() {
        return deque.pop();
    }

    @Operation(nonParallelGroup = "owner")
    public Integer poll() {
        return deque.poll();
    }

    @Operation(nonParallelGroup = "owner")
    public boolean tryUnpushLast() {
        return lastPushed != null && deque.tryUnpush(lastPushed);
    }

    /** A steal that retries a lost race; null only when it saw the deque empty. */
    @Operation
    public Integer steal() {
        for (;;) {
            Integer e = deque.steal();
            if (e != null || deque.isEmpty()) {
                return e;
            }
        }
    }

    @Test
    void linearizableAgainstASequentialDeque() {
        ModelCheckingOptions options = new ModelCheckingOptions()
                .threads(3)
                .actorsPerThread(3)
                .actorsBefore(2)
                .actorsAfter(2)
                .iterations(ITERATIONS)
                .invocationsPerIteration(INVOCATIONS)
                .sequentialSpecification(Spec.class);
        hazards(ChaseLevDequeLincheckTest.class, null).forEach(options::addCustomScenario);
        options.check(ChaseLevDequeLincheckTest.class);
    }

    @Test
    void bareStealHandsOutEveryValueExactlyOnce() {
        ModelCheckingOptions options = new ModelCheckingOptions()
                .threads(3)
                .actorsPerThread(3)
                .actorsBefore(2)
                .iterations(ITERATIONS)
                .invocationsPerIteration(INVOCATIONS);
        hazards(RawSteal.class, actor(RawSteal.class, "everyValueTakenExactlyOnce")).forEach(options::addCustomScenario);
        options.check(RawSteal.class);
    }

    // Random scenarios: small, so that both checks together stay within seconds; the hazards
    // below are checked on every run whatever the random ones happen to be.
    private static final int ITERATIONS = 15;
    private static final int INVOCATIONS = 250;

    /**
     * The races the algorithm's comments argue about, as fixed scenarios (on capacity 2):
     * a push that grows the array while thieves steal from the old one; pushAll growing it
     * against steals, with the owner's FIFO poll; the owner's pop of the last one or two
     * elements against two thieves (pop's CAS on the last element, and every interleaving
     * around its store of {@code bottom}; the store-load ordering itself is jcstress's).
     */
    private static List<ExecutionScenario> hazards(Class<?> test, Actor validation) {
        Actor push = actor(test, "push");
        Actor pushTwo = actor(test, "pushTwo");
        Actor pop = actor(test, "pop");
        Actor poll = actor(test, "poll");
        Actor steal = actor(test, "steal");
        return List.of(
                new ExecutionScenario(List.of(push, push),
                        List.of(List.of(push, pop, pop), List.of(steal, steal), List.of(steal)), List.of(), validation),
                new ExecutionScenario(List.of(push),
                        List.of(List.of(pushTwo, poll), List.of(steal, steal)), List.of(), validation),
                new ExecutionScenario(List.of(pushTwo),
                        List.of(List.of(pop, pop), List.of(steal), List.of(steal)), List.of(), validation));
    }

    static Actor actor(Class<?> test, String name, Object... args) {
        Class<?>[] types = Arrays.stream(args).map(a -> a instanceof Integer ? int.class : a.getClass())
                .toArray(Class<?>[]::new);
        try {
            return new Actor(test.getMethod(name, types), List.of(args));
        } catch (NoSuchMethodException e) {
            throw new AssertionError(e);
        }
    }

    /** The sequential specification: first = top (steals, poll), last = bottom (push, pop). */
    public static final class Spec {
        private final ArrayDeque<Integer> d = new ArrayDeque<>();
        private int next;
        private Integer lastPushed;

        public void push() {
            lastPushed = ++next;
            d.addLast(lastPushed);
        }

        public void pushTwo() {
            d.addLast(++next);
            lastPushed = ++next;
            d.addLast(lastPushed);
        }

        public Integer pop() {
            return d.pollLast();
        }

        public Integer poll() {
            return d.pollFirst();
        }

        public boolean tryUnpushLast() {
            if (lastPushed != null && Objects.equals(d.peekLast(), lastPushed)) {
                d.pollLast();
                return true;
            }
            return false;
        }

        public Integer steal() {
            return d.pollFirst();
        }
    }

    /**
     * The bare steal, one attempt, which may fail spuriously: no sequential specification fits
     * it, so the operations return nothing and the check is the validation after each
     * interleaving: every value pushed was taken exactly once, by an operation or by the drain.
     */
    public static class RawSteal {
        /** More than the values any scenario below can push (each actor pushes at most 2). */
        private static final int MAX_VALUES = 64;

        private final ChaseLevDeque<Integer> deque = new ChaseLevDeque<>(2);
        private final AtomicIntegerArray taken = new AtomicIntegerArray(MAX_VALUES + 1);
        private int next; // owner only

        private void record(Integer e) {
            if (e != null) {
                taken.incrementAndGet(e);
            }
        }

        @Operation(nonParallelGroup = "owner")
        public void push() {
            deque.push(++next);
        }

        @Operation(nonParallelGroup = "owner")
        public void pushTwo() {
            Integer[] two = {++next, ++next};
            deque.pushAll(two, 0, 2);
        }

        @Operation(nonParallelGroup = "owner")
        public void pop() {
            record(deque.pop());
        }

        @Operation(nonParallelGroup = "owner")
        public void poll() {
            record(deque.poll());
        }

        @Operation
        public void steal() {
            record(deque.steal());
        }

        /** Runs after each interleaving, single-threaded: drain, then count. */
        @Validate
        public void everyValueTakenExactlyOnce() {
            for (Integer e; (e = deque.pop()) != null; ) {
                record(e);
            }
            if (!deque.isEmpty()) {
                throw new AssertionError("pop returned null on a non-empty deque");
            }
            for (int v = 1; v <= next; v++) {
                if (taken.get(v) != 1) {
                    throw new AssertionError("value " + v + " of 1.." + next + " taken " + taken.get(v) + " times");
                }
            }
        }
    }
}
