package io.github.stealpool.internal;

/**
 * The latch accessor of {@code io.github.stealpool.Task}, for the few places in this package
 * that meet a Task as a plain Runnable (a queue entry) and must recognise it and cancel it:
 * the JDK's {@code SharedSecrets} pattern. This package does not depend on the API's classes
 * (no cycle between the packages), so it cannot name Task; Task registers its accessor here in
 * its static initializer, before any Task exists. Where Task waits on itself through this
 * package (join, get) it passes its accessor along; a fork hands over only the task, which
 * becomes a queue entry like any other.
 *
 * <p>Why a reader never misses the registration: it asks only about an object in its hands
 * (a sweep's queue entry, a submission the sampler picked). If that object is a Task, Task's
 * class was initialised, and the accessor written to this volatile field, before the object
 * was built. Every pool's constructor initialises Task before it starts its workers, so the
 * write also precedes every worker thread ({@code Thread.start}), and a worker got any entry
 * through a queue's release and acquire. Until then no object is a Task, and
 * {@link #isTask} answers false without it.
 *
 * <p>Public only for Task's sake; not an API, and not exported by the module. {@link #register}
 * accepts one accessor, once: a second registration (from anything but Task's initializer,
 * which runs once) fails. On the class path, code that registers first breaks Task; that is
 * the trust any public class of an unexported package asks.
 */
public final class TaskSecrets {

    private static volatile LatchAlgorithm task;

    private TaskSecrets() {
    }

    /**
     * Called once, by Task's static initializer: {@code accessor} runs the latch algorithm on
     * Task's fields, and {@link LatchAlgorithm#holds} tells a Task.
     *
     * @throws IllegalStateException if an accessor was registered already
     */
    public static synchronized void register(LatchAlgorithm accessor) {
        if (accessor == null) {
            throw new NullPointerException("accessor");
        }
        if (task != null) {
            throw new IllegalStateException("Task's latch accessor is registered already");
        }
        task = accessor;
    }

    /** True if {@code o} is a Task (false while Task is not initialised: then none exists). */
    static boolean isTask(Object o) {
        LatchAlgorithm a = task;
        return a != null && a.holds(o);
    }

    /** Task's accessor, for an object that {@link #isTask} said is one; null before any Task. */
    static LatchAlgorithm task() {
        return task;
    }
}
