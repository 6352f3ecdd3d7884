package io.github.stealpool.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Where the flight-recorder events cannot be loaded, the pool runs without them: the decision
 * ({@link FlightEventSupport#available}) turns whatever loading them throws into "off" (logged),
 * rather than into an error at every later use. The failures are simulated, as a runtime
 * without {@code jdk.jfr}, a refusing security manager, or a loader out of stack or memory
 * would throw them; and in this JVM, which has the module, the events are on.
 */
class FlightEventSupportTest {

    @Test
    void whateverLoadingTheEventsThrowsTurnsThemOff() {
        List<Throwable> failures = List.of(
                new NoClassDefFoundError("jdk/jfr/Event"),
                new ExceptionInInitializerError(new SecurityException("registerEvent")),
                new SecurityException("access denied (\"jdk.jfr.FlightRecorderPermission\" \"registerEvent\")"),
                new StackOverflowError(),
                new OutOfMemoryError("Metaspace"));
        for (Throwable failure : failures) {
            assertFalse(FlightEventSupport.available(() -> {
                throw sneaky(failure);
            }), failure::toString);
        }
        assertTrue(FlightEventSupport.available(() -> { }));
    }

    @Test
    void theEventsAreOnWhereTheModuleIsThere() {
        assertTrue(ModuleLayer.boot().findModule("jdk.jfr").isPresent());
        assertTrue(FlightEventSupport.AVAILABLE);
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> RuntimeException sneaky(Throwable t) throws T {
        throw (T) t;
    }
}
