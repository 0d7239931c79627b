package org.rdmablock.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The I/O agents' idle strategy: so many idle cycles polling, then a park in the selector; work starts it over. */
class SelectorIdleStrategyTest {
    /** Counts parks and answers each with the work given. */
    private static final class CountingPark implements SelectorIdleStrategy.Park {
        int parks;
        int work;

        @Override
        public int park() {
            parks++;
            return work;
        }
    }

    @Test
    void spinsTheGivenIdleCyclesThenParksOnEveryIdleCycle() {
        final CountingPark park = new CountingPark();
        final SelectorIdleStrategy strategy = new SelectorIdleStrategy(3, park);
        for (int i = 0; i < 3; i++) {
            assertFalse(strategy.parking(), "cycle " + i + " still spins");
            strategy.idle(0);
        }
        assertEquals(0, park.parks, "no park while spinning");
        assertTrue(strategy.parking());
        strategy.idle(0);
        strategy.idle(0);
        assertEquals(2, park.parks, "each idle cycle after the spins parks");
    }

    @Test
    void workResetsTheSpinsAndSoDoesWorkFoundWhileParked() {
        final CountingPark park = new CountingPark();
        final SelectorIdleStrategy strategy = new SelectorIdleStrategy(2, park);
        strategy.idle(0);
        strategy.idle(0);
        assertTrue(strategy.parking());
        strategy.idle(5);
        assertFalse(strategy.parking(), "work done spins again");
        strategy.idle(0);
        strategy.idle(0);
        park.work = 1;
        strategy.idle(0);
        assertEquals(1, park.parks);
        assertFalse(strategy.parking(), "a park that handled ready channels spins again");
        strategy.idle();
        strategy.idle();
        strategy.reset();
        assertFalse(strategy.parking(), "reset");
    }

    @Test
    void noSpinsParksOnTheFirstIdleCycleAndNegativeSpinsAreRefused() {
        final CountingPark park = new CountingPark();
        final SelectorIdleStrategy strategy = new SelectorIdleStrategy(0, park);
        assertTrue(strategy.parking());
        strategy.idle(0);
        assertEquals(1, park.parks);
        park.work = 3;
        strategy.idle(0);
        assertTrue(strategy.parking(), "with no spins it parks again after work");
        assertEquals("selector", strategy.alias());
        assertThrows(IllegalArgumentException.class, () -> new SelectorIdleStrategy(-1, park));
    }
}
