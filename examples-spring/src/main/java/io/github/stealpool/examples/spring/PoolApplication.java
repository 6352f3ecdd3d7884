package io.github.stealpool.examples.spring;

import io.github.stealpool.WorkStealingPool;
import io.github.stealpool.metrics.WorkStealingPoolMetrics;
import io.micrometer.context.ContextRegistry;
import io.micrometer.context.ContextSnapshotFactory;
import io.micrometer.context.integration.Slf4jThreadLocalAccessor;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.core.task.support.ContextPropagatingTaskDecorator;

/**
 * A Spring Boot application with a {@link WorkStealingPool} as a bean (docs/spring.md):
 * <ul>
 *   <li>the pool is closed with the context ({@code destroyMethod = "close"}): {@code close()}
 *       shuts it down, so it takes no new task, and waits until every task it accepted has
 *       run, which is a graceful shutdown of the pool;</li>
 *   <li>its meters come from a {@link MeterBinder} bean, which Spring Boot's actuator binds to
 *       the {@code MeterRegistry} it made, with no call of ours;</li>
 *   <li>its tasks run with the submitting thread's context (the logging MDC, the current
 *       observation), through Spring's own {@link ContextPropagatingTaskDecorator} given to
 *       {@link WorkStealingPool.Builder#taskDecorator}.</li>
 * </ul>
 * Inject the pool as an {@code ExecutorService} (or {@code ScheduledExecutorService}) where
 * that is all a bean needs.
 */
@SpringBootApplication
public class PoolApplication {

    /** The name the pool's meters are tagged with ({@code name=app-pool}). */
    public static final String POOL_NAME = "app-pool";

    /**
     * The pool. Built with the context, closed with it: Spring calls {@code close()} when it
     * destroys the bean, after it has stopped the lifecycle beans (a web server draining its
     * requests under {@code server.shutdown=graceful} among them).
     *
     * @param parallelism the workers, from {@code app.pool.parallelism}; 0, the default: one
     *                    per core
     * @return the pool
     */
    @Bean(destroyMethod = "close")
    public WorkStealingPool workStealingPool(@Value("${app.pool.parallelism:0}") int parallelism) {
        // The MDC is no ThreadLocalAccessor that context-propagation finds by itself: register it
        // beside those it loads (Micrometer's current observation among them).
        ContextSnapshotFactory snapshots = ContextSnapshotFactory.builder()
                .contextRegistry(new ContextRegistry().loadThreadLocalAccessors()
                        .registerThreadLocalAccessor(new Slf4jThreadLocalAccessor()))
                .build();
        WorkStealingPool.Builder builder = WorkStealingPool.builder()
                .threadNamePrefix(POOL_NAME)
                .taskDecorator(new ContextPropagatingTaskDecorator(snapshots)::decorate);
        if (parallelism > 0) {
            builder.parallelism(parallelism);
        }
        return builder.build();
    }

    /**
     * The pool's meters ({@code executor.*}, tagged {@code name=app-pool}). A bean is all it
     * takes: the actuator binds every {@code MeterBinder} bean to its registry. The meters go
     * when the pool terminates.
     *
     * @param pool the pool above
     * @return the binder
     */
    @Bean
    public MeterBinder workStealingPoolMetrics(WorkStealingPool pool) {
        return new WorkStealingPoolMetrics(pool, POOL_NAME, Tags.empty());
    }

    /**
     * Starts the application.
     *
     * @param args Spring Boot's arguments, such as {@code --app.pool.parallelism=4}
     */
    public static void main(String[] args) {
        SpringApplication.run(PoolApplication.class, args);
    }
}
