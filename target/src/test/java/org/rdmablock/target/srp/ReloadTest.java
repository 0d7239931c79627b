package org.rdmablock.target.srp;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmablock.protocol.scsi.LunAddress;
import org.rdmablock.protocol.scsi.ScsiStatus;
import org.rdmablock.target.LogCapture;
import org.rdmablock.target.RunningConfiguration;
import org.rdmablock.target.TargetMain;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rdmablock.target.Waiting.waitUpTo;

/**
 * SIGHUP with a changed file: a LUN added while a session is logged in appears in its REPORT LUNS without the session
 * dropping, and the session's next command gets UNIT ATTENTION, REPORTED LUNS DATA HAS CHANGED, once; removed again,
 * it leaves REPORT LUNS with another unit attention while LUN 0 serves on. Each reload is one line in the log; a file
 * LUN added to a pipeline that "auto" started without backend threads adds a warning.
 */
class ReloadTest {
    private static final String LUNS = """
            [[lun]]
            number = 0
            backend = "memory"
            size = "4MiB"
            """;
    /** A file LUN: the pipeline "auto" chose at start (memory LUNs only: no backend thread) runs it inline. */
    private static final String SECOND = """
            [[lun]]
            number = 2
            path = "lun2.img"
            create = true
            size = "4MiB"
            """;
    private static final String CHANGED_CHANNEL = "[channel]\ncredits = 16\n";

