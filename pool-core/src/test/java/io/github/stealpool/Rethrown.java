package io.github.stealpool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Test helper: the pool rethrows a failure from another thread as a new throwable of the same
 * class, built in the joining thread, with the original as its cause (as ForkJoinTask does), and
 * a failure from the same thread as itself.
 */
final class Rethrown {

    private Rethrown() {
    }

    /**
     * Asserts that {@code thrown} is {@code original} rethrown: the same object, or a chain of
     * copies, each of exactly the same class and message, whose causes lead to {@code original}
     * (one copy for each thread the failure crossed on its way to the caller). Returns
     * {@code original}, which carries any suppressed failures.
     */
    static <T extends Throwable> T assertRethrown(T original, Throwable thrown) {
        if (thrown == null) {
            fail("nothing thrown, expected " + original);
        }
        int hops = 0;
        for (Throwable t = thrown; t != original; t = t.getCause(), hops++) {
            if (t == null || hops > 8) {
                fail("the causes of " + thrown + " do not lead to " + original);
            }
            assertSame(original.getClass(), t.getClass(), "a rethrown failure keeps its class");
            assertEquals(original.getMessage(), t.getMessage(), "and its message");
        }
        return original;
    }
}
