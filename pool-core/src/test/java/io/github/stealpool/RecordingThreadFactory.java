package io.github.stealpool;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/** Test helper: creates plain threads and remembers them, so a test can check they all end. */
final class RecordingThreadFactory implements ThreadFactory {

    final List<Thread> threads = new CopyOnWriteArrayList<>();

    @Override
    public Thread newThread(Runnable r) {
        Thread t = new Thread(r, "recorded-" + threads.size());
        t.setDaemon(true);
        threads.add(t);
        return t;
    }

    /** Joins every thread (a generous hang detector) and reports whether all of them ended. */
    boolean allEnded() throws InterruptedException {
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(30));
            if (t.isAlive()) {
                return false;
            }
        }
        return true;
    }
}
