package org.rdmablock.target.srp;

import org.rdmablock.target.core.DeviceResources;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * {@link ScsiCommandsTest} again with {@code backend_threads = 0}: the poller thread runs the intake stage and every
 * command itself (there is no ring and no backend stage to hand it to, so a command the poller did not run would
 * never be answered).
 */
class InlineBackendTest extends ScsiCommandsTest {
    @Override
    int backendThreads() {
        return 0;
    }

    @Test
    void theCompletionPollerThreadRunsTheCommands() {
        verifiedWriteAndRead(ini, 8, 8, 0x31);
        assertEquals(DeviceResources.POLLER_THREAD_NAME, lun0Gate.lastCommandThread, "the thread that ran the READ(16)");
    }
}
