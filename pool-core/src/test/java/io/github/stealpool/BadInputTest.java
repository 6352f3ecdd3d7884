package io.github.stealpool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import java.util.function.BinaryOperator;
import java.util.function.Consumer;
import java.util.function.DoubleBinaryOperator;
import java.util.function.IntConsumer;
import java.util.function.IntFunction;
import java.util.function.LongBinaryOperator;
import java.util.function.LongConsumer;
import java.util.function.LongToDoubleFunction;
import java.util.function.LongUnaryOperator;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every public method, every argument: a null or an out-of-range value gets the exception the
 * JDK would throw, with a message naming the argument, and leaves the pool as it was. Found by
 * reflection, so a method added later is checked too.
 */
class BadInputTest {

    /** Arguments documented to accept null: {@code submit(task, result)}, a reduction's identity. */
    private static final Set<String> NULL_ALLOWED = Set.of("submit.result", "reduce.identity",
            "submitWithTimeout.timeoutAction"); // null: cancel with interrupt

    /** Not about input: life cycle and introspection. */
    private static final Set<String> NO_ARGUMENTS_TO_CHECK = Set.of(
            "shutdown", "shutdownNow", "close", "isShutdown", "isTerminated", "stats",
            "parallelism", "terminationFuture", "toString", "hashCode", "equals");

    private WorkStealingPool pool;

    @BeforeEach
    void setUp() {
        pool = WorkStealingPool.builder().parallelism(2).build();
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        pool.shutdownNow();
        assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
    }

    /** A valid value for a parameter of the pool's public API. */
    private static Object valid(Class<?> type, String name) {
        if (type == int.class) {
            return name.equals("to") ? 1 : 0;
        }
        if (type == long.class) {
            return name.equals("to") || name.equals("timeout") || name.equals("period")
                    || name.equals("delay") ? 1L : 0L; // schedule: a period or delay must be positive
        }
        if (type == boolean.class) {
            return false;
        }
        if (type == double.class) {
            return 0.0;
        }
        if (type == Runnable.class) {
            return (Runnable) () -> { };
        }
        if (type == Callable.class) {
            return (Callable<Integer>) () -> 1;
        }
        if (type == java.util.Collection.class) {
            return List.of((Callable<Integer>) () -> 1);
        }
        if (type == Iterable.class && name.equals("tasks")) { // invokeAll(Iterable): Tasks
            return List.of(valid(Task.class, "task"));
        }
        if (type == TimeUnit.class) {
            return TimeUnit.SECONDS;
        }
        if (type == Supplier.class) {
            return (Supplier<Integer>) () -> 1;
        }
        if (type == BiFunction.class) {
            return (BiFunction<Object, Object, Object>) (a, b) -> a;
        }
        if (type == BinaryOperator.class) {
            return (BinaryOperator<Object>) (a, b) -> a;
        }
        if (type == Consumer.class) {
            return (Consumer<Object>) x -> {
                if (x instanceof Scope) { // pool.scope(body); Items.forEach gets Strings
                    ((Scope) x).spawn(() -> { });
                }
            };
        }
        if (type == IntConsumer.class) {
            return (IntConsumer) i -> { };
        }
        if (type == LongConsumer.class) {
            return (LongConsumer) i -> { };
        }
        if (type == RangeChunk.class) {
            return (RangeChunk) (lo, hi) -> { };
        }
        if (type == IntFunction.class && name.equals("generator")) {
            return (IntFunction<Object[]>) Object[]::new;
        }
        if (type == IntFunction.class) {
            return (IntFunction<Object>) i -> "x";
        }
        if (type == java.util.function.LongFunction.class) {
            return (java.util.function.LongFunction<Object>) i -> "x";
        }
        if (type == java.util.function.Function.class) {
            return (java.util.function.Function<Object, Object>) x -> x;
        }
        if (type == java.util.function.IntToLongFunction.class) {
            return (java.util.function.IntToLongFunction) i -> i;
        }
        if (type == java.util.function.IntToDoubleFunction.class) {
            return (java.util.function.IntToDoubleFunction) i -> i;
        }
        if (type == java.util.function.ToLongFunction.class) {
            return (java.util.function.ToLongFunction<Object>) x -> 1;
        }
        if (type == java.util.function.ToDoubleFunction.class) {
            return (java.util.function.ToDoubleFunction<Object>) x -> 1;
        }
        if (type == List.class) {
            return List.of("a", "b");
        }
        if (type == Object[].class) {
            return new String[] {"a", "b"};
        }
        if (type == LongUnaryOperator.class) {
            return (LongUnaryOperator) i -> i;
        }
        if (type == LongBinaryOperator.class) {
            return (LongBinaryOperator) Long::sum;
        }
        if (type == LongToDoubleFunction.class) {
            return (LongToDoubleFunction) i -> i;
        }
        if (type == DoubleBinaryOperator.class) {
            return (DoubleBinaryOperator) Double::sum;
        }
        if (type == Task.class) {
            return new Task<Integer>() {
                @Override
                protected Integer compute() {
                    return 1;
                }
            };
        }
        if (type == Object.class) {
            return "identity";
        }
        if (type == TaskTimingListener.class) {
            return (TaskTimingListener) (queued, run) -> { };
        }
        throw new AssertionError("no valid value known for " + type + " " + name
                + ": teach BadInputTest about it");
    }

