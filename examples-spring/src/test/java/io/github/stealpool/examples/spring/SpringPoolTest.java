package io.github.stealpool.examples.spring;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.stealpool.WorkStealingPool;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * {@link PoolApplication} started as Spring Boot starts it (issue 38, part 4): the pool's
 * meters are in the actuator's registry without a call of ours; a task sees its submitter's
 * MDC; closing the context shuts the pool down (new tasks refused) and returns only after
 * every accepted task has run, then the pool has terminated and its meters are gone; with
 * {@code @EnableScheduling}, Boot's own task scheduler backs off and a {@code @Scheduled}
 * method runs on a worker of the pool.
 * Latches hold the tasks, so no step depends on timing; Awaitility only detects hangs.
 */
class SpringPoolTest {

    private static final long HANG = 30;
    private static final int ACCEPTED = 20;

    private static ConfigurableApplicationContext start(Class<?>... more) {
        Class<?>[] sources = new Class<?>[more.length + 1];
        sources[0] = PoolApplication.class;
        System.arraycopy(more, 0, sources, 1, more.length);
        return new SpringApplicationBuilder(sources)
                .web(WebApplicationType.NONE)
                .properties("spring.main.banner-mode=off", "logging.level.root=warn",
                        "app.pool.parallelism=2")
                .run();
    }

    @Test
    void theContextBindsThePoolsMetersAndClosesThePoolAfterItsAcceptedTasks() throws Exception {
        ConfigurableApplicationContext context = start();
        WorkStealingPool pool = context.getBean(WorkStealingPool.class);
        MeterRegistry registry = context.getBean(MeterRegistry.class);
        try {
            assertSame(pool, context.getBean(ExecutorService.class), "injectable as an ExecutorService");
            // An Executor bean makes Boot back off its own applicationTaskExecutor (docs/spring.md).
            assertFalse(context.containsBean("applicationTaskExecutor"));
            assertEquals(2, pool.parallelism());
            assertEquals(2.0, registry.get("executor.parallelism").tag("name", PoolApplication.POOL_NAME)
                    .gauge().value());

            MDC.put("requestId", "r-1");
            assertEquals("r-1", pool.submit(() -> MDC.get("requestId")).get(HANG, TimeUnit.SECONDS));
            MDC.clear();
            FunctionCounter completed = registry.get("executor.completed")
                    .tag("name", PoolApplication.POOL_NAME).functionCounter();
            await().atMost(Duration.ofSeconds(HANG)).until(() -> completed.count() >= 1.0);

            CountDownLatch gate = new CountDownLatch(1);
            AtomicInteger ran = new AtomicInteger();
            for (int i = 0; i < ACCEPTED; i++) {
                pool.execute(() -> {
                    try {
                        gate.await(HANG, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        return; // not counted: close() was interrupted, which this test never does
                    }
                    ran.incrementAndGet();
                });
            }
            Thread closer = new Thread(context::close, "closer");
            closer.start();
            await().atMost(Duration.ofSeconds(HANG)).until(pool::isShutdown);
            assertThrows(RejectedExecutionException.class, () -> pool.execute(() -> { }));
            assertTrue(closer.isAlive(), "close waits for the accepted tasks, all held at the gate");
            assertEquals(0, ran.get());

            gate.countDown();
            closer.join(TimeUnit.SECONDS.toMillis(HANG));
            assertFalse(closer.isAlive(), "hang");
            assertEquals(ACCEPTED, ran.get(), "every accepted task ran before close returned");
            assertTrue(pool.isTerminated());
            assertNull(registry.find("executor.parallelism").tag("name", PoolApplication.POOL_NAME).gauge(),
                    "the meters go with the pool");
        } finally {
            context.close();
            pool.shutdownNow();
        }
    }

    /**
     * Scheduling switched on, with one {@code @Scheduled} method that runs once, at once. Not a
     * {@code @Configuration}: the application's component scan covers this package, and only
     * the test that names it as a source should get it.
     */
    @EnableScheduling
    static class ScheduledOnce {
        final CountDownLatch ran = new CountDownLatch(1);
        volatile String thread;

        @Scheduled(initialDelay = 0)
        void once() {
            thread = Thread.currentThread().getName();
            ran.countDown();
        }
    }

    @Test
    void scheduledMethodsRunOnThePoolInPlaceOfBootsTaskScheduler() throws Exception {
        ConfigurableApplicationContext context = start(ScheduledOnce.class);
        WorkStealingPool pool = context.getBean(WorkStealingPool.class);
        try {
            // The pool is a ScheduledExecutorService bean: Boot's taskScheduler backs off, and
            // Spring's @Scheduled processing takes the one such bean (docs/spring.md).
            assertFalse(context.containsBean("taskScheduler"));
            assertEquals(0, context.getBeanNamesForType(TaskScheduler.class).length);
            ScheduledOnce scheduled = context.getBean(ScheduledOnce.class);
            assertTrue(scheduled.ran.await(HANG, TimeUnit.SECONDS), "hang");
            assertTrue(scheduled.thread.startsWith(PoolApplication.POOL_NAME + "-worker-"), scheduled.thread);
        } finally {
            context.close();
            pool.shutdownNow();
        }
    }
}
