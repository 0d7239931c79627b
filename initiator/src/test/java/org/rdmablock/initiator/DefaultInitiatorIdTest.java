package org.rdmablock.initiator;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two programs on one host (a mount and a bench) are two initiators by default: their port ids differ, so the second
 * one's SINGLE login does not end the first one's session. A second JVM prints its default id.
 */
class DefaultInitiatorIdTest {
    @Test
    void twoProcessesOnOneHostGetTwoInitiatorPortIds() throws Exception {
        final Process other = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-cp",
                System.getProperty("java.class.path"), PrintDefaultId.class.getName()).redirectErrorStream(true).start();
        final String printed = new String(other.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertTrue(other.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, other.exitValue(), printed);
        final String[] ids = printed.split(" ");
        final InitiatorConfig mine = InitiatorConfig.of("soft", "127.0.0.1", 5555);
        assertEquals(Long.toHexString(mine.initiatorIdHigh()), ids[0], "the host's half is the same: " + printed);
        assertNotEquals(Long.toHexString(mine.initiatorIdLow()), ids[1], "each process its own: " + printed);
    }

    /** Prints the default initiator port id's halves, in hex: what another program on this host would log in with. */
    public static final class PrintDefaultId {
        private PrintDefaultId() {
        }

        public static void main(final String[] args) {
            final InitiatorConfig config = InitiatorConfig.of("soft", "127.0.0.1", 5555);
            System.out.println(Long.toHexString(config.initiatorIdHigh()) + " " + Long.toHexString(config.initiatorIdLow()));
        }
    }
}
