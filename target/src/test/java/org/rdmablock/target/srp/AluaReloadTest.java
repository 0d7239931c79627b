package org.rdmablock.target.srp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmablock.protocol.scsi.ScsiStatus;

import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A daemon whose config gives two target ports in two target port groups: both listen, the standby one answers NOT
 * READY, and a reload that swaps the groups' states applies them at once, each path told ASYMMETRIC ACCESS STATE CHANGED
 * once, the ports staying up and the sessions logged in.
 */
class AluaReloadTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int STANDBY = 0x040B;
    private static final int STATE_CHANGED = 0x2A06;

    @TempDir
    Path dir;

    private static String ports(final int second, final String first, final String other) {
        return """
                [[port]]
                id = 2
                address = "%s"
                port = %d
                group = 2
                [[port_group]]
                id = 1
                state = "%s"
                [[port_group]]
                id = 2
                state = "%s"
                [[lun]]
                number = 0
                backend = "memory"
                size = "4MiB"
                """.formatted(TestInitiator.ADDRESS, second, first, other);
    }

    private static TestInitiator.Response testUnitReady(final TestInitiator path) {
        return path.execute(0, new byte[6], 0, 0, 0, false);
    }

    @Test
    void aReloadSwapsTheGroupsStatesAndEachPathIsToldOnce() throws Exception {
        final int second;
        try (ServerSocket free = new ServerSocket(0)) {
            second = free.getLocalPort();
        }
        try (AdminDaemon daemon = AdminDaemon.start(dir, ports(second, "active/optimized", "standby"))) {
            assertTrue(daemon.banner().contains("SRP target port 2: " + TestInitiator.ADDRESS + ":" + second
                    + ", target port group 2 (standby)"), daemon.banner());
            final JsonNode listed = JSON.readTree(AdminDaemon.admin("--socket", daemon.socket.toString(), "--json", "ports").out());
            assertEquals(2, listed.size(), listed.toString());
            assertEquals("standby", listed.get(1).get("state").asText());
            try (TestInitiator first = TestInitiator.login(new InetSocketAddress(TestInitiator.ADDRESS, daemon.port),
                    TargetTestBase.ID_EXT, TargetTestBase.IOC_GUID, 0xB1, 4096);
                 TestInitiator other = TestInitiator.login(new InetSocketAddress(TestInitiator.ADDRESS, second),
                    TargetTestBase.ID_EXT, TargetTestBase.IOC_GUID, 0xB1, 4096)) {
                assertEquals(ScsiStatus.GOOD, testUnitReady(first).status());
                assertEquals(STANDBY, testUnitReady(other).ascAndQualifier(), "port 2 is standby");

                Files.writeString(daemon.config, Files.readString(daemon.config)
                        .replace(ports(second, "active/optimized", "standby"), ports(second, "standby", "active/optimized")));
                final JsonNode reloaded = JSON.readTree(AdminDaemon.admin("--socket", daemon.socket.toString(), "--json", "reload").out());
                assertTrue(reloaded.get("applied").asBoolean(), reloaded.toString());
                assertTrue(reloaded.get("summary").asText().contains("port group 2: standby -> active/optimized"), reloaded.toString());

                for (final TestInitiator path : java.util.List.of(first, other)) {
                    assertEquals(STATE_CHANGED, testUnitReady(path).ascAndQualifier(), "ASYMMETRIC ACCESS STATE CHANGED, once");
                }
                assertEquals(ScsiStatus.GOOD, testUnitReady(other).status(), "port 2 now active/optimized");
                assertEquals(STANDBY, testUnitReady(first).ascAndQualifier(), "port 1 now standby");
            }
        }
    }
}
