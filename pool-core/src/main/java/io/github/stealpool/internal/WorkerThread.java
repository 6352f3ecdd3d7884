package io.github.stealpool.internal;

/**
 * The thread the pool creates for a worker when no {@code ThreadFactory} is configured. Carrying
 * the worker in a field lets {@link Scheduler#currentWorker()} find it with a type check instead
 * of a {@link ThreadLocal} look-up.
 */
final class WorkerThread extends Thread {

    final Worker worker;

    WorkerThread(Worker worker, String name, boolean daemon) {
        super(worker, name);
        this.worker = worker;
        setDaemon(daemon);
    }
}