    private static List<Method> publicMethods(Class<?> c) {
        List<Method> ms = new ArrayList<>();
        for (Method m : c.getDeclaredMethods()) {
            if (Modifier.isPublic(m.getModifiers()) && !m.isSynthetic()
                    && !NO_ARGUMENTS_TO_CHECK.contains(m.getName())) {
                ms.add(m);
            }
        }
        return ms;
    }

    private Object[] validArguments(Method m) {
        Parameter[] ps = m.getParameters();
        Object[] args = new Object[ps.length];
        for (int i = 0; i < ps.length; i++) {
            assertTrue(ps[i].isNamePresent(), "compile with -parameters");
            args[i] = valid(ps[i].getType(), ps[i].getName());
        }
        return args;
    }

    /** Calls {@code m} and returns what it threw, or null. */
    private Throwable call(Object target, Method m, Object[] args) {
        try {
            m.invoke(target, args);
            return null;
        } catch (InvocationTargetException e) {
            return e.getCause();
        } catch (IllegalAccessException e) {
            throw new AssertionError(e);
        }
    }

    /** The pool took nothing in and still works. */
    private void assertUnchanged(long submittedBefore, String what) throws Exception {
        assertFalse(pool.isShutdown(), what);
        assertEquals(submittedBefore, pool.stats().submittedTasks(), what + " submitted something");
        assertEquals(7, pool.submit(() -> 7).get(30, TimeUnit.SECONDS), what);
    }

    @Test
    void everyNullArgumentOfThePoolIsRejectedByName() throws Exception {
        int checked = 0;
        for (Method m : publicMethods(WorkStealingPool.class)) {
            if (!Modifier.isStatic(m.getModifiers())) { // builder(), create(): no arguments
                checked += checkNullArguments(pool, m);
            }
        }
        assertTrue(checked >= 25, "checked only " + checked + " arguments"); // 25 today
    }

    @Test
    void everyNullArgumentOfTheLoopFormsIsRejectedByName() throws Exception {
        int checked = 0;
        Object[] targets = {pool.range(0, 3), pool.range(0L, 3L), pool.items(List.of("a", "b"))};
        for (Object target : targets) {
            for (Method m : publicMethods(target.getClass())) {
                assertEquals(null, call(target, m, validArguments(m)), m + " with valid arguments");
                checked += checkNullArguments(target, m);
            }
        }
        assertTrue(checked >= 25, "checked only " + checked + " arguments");
    }

    /**
     * Calls {@code m} on {@code target} with each reference argument null in turn: each must
     * be refused with a NullPointerException naming it, leaving the pool as it was.
     *
     * @return the number of arguments checked
     */
    private int checkNullArguments(Object target, Method m) throws Exception {
        int checked = 0;
        Parameter[] ps = m.getParameters();
        for (int i = 0; i < ps.length; i++) {
            if (ps[i].getType().isPrimitive()
                    || NULL_ALLOWED.contains(m.getName() + "." + ps[i].getName())) {
                continue;
            }
            Object[] args = validArguments(m);
            args[i] = null;
            long before = pool.stats().submittedTasks();
            String what = m + " with " + ps[i].getName() + " = null";
            Throwable t = call(target, m, args);
            if (!(t instanceof NullPointerException)) {
                fail(what + " threw " + t + " instead of NullPointerException", t);
            }
            assertEquals(ps[i].getName(), t.getMessage(), what);
            assertUnchanged(before, what);
            checked++;
        }
        return checked;
    }

    @Test
    void everyNullElementIsRejectedBeforeAnythingRuns() throws Exception {
        List<Callable<Integer>> withNull = new ArrayList<>();
        withNull.add(() -> 1);
        withNull.add(null);
        for (Method m : publicMethods(WorkStealingPool.class)) {
            Class<?> first = m.getParameterCount() == 0 ? null : m.getParameterTypes()[0];
            if (!m.getName().startsWith("invoke") || (first != java.util.Collection.class && first != Iterable.class)) {
                continue;
            }
            long before = pool.stats().submittedTasks();
            Object[] args = validArguments(m);
            if (first == Iterable.class) { // a Task, then null: the Task must not have run
                Task<?> task = (Task<?>) valid(Task.class, "task");
                args[0] = java.util.Arrays.asList(task, null);
                Throwable t = call(pool, m, args);
                assertTrue(t instanceof NullPointerException && "tasks[1] is null".equals(t.getMessage()), m + " threw " + t);
                assertFalse(task.isDone(), m + " ran a task before finding the null");
                assertUnchanged(before, m.toString());
                continue;
            }
            args[0] = withNull;
            Throwable t = call(pool, m, args);
            assertTrue(t instanceof NullPointerException, m + " threw " + t);
            assertNotNull(t.getMessage(), m.toString());
            assertUnchanged(before, m.toString());
        }
    }

