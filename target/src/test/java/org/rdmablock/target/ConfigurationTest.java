package org.rdmablock.target;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The target's system properties: their names as documented, their defaults, and a set value read back. */
class ConfigurationTest {
    @Test
    void defaultsWhenUnset() {
        assertEquals(200, Configuration.pollerSpins());
        assertEquals(20, Configuration.pollerEventSpins());
        assertEquals(0, Configuration.stageSpinMicros());
        assertEquals(0, Configuration.stageYieldMicros());
        assertTrue(Configuration.inPlace());
    }

    @Test
    void readsWhatIsSet() {
        try {
            System.setProperty("rdmablock.poller.spins", "7");
            System.setProperty("rdmablock.pipeline.stageSpinMicros", "30");
            System.setProperty("rdmablock.pipeline.stageYieldMicros", "10");
            System.setProperty("rdmablock.target.inPlace", "false");
            assertEquals(7, Configuration.pollerSpins());
            assertEquals(30, Configuration.stageSpinMicros());
            assertEquals(30, Configuration.stageYieldMicros(), "never less than the spin");
            assertFalse(Configuration.inPlace());
        } finally {
            System.clearProperty("rdmablock.poller.spins");
            System.clearProperty("rdmablock.pipeline.stageSpinMicros");
            System.clearProperty("rdmablock.pipeline.stageYieldMicros");
            System.clearProperty("rdmablock.target.inPlace");
        }
    }
}
