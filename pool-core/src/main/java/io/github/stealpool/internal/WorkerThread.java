package io.github.stealpool.internal;

/**
 * The thread the pool creates for a worker when no {@code ThreadFactory} is configured. Carrying
 * the worker in a field lets {@link Scheduler#currentWorker()} find it with a type check instead
 * of a {@link ThreadLocal} look-up.
 */
final class WorkerThread extends Thread {

    /**
     * Stack size requested for the pool's own threads: 32 MiB of address space, committed only
     * as it is used. Fork/join recursion runs joined tasks on the joiner's stack, so a task tree
     * with a 10,000-deep spine needs several megabytes; the JVM's default (1 MiB on x64 Linux)
     * overflows there, as it does for ForkJoinPool.
     */
    static final long STACK_SIZE = 32L << 20;

    final Worker worker;

    WorkerThread(Worker worker, String name, boolean daemon) {
        super(null, worker, name, STACK_SIZE);
        this.worker = worker;
        setDaemon(daemon);
    }
}