    @Test
    void aLunAddedOrRemovedBySighupIsSeenWithAUnitAttentionAndTheSessionStays(@TempDir final Path dir) throws Exception {
        final int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        final String head = "[listen]\nport = %d\n[target]\nid_ext = \"0x%016x\"\nioc_guid = \"0x%016x\"\n"
                .formatted(port, SrpTargetTest.ID_EXT, SrpTargetTest.IOC_GUID);
        final Path config = dir.resolve("target.toml");
        Files.writeString(config, head + LUNS);
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final TargetMain main = new TargetMain(new PrintStream(out, true), new PrintStream(new ByteArrayOutputStream(), true));
        final LogCapture log = new LogCapture(TargetMain.class, RunningConfiguration.class); // before the start: its warnings too
        final CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> new CommandLine(main).execute("--config", config.toString()));
        try (log) {
            waitUpTo(Duration.ofSeconds(20), "the daemon's banner, or its end")
                    .until(() -> out.toString(StandardCharsets.UTF_8).contains("reach it") || exit.isDone());
            // a JVM started with SIGHUP ignored (nohup) cannot take it: the daemon says so, and there is nothing to test
            org.junit.jupiter.api.Assumptions.assumeFalse(log.lines().stream().anyMatch(l -> l.contains("SIGHUP is ignored")),
                    "SIGHUP is ignored in this test JVM (its parent ran under nohup)");
            assertTrue(out.toString(StandardCharsets.UTF_8).contains("commands and backend calls run on the poller thread"
                    + " (auto: no LUN that blocks)"), out.toString(StandardCharsets.UTF_8));
            try (TestInitiator ini = TestInitiator.login(new InetSocketAddress("127.0.0.1", port), SrpTargetTest.ID_EXT,
                    SrpTargetTest.IOC_GUID, 0x77, 1 << 20)) {
                assertEquals(1, reportedLuns(ini), "one LUN before the reload");

                // a reload that needs a restart is refused whole: nothing changes, no unit attention
                Files.writeString(config, head + CHANGED_CHANNEL + LUNS + SECOND);
                hangUp();
                assertEquals("WARN reload of " + config + " refused: [channel], [pipeline] changed: a restart is needed to"
                        + " apply them (a reload applies only [[lun]], [timeouts] and [[port_group]] states); the running config stays",
                        log.await(l -> l.contains("refused"), Duration.ofSeconds(5)));
                // the file as it was: the next reload (they run one at a time) finds the running config unchanged
                Files.writeString(config, head + LUNS);
                hangUp();
                assertEquals("INFO reload of " + config + ": nothing changed",
                        log.await(l -> l.contains("nothing changed"), Duration.ofSeconds(5)));
                assertEquals(1, reportedLuns(ini), "a reload that changes [channel] is refused");
                assertEquals(ScsiStatus.GOOD, testUnitReady(ini).status(), "no unit attention from a refused reload");

                // the reload's line is logged once the initiators' tables have the new LUN
                Files.writeString(config, head + LUNS + SECOND);
                hangUp();
                assertEquals("INFO reload of " + config + ": LUN 2 added; LUNs now [0, 2] (1 added, 0 reopened, 0 removed)",
                        log.await(l -> l.contains("added"), Duration.ofSeconds(10)));
                // REPORT LUNS reports no unit attention (SAM-5 5.14)
                assertEquals(2, reportedLuns(ini), "the added LUN is reported to the session that stayed logged in");
                assertTrue(log.await(l -> l.startsWith("WARN backend_threads = 0"), Duration.ofSeconds(5))
                        .contains("LUN(s) 2 (file / rocksdb)"), "the added file LUN runs on the poller thread, and the log says so");

                // a reload that changes only [timeouts] brings no LUN: no second warning for LUN 2
                Files.writeString(config, head + "[timeouts]\ncommand = \"20s\"\n" + LUNS + SECOND);
                hangUp();
                log.await(l -> l.contains("timeouts changed"), Duration.ofSeconds(5));
                final TestInitiator.Response ua = testUnitReady(ini);
                assertEquals(ScsiStatus.CHECK_CONDITION, ua.status());
                assertEquals(0x06, ua.sense()[2] & 0x0F, "UNIT ATTENTION");
                assertEquals(0x3F, Byte.toUnsignedInt(ua.sense()[12]), "REPORTED LUNS DATA HAS CHANGED");
                assertEquals(0x0E, Byte.toUnsignedInt(ua.sense()[13]));
                assertEquals(ScsiStatus.GOOD, testUnitReady(ini).status(), "the unit attention is reported once");
                final TestInitiator.Response onNewLun = ini.execute(LunAddress.encode(2), new byte[6], 0, 0, 0, false);
                assertEquals(ScsiStatus.GOOD, onNewLun.status(), "the new LUN serves");

                // removed again: it leaves the table, the reload waits for the pipeline's commands, then closes it
                Files.writeString(config, head + LUNS);
                hangUp();
                assertEquals("INFO reload of " + config + ": LUN 2 removed; timeouts changed; LUNs now [0] (0 added,"
                        + " 0 reopened, 1 removed)", log.await(l -> l.contains("LUN 2 removed"), Duration.ofSeconds(10)));
                assertEquals(1, reportedLuns(ini), "the removed LUN is no longer reported");
                assertEquals(0x06, testUnitReady(ini).sense()[2] & 0x0F, "UNIT ATTENTION for the removal");
                assertEquals(ScsiStatus.GOOD, testUnitReady(ini).status(), "LUN 0 serves on");
                assertEquals(ScsiStatus.CHECK_CONDITION, ini.execute(LunAddress.encode(2), new byte[6], 0, 0, 0, false).status(),
                        "the removed LUN answers LOGICAL UNIT NOT SUPPORTED");
                assertEquals(1, log.lines().stream().filter(l -> l.startsWith("WARN backend_threads")).count(),
                        "one warning: none at start (memory LUNs only), one for the file LUN the reload added");
            }
        } finally {
            main.stop();
        }
        assertEquals(0, exit.get(20, TimeUnit.SECONDS));
    }

    private static void hangUp() throws Exception {
        final Process kill = new ProcessBuilder("kill", "-HUP", Long.toString(ProcessHandle.current().pid())).start();
        assertEquals(0, kill.waitFor());
    }

    private static TestInitiator.Response testUnitReady(final TestInitiator ini) {
        return ini.execute(0, new byte[6], 0, 0, 0, false);
    }

    private static int reportedLuns(final TestInitiator ini) {
        final byte[] cdb = new byte[12];
        cdb[0] = (byte) 0xA0;
        cdb[9] = (byte) 0xFF; // allocation length 255
        final TestInitiator.Response r = ini.execute(0, cdb, 0, 255, 0, false);
        assertEquals(ScsiStatus.GOOD, r.status());
        final int listBytes = ini.buffer().get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), 0);
        assertTrue(listBytes % 8 == 0);
        return listBytes / 8;
    }
}
