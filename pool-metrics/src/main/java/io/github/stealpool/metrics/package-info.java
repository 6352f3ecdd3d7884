/**
 * Micrometer meters for {@link io.github.stealpool.WorkStealingPool}: see
 * {@link io.github.stealpool.metrics.WorkStealingPoolMetrics}.
 */
package io.github.stealpool.metrics;
