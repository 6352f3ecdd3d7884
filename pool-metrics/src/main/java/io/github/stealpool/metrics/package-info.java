/**
 * Micrometer meters for {@code WorkStealingPool}. The binder arrives with the metrics issue;
 * this module already fixes the coordinates and the dependency on micrometer-core.
 */
package io.github.stealpool.metrics;
