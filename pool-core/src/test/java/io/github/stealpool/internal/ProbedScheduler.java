package io.github.stealpool.internal;

/** Schedulers for the tests that hold or fail the pool's threads through a {@link ShutdownProbe}. */
final class ProbedScheduler {

    private ProbedScheduler() {
    }

    /** A started scheduler of {@code parallelism} workers, with {@code probe} in place from its start. */
    static Scheduler start(int parallelism, String name, ShutdownProbe probe) {
        Scheduler s = new Scheduler(SchedulerConfig.basic(parallelism, name, 8, 0));
        s.probe = probe;
        s.start();
        return s;
    }
}
