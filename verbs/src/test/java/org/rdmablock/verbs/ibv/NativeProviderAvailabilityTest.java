package org.rdmablock.verbs.ibv;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.File;

import org.junit.jupiter.api.Test;
import org.rdmablock.verbs.NoRdmaDeviceException;
import org.rdmablock.verbs.VerbsProvider;

/**
 * On a host without RDMA devices (or without rdma-core), the native provider says so clearly and {@code auto}
 * falls back to the soft provider. Where a device exists, the conformance suite runs the native provider.
 */
class NativeProviderAvailabilityTest {
    private static boolean hostHasRdmaDevices() {
        final String[] devices = new File("/sys/class/infiniband").list();
        return devices != null && devices.length > 0;
    }

    @Test
    void withoutAnRdmaDeviceNativeReportsNoDeviceAndAutoFallsBackToSoft() {
        assumeFalse(hostHasRdmaDevices(), "this host has RDMA devices");
        try (VerbsProvider provider = VerbsProvider.load("native")) {
            assertEquals("native", provider.name());
            assertFalse(provider.isAvailable());
            final NoRdmaDeviceException e = assertThrows(NoRdmaDeviceException.class, provider::devices);
            assertTrue(e.getMessage().startsWith("no RDMA device"), e.getMessage());
        }
        try (VerbsProvider provider = VerbsProvider.load("auto")) {
            assertEquals("soft", provider.name());
        }
    }
}
