/**
 * Micrometer meters for a stealpool {@code WorkStealingPool}.
 *
 * <p>Both modules it requires are part of its API ({@code monitor} takes a
 * {@code MeterRegistry} and a {@code WorkStealingPool}), hence {@code transitive}. Micrometer
 * 1.17 is an automatic module (named by its manifest), which javac warns about: nothing to
 * do about it here until Micrometer ships a module descriptor.
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module io.github.stealpool.metrics {
    requires transitive io.github.stealpool;
    requires transitive micrometer.core;

    exports io.github.stealpool.metrics;
}
