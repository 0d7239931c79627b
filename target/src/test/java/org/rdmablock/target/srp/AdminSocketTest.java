package org.rdmablock.target.srp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmablock.target.admin.AdminEndpoint;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.rdmablock.target.Waiting.waitUpTo;

/**
 * The management socket of a running daemon, end to end through {@code rdmablock admin}: status, LUNs and sessions
 * (with an initiator logged in), as tables and as JSON; an unknown verb; the socket's mode; the daemon's config naming
 * the socket; a client of another user refused (where this test runs as root and can start one); the socket gone
 * when the daemon stops.
 */
class AdminSocketTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    @TempDir
    Path dir;
    private AdminDaemon daemon;

    @BeforeEach
    void start() throws Exception {
        daemon = AdminDaemon.start(dir, """
                [[lun]]
                number = 0
                backend = "memory"
                size = "4MiB"
                """);
        assertTrue(daemon.banner().contains("admin: " + daemon.socket), daemon.banner());
    }

    @AfterEach
    void stop() throws Exception {
        daemon.close();
        assertFalse(Files.exists(daemon.socket), "the socket goes with the daemon");
    }

    private static AdminDaemon.Run admin(final String... args) {
        return AdminDaemon.admin(args);
    }

    @Test
    void statusLunsAndSessionsAnswerAsTablesAndJson() throws Exception {
        assertEquals(PosixFilePermissions.fromString("rw-------"), Files.getPosixFilePermissions(daemon.socket));
        final AdminDaemon.Run status = admin("--socket", daemon.socket.toString(), "status");
        assertEquals(0, status.exit(), status.err());
        assertTrue(status.out().lines().anyMatch(l -> l.matches("port\\s+" + daemon.port)), status.out());
        assertTrue(status.out().lines().anyMatch(l -> l.matches("luns\\s+1")), status.out());

        final JsonNode luns = JSON.readTree(admin("--config", daemon.config.toString(), "--json", "luns").out());
        assertEquals(1, luns.size(), luns.toString());
        assertEquals(0, luns.get(0).get("number").asInt());
        assertEquals("memory", luns.get(0).get("backend").asText());
        assertEquals(4L << 20, luns.get(0).get("sizeBytes").asLong());

        assertEquals("(none)", admin("--socket", daemon.socket.toString(), "sessions").out().strip(), "no initiator yet");
        try (TestInitiator ini = TestInitiator.login(new java.net.InetSocketAddress(TestInitiator.ADDRESS, daemon.port),
                TargetTestBase.ID_EXT, TargetTestBase.IOC_GUID, 0xAD, 4096)) {
            assertEquals(org.rdmablock.protocol.scsi.ScsiStatus.GOOD, ini.execute(0, new byte[6], 0, 0, 0, false).status());
            final JsonNode sessions = JSON.readTree(admin("--socket", daemon.socket.toString(), "--json", "sessions").out());
            assertEquals(1, sessions.size(), sessions.toString());
            assertEquals("00000000000000ad0000000000000001", sessions.get(0).get("initiator").asText());
            assertEquals(1, sessions.get(0).get("channels").asInt());
            assertTrue(sessions.get(0).get("address").asText().contains(TestInitiator.ADDRESS), sessions.toString());
            final AdminDaemon.Run table = admin("--socket", daemon.socket.toString(), "sessions");
            assertTrue(table.out().startsWith("INITIATOR"), table.out());
            assertTrue(table.out().contains("00000000000000ad0000000000000001"), table.out());
        }
    }

    @Test
    void logoutSendsTheSessionsChannelsSrpTLogout() throws Exception {
        try (TestInitiator ini = TestInitiator.login(new java.net.InetSocketAddress(TestInitiator.ADDRESS, daemon.port),
                TargetTestBase.ID_EXT, TargetTestBase.IOC_GUID, 0xAE, 4096)) {
            final AdminDaemon.Run done = admin("--socket", daemon.socket.toString(), "logout", "00000000000000ae0000000000000001");
            assertEquals(0, done.exit(), done.err());
            assertTrue(done.out().lines().anyMatch(l -> l.matches("channels\\s+1")), done.out());
            final TestInitiator.Response logout = ini.awaitResponse();
            assertEquals(org.rdmablock.protocol.srp.SrpOpcode.T_LOGOUT, logout.opcode());
            assertEquals(org.rdmablock.protocol.srp.SrpTargetLogout.REASON_NONE, logout.logoutReason());
            waitUpTo(Duration.ofSeconds(10), "the session gone")
                    .until(() -> JSON.readTree(admin("--socket", daemon.socket.toString(), "--json", "sessions").out()).isEmpty());
        }
        final AdminDaemon.Run none = admin("--socket", daemon.socket.toString(), "logout", "00000000000000ae0000000000000001");
        assertEquals(1, none.exit());
        assertEquals("rdmablock admin: initiator 00000000000000ae0000000000000001 has no channel logged in (JSON-RPC error "
                + AdminEndpoint.INVALID_PARAMS + ")", none.err().strip());
        assertEquals(1, admin("--socket", daemon.socket.toString(), "logout", "0xAE").exit(), "not 32 hex digits");
    }

    @Test
    void reloadAppliesTheFileAsSighupDoesAndSaysWhat() throws Exception {
        final AdminDaemon.Run unchanged = admin("--socket", daemon.socket.toString(), "reload");
        assertEquals(0, unchanged.exit(), unchanged.err());
        assertTrue(unchanged.out().lines().anyMatch(l -> l.matches("applied\\s+false")), unchanged.out());
        assertTrue(unchanged.out().lines().anyMatch(l -> l.matches("summary\\s+nothing changed")), unchanged.out());

        Files.writeString(daemon.config, Files.readString(daemon.config) + "[[lun]]\nnumber = 1\nbackend = \"null\"\nsize = \"1MiB\"\n");
        final JsonNode added = JSON.readTree(admin("--socket", daemon.socket.toString(), "--json", "reload").out());
        assertTrue(added.get("applied").asBoolean(), added.toString());
        assertTrue(added.get("summary").asText().startsWith("LUN 1 added; LUNs now [0, 1]"), added.toString());
        assertEquals(2, JSON.readTree(admin("--socket", daemon.socket.toString(), "--json", "luns").out()).size());

        Files.writeString(daemon.config, Files.readString(daemon.config).replace("[channel]", "") + "[channel]\ncredits = 8\n");
        final AdminDaemon.Run refused = admin("--socket", daemon.socket.toString(), "reload");
        assertEquals(0, refused.exit(), refused.err());
        assertTrue(refused.out().contains("refused: [channel]") && refused.out().contains("changed: a restart is needed"),
                refused.out());
        assertTrue(refused.out().lines().anyMatch(l -> l.matches("applied\\s+false")), refused.out());
    }

    @Test
    void aPortIsListedTakenDownAndBroughtUp() throws Exception {
        final JsonNode ports = JSON.readTree(admin("--socket", daemon.socket.toString(), "--json", "ports").out());
        assertEquals(1, ports.size(), ports.toString());
        assertEquals(1, ports.get(0).get("id").asInt());
        assertEquals(daemon.port, ports.get(0).get("port").asInt());
        assertEquals("active/optimized", ports.get(0).get("state").asText());
        assertTrue(ports.get(0).get("listening").asBoolean());
        try (TestInitiator ini = TestInitiator.login(new java.net.InetSocketAddress(TestInitiator.ADDRESS, daemon.port),
                TargetTestBase.ID_EXT, TargetTestBase.IOC_GUID, 0xAF, 4096)) {
            final AdminDaemon.Run down = admin("--socket", daemon.socket.toString(), "port", "down", "1");
            assertEquals(0, down.exit(), down.err());
            assertTrue(down.out().lines().anyMatch(l -> l.matches("disconnected\\s+1")), down.out());
            waitUpTo(Duration.ofSeconds(10), "the session gone")
                    .until(() -> JSON.readTree(admin("--socket", daemon.socket.toString(), "--json", "sessions").out()).isEmpty());
        }
        final AdminDaemon.Run again = admin("--socket", daemon.socket.toString(), "port", "down", "1");
        assertEquals(1, again.exit());
        assertEquals("rdmablock admin: target port 1 is down already (JSON-RPC error " + AdminEndpoint.INVALID_PARAMS + ")",
                again.err().strip());
        assertEquals(0, admin("--socket", daemon.socket.toString(), "port", "up", "1").exit());
        try (TestInitiator ini = TestInitiator.login(new java.net.InetSocketAddress(TestInitiator.ADDRESS, daemon.port),
                TargetTestBase.ID_EXT, TargetTestBase.IOC_GUID, 0xAF, 4096)) {
            assertEquals(org.rdmablock.protocol.scsi.ScsiStatus.GOOD, ini.execute(0, new byte[6], 0, 0, 0, false).status(),
                    "listening again, on the same port");
        }
        assertEquals(1, admin("--socket", daemon.socket.toString(), "port", "up", "7").exit(), "no port 7");
        assertEquals(2, admin("--socket", daemon.socket.toString(), "port", "sideways", "1").exit(), "not down or up");
    }

    @Test
    void anUnknownVerbAndAMissingSocketAreOneLineEach() {
        final AdminDaemon.Run unknown = admin("--socket", daemon.socket.toString(), "reboot");
        assertEquals(1, unknown.exit());
        assertEquals("rdmablock admin: no method reboot; the methods are status, luns, sessions, reload, logout, ports,"
                + " port.down, port.up, lun.add, lun.remove, lun.resize, lun.set, apply, save (JSON-RPC error "
                + AdminEndpoint.METHOD_NOT_FOUND + ")", unknown.err().strip());
        final AdminDaemon.Run nowhere = admin("--socket", dir.resolve("none.sock").toString(), "status");
        assertEquals(1, nowhere.exit());
        assertTrue(nowhere.err().startsWith("rdmablock admin: cannot reach the daemon at " + dir.resolve("none.sock")),
                nowhere.err());
        assertEquals(1, nowhere.err().strip().lines().count(), nowhere.err());
        assertEquals(2, admin("status").exit(), "no socket named");
    }

    @Test
    void aClientOfAnotherUserIsRefused() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "only root can start a client as another user");
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setpriv")) && Files.isExecutable(Path.of("/usr/bin/python3")),
                "setpriv and python3 start the other user's client");
        // let the other user reach the daemon.socket file: the daemon's own mode would stop it before its credentials are read
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
        Files.setPosixFilePermissions(daemon.socket, PosixFilePermissions.fromString("rw-rw-rw-"));
        final Process client = new ProcessBuilder("/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                "/usr/bin/python3", "-c", "import socket,sys\ns=socket.socket(socket.AF_UNIX)\ns.connect(sys.argv[1])\n"
                + "s.sendall(b'{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"status\"}\\n')\nprint(s.makefile().readline())",
                daemon.socket.toString()).redirectErrorStream(true).start();
        final String answer = new String(client.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(client.waitFor(20, TimeUnit.SECONDS));
        assertTrue(answer.startsWith("{"), "the other user's client got no answer: " + answer);
        final JsonNode response = JSON.readTree(answer);
        assertEquals(AdminEndpoint.NOT_ALLOWED, response.path("error").path("code").asInt(), answer);
        assertFalse(response.has("result"), answer);
    }
}
