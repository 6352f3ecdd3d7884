/**
 * The pool and its API: {@link io.github.stealpool.WorkStealingPool} (an
 * {@link java.util.concurrent.ExecutorService} with per-worker work-stealing deques, built with
 * {@link io.github.stealpool.WorkStealingPool#builder()}), fork/join through
 * {@link io.github.stealpool.Task} and {@link io.github.stealpool.WorkStealingPool#join}, structured
 * spawning through {@link io.github.stealpool.Scope}, adaptive range loops through
 * {@link io.github.stealpool.IntRange}, {@link io.github.stealpool.LongRange} and
 * {@link io.github.stealpool.Items}, and statistics through {@link io.github.stealpool.PoolStats}.
 */
package io.github.stealpool;
