package io.github.stealpool;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The idle strategy: each phase (spin, yield, park) happens exactly as configured. A pool of one
 * worker is deterministic here: it goes idle at start and after each task, and nobody else
 * posts work, so each idle spell is exactly the configured rounds, then one park.
 */
class IdleStrategyTest {

    private static final Duration HANG = Duration.ofSeconds(60);

    @Test
    void spinsThenYieldsThenParks() throws Exception {
        assertIdleSpells(IdleStrategy.backoff(3, 2), 3, 2);
    }

    @Test
    void spinsOnlyThenParks() throws Exception {
        assertIdleSpells(IdleStrategy.backoff(4, 0), 4, 0);
    }

    @Test
    void yieldsOnlyThenParks() throws Exception {
        assertIdleSpells(IdleStrategy.backoff(0, 3), 0, 3);
    }

    @Test
    void parksAtOnce() throws Exception {
        assertIdleSpells(IdleStrategy.backoff(0, 0), 0, 0);
    }

    @Test
    void theStandardStrategyParksAfterItsSearches() throws Exception {
        assertEquals(IdleStrategy.backoff(0, 0), IdleStrategy.standard());
        assertIdleSpells(IdleStrategy.standard(), 0, 0);
    }

    @Test
    void badCountsAreRefusedByName() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> IdleStrategy.backoff(-1, 0));
        assertTrue(e.getMessage().contains("spinRounds"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> IdleStrategy.backoff(0, -2));
        assertTrue(e.getMessage().contains("yieldRounds"), e.getMessage());
        NullPointerException npe = assertThrows(NullPointerException.class,
                () -> WorkStealingPool.builder().idleStrategy(null));
        assertTrue(npe.getMessage().contains("idleStrategy"), npe.getMessage());
    }

    @Test
    void strategiesAreValues() {
        assertEquals(IdleStrategy.backoff(2, 1), IdleStrategy.backoff(2, 1));
        assertEquals(IdleStrategy.backoff(2, 1).hashCode(), IdleStrategy.backoff(2, 1).hashCode());
        assertNotEquals(IdleStrategy.backoff(2, 1), IdleStrategy.backoff(1, 2));
        assertNotEquals(IdleStrategy.standard(), IdleStrategy.backoff(8, 0));
        assertEquals("IdleStrategy.backoff(2, 1)", IdleStrategy.backoff(2, 1).toString());
    }

    /**
     * One worker: idle at start (one spell), then after each of two tasks (two more): each spell
     * is {@code spins} spin rounds, {@code yields} yield rounds and one park.
     */
    private static void assertIdleSpells(IdleStrategy strategy, int spins, int yields) throws Exception {
        try (WorkStealingPool pool = WorkStealingPool.builder().parallelism(1).daemon(true)
                .idleStrategy(strategy).build()) {
            for (int spell = 1; spell <= 3; spell++) {
                if (spell > 1) {
                    Future<?> f = pool.submit(() -> { });
                    f.get(HANG.toSeconds(), TimeUnit.SECONDS);
                }
                long parks = spell;
                await().atMost(HANG).until(() -> pool.idleRounds()[2] == parks && pool.sleepingWorkers() == 1);
                assertArrayEquals(new long[] {spins * parks, yields * parks, parks}, pool.idleRounds(),
                        "spin rounds, yield rounds, parks after " + spell + " idle spells");
            }
        }
    }
}
