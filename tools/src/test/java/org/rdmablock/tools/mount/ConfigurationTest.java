package org.rdmablock.tools.mount;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The mount's system properties keep the names and defaults that scripts and the benchmark records use, and each
 * accessor reads its property when called.
 */
class ConfigurationTest {
    @Test
    void namesAndDefaults() {
        assertEquals("rdmablock.mount.registerFuseBuffers", Configuration.REGISTER_FUSE_BUFFERS_PROP_NAME);
        assertTrue(Configuration.REGISTER_FUSE_BUFFERS_DEFAULT);
        assertEquals("rdmablock.mount.turnParkNanos", Configuration.TURN_PARK_NANOS_PROP_NAME);
        assertEquals(1_000_000L, Configuration.TURN_PARK_NANOS_DEFAULT);
    }

    @Test
    void registerFuseBuffersReadsItsProperty() {
        withProperty(Configuration.REGISTER_FUSE_BUFFERS_PROP_NAME, null,
                () -> assertTrue(Configuration.registerFuseBuffers(), "unset: the default"));
        withProperty(Configuration.REGISTER_FUSE_BUFFERS_PROP_NAME, "false",
                () -> assertFalse(Configuration.registerFuseBuffers()));
        withProperty(Configuration.REGISTER_FUSE_BUFFERS_PROP_NAME, "true",
                () -> assertTrue(Configuration.registerFuseBuffers()));
    }

    @Test
    void turnParkNanosReadsItsProperty() {
        withProperty(Configuration.TURN_PARK_NANOS_PROP_NAME, null,
                () -> assertEquals(Configuration.TURN_PARK_NANOS_DEFAULT, Configuration.turnParkNanos()));
        withProperty(Configuration.TURN_PARK_NANOS_PROP_NAME, "250000",
                () -> assertEquals(250_000L, Configuration.turnParkNanos()));
        withProperty(Configuration.TURN_PARK_NANOS_PROP_NAME, "soon",
                () -> assertEquals(Configuration.TURN_PARK_NANOS_DEFAULT, Configuration.turnParkNanos(), "not a number"));
    }

    /** Runs {@code check} with the property set to {@code value} (null: unset), then puts back what was there. */
    private static void withProperty(final String name, final String value, final Runnable check) {
        final String before = System.getProperty(name);
        try {
            if (value == null) {
                System.clearProperty(name);
            } else {
                System.setProperty(name, value);
            }
            check.run();
        } finally {
            if (before == null) {
                System.clearProperty(name);
            } else {
                System.setProperty(name, before);
            }
        }
    }
}
