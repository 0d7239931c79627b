package org.rdmablock.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.function.Supplier;

import org.junit.jupiter.api.Test;

/**
 * The soft provider's settings keep their names and defaults (scripts and docs pass them with {@code -D}), and each
 * accessor reads its property. Properties set here are cleared again; the provider's classes read theirs when they
 * are initialised, which has happened before or happens with the property unset.
 */
class ConfigurationTest {
    @Test
    void namesAndDefaultsAreThoseTheProviderHasAlwaysRead() {
        final boolean big = Runtime.getRuntime().availableProcessors() > 4;
        assertEquals("rdmablock.soft.address", Configuration.ADDRESS_PROP_NAME);
        assertEquals("127.0.0.1", Configuration.ADDRESS_DEFAULT);
        assertEquals("rdmablock.soft.crc", Configuration.CRC_PROP_NAME);
        assertTrue(Configuration.CRC_DEFAULT);
        assertEquals("rdmablock.soft.agents", Configuration.AGENTS_PROP_NAME);
        assertEquals(big ? 2 : 1, Configuration.AGENTS_DEFAULT);
        assertEquals("rdmablock.soft.agentSpins", Configuration.AGENT_SPINS_PROP_NAME);
        assertEquals(big ? 2000 : 0, Configuration.AGENT_SPINS_DEFAULT);
        assertEquals("rdmablock.soft.rxStaging", Configuration.RX_STAGING_PROP_NAME);
        assertEquals(64 * 1024, Configuration.RX_STAGING_DEFAULT);
        assertEquals("rdmablock.soft.headerFirstMin", Configuration.HEADER_FIRST_MIN_PROP_NAME);
        assertEquals(16 * 1024, Configuration.HEADER_FIRST_MIN_DEFAULT);
        assertEquals("rdmablock.soft.txStaging", Configuration.TX_STAGING_PROP_NAME);
        assertEquals(128 * 1024, Configuration.TX_STAGING_DEFAULT);
        assertEquals("rdmablock.soft.maxSegment", Configuration.MAX_SEGMENT_PROP_NAME);
        assertEquals(64 * 1024 - 128, Configuration.MAX_SEGMENT_DEFAULT);
        assertEquals("rdmablock.soft.pollProgress", Configuration.POLL_PROGRESS_PROP_NAME);
        assertTrue(Configuration.POLL_PROGRESS_DEFAULT);
        assertEquals("rdmablock.soft.directProgressQps", Configuration.DIRECT_PROGRESS_QPS_PROP_NAME);
        assertEquals(2, Configuration.DIRECT_PROGRESS_QPS_DEFAULT);
        assertEquals("rdmablock.soft.ackTimeout", Configuration.ACK_TIMEOUT_PROP_NAME);
        assertEquals(18, Configuration.ACK_TIMEOUT_DEFAULT);
        assertEquals("rdmablock.soft.dumpStateSeconds", Configuration.DUMP_STATE_SECONDS_PROP_NAME);
        assertEquals(0, Configuration.DUMP_STATE_SECONDS_DEFAULT);
    }

    @Test
    void unsetPropertiesGiveTheDefaults() throws Exception {
        assertEquals(Configuration.AGENTS_DEFAULT, with(Configuration.AGENTS_PROP_NAME, null, Configuration::agents));
        assertEquals(Configuration.MAX_SEGMENT_DEFAULT, with(Configuration.MAX_SEGMENT_PROP_NAME, null, Configuration::maxSegment));
        assertEquals(Configuration.CRC_DEFAULT, with(Configuration.CRC_PROP_NAME, null, Configuration::crcRequested));
        assertEquals(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}), with(Configuration.ADDRESS_PROP_NAME, null, Configuration::address));
    }

    @Test
    void eachAccessorReadsItsProperty() throws Exception {
        assertEquals(3, with(Configuration.AGENTS_PROP_NAME, "3", Configuration::agents));
        assertEquals(7, with(Configuration.AGENT_SPINS_PROP_NAME, "7", Configuration::agentSpins));
        assertEquals(4096, with(Configuration.RX_STAGING_PROP_NAME, "4096", Configuration::rxStaging));
        assertEquals(Integer.MAX_VALUE, with(Configuration.HEADER_FIRST_MIN_PROP_NAME, "2147483647", Configuration::headerFirstMin));
        assertEquals(8192, with(Configuration.TX_STAGING_PROP_NAME, "8192", Configuration::txStaging));
        assertEquals(1000, with(Configuration.MAX_SEGMENT_PROP_NAME, "1000", Configuration::maxSegment));
        assertEquals(5, with(Configuration.DIRECT_PROGRESS_QPS_PROP_NAME, "5", Configuration::directProgressQps));
        assertEquals(0, with(Configuration.ACK_TIMEOUT_PROP_NAME, "0", Configuration::ackTimeout));
        assertEquals(30, with(Configuration.DUMP_STATE_SECONDS_PROP_NAME, "30", Configuration::dumpStateSeconds));
        assertFalse(with(Configuration.CRC_PROP_NAME, "false", Configuration::crcRequested));
        assertFalse(with(Configuration.POLL_PROGRESS_PROP_NAME, "no", Configuration::pollProgress), "only \"true\" is true");
        assertTrue(with(Configuration.POLL_PROGRESS_PROP_NAME, "TRUE", Configuration::pollProgress));
        assertEquals(InetAddress.getByAddress(new byte[] {127, 0, 0, 2}),
            with(Configuration.ADDRESS_PROP_NAME, "127.0.0.2", Configuration::address));
    }

    @Test
    void aNumberThatDoesNotParseFallsBackToTheDefaultAndABadAddressIsRefused() {
        assertEquals(Configuration.ACK_TIMEOUT_DEFAULT, with(Configuration.ACK_TIMEOUT_PROP_NAME, "soon", Configuration::ackTimeout));
        assertThrows(IllegalArgumentException.class,
            () -> with(Configuration.ADDRESS_PROP_NAME, "no-such-host.invalid", Configuration::address));
    }

    /** {@code read} with {@code name} set to {@code value} (null: unset), then the property as it was. */
    private static <T> T with(final String name, final String value, final Supplier<T> read) {
        final String saved = System.getProperty(name);
        try {
            if (value == null) {
                System.clearProperty(name);
            } else {
                System.setProperty(name, value);
            }
            return read.get();
        } finally {
            if (saved == null) {
                System.clearProperty(name);
            } else {
                System.setProperty(name, saved);
            }
        }
    }
}