    @Test
    void everyReversedRangeIsRejectedByName() throws Exception {
        int checked = 0;
        for (Method m : publicMethods(WorkStealingPool.class)) {
            Parameter[] ps = m.getParameters();
            if (ps.length < 2 || !ps[0].getName().equals("from") || !ps[1].getName().equals("to")) {
                continue;
            }
            Object[] args = validArguments(m);
            args[0] = ps[0].getType() == int.class ? (Object) 5 : (Object) 5L;
            args[1] = ps[1].getType() == int.class ? (Object) 4 : (Object) 4L;
            long before = pool.stats().submittedTasks();
            Throwable t = call(pool, m, args);
            assertTrue(t instanceof IllegalArgumentException, m + " threw " + t);
            assertTrue(t.getMessage().contains("from") && t.getMessage().contains("to"), t.getMessage());
            assertUnchanged(before, m.toString());
            checked++;
        }
        assertEquals(2, checked, "range(int, int) and range(long, long)");
    }

    @Test
    void everyNullArgumentOfTaskAndScopeIsRejectedByName() throws Exception {
        Task<Integer> task = new Task<>() {
            @Override
            protected Integer compute() {
                return 1;
            }
        };
        Throwable t = call(task, Task.class.getMethod("get", long.class, TimeUnit.class), new Object[] {1L, null});
        assertTrue(t instanceof NullPointerException && "unit".equals(t.getMessage()), String.valueOf(t));
        t = call(null, Task.class.getMethod("invokeAll", Task[].class), new Object[] {null});
        assertTrue(t instanceof NullPointerException && "tasks".equals(t.getMessage()), String.valueOf(t));
        t = call(null, Task.class.getMethod("invokeAll", java.util.Collection.class), new Object[] {null});
        assertTrue(t instanceof NullPointerException && "tasks".equals(t.getMessage()), String.valueOf(t));
        t = call(null, Task.class.getMethod("adapt", Callable.class), new Object[] {null});
        assertTrue(t instanceof NullPointerException && "callable".equals(t.getMessage()), String.valueOf(t));
        t = call(null, Task.class.getMethod("adapt", Runnable.class), new Object[] {null});
        assertTrue(t instanceof NullPointerException && "runnable".equals(t.getMessage()), String.valueOf(t));
        t = call(null, Task.class.getMethod("adapt", Runnable.class, Object.class), new Object[] {null, 1});
        assertTrue(t instanceof NullPointerException && "runnable".equals(t.getMessage()), String.valueOf(t));
        assertFalse(task.isDone(), "a rejected call left the task alone");

        long before = pool.stats().submittedTasks();
        pool.scope(s -> {
            NullPointerException e = org.junit.jupiter.api.Assertions.assertThrows(
                    NullPointerException.class, () -> s.spawn((Runnable) null));
            assertEquals("task", e.getMessage());
            NullPointerException v = org.junit.jupiter.api.Assertions.assertThrows(
                    NullPointerException.class, () -> s.spawn((Callable<Integer>) null));
            assertEquals("task", v.getMessage());
        });
        assertEquals(before + 1, pool.stats().submittedTasks(), "only the scope's own task");
    }

    @Test
    void everyNullArgumentOfTheBuilderIsRejectedByName() throws Exception {
        for (Method m : publicMethods(WorkStealingPool.Builder.class)) {
            Parameter[] ps = m.getParameters();
            for (int i = 0; i < ps.length; i++) {
                if (ps[i].getType().isPrimitive()) {
                    continue;
                }
                Object[] args = new Object[ps.length];
                Throwable t = call(WorkStealingPool.builder(), m, args);
                assertTrue(t instanceof NullPointerException, m + " threw " + t);
                assertTrue(t.getMessage().contains(ps[i].getName())
                        || t.getMessage().contains(m.getName()), m + ": " + t.getMessage());
            }
        }
        // A rejected setting leaves the builder usable, and nothing was started.
        ThreadFactory none = null;
        WorkStealingPool.Builder b = WorkStealingPool.builder().parallelism(1);
        org.junit.jupiter.api.Assertions.assertThrows(NullPointerException.class, () -> b.threadFactory(none));
        WorkStealingPool p = b.build();
        assertEquals(1, p.parallelism());
        p.shutdown();
    }
}
