package org.rdmablock.target.srp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmablock.protocol.scsi.LunAddress;
import org.rdmablock.protocol.scsi.ScsiStatus;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rdmablock.target.Waiting.waitUpTo;

/**
 * The management socket's changing verbs against a running daemon while an initiator writes and reads LUN 0 without
 * pause: a resize, write protection on and off, a LUN added for another initiator and then for all, a LUN removed;
 * the initiator sees no error, only the unit attention of each change (CAPACITY DATA HAS CHANGED, MODE PARAMETERS
 * CHANGED, REPORTED LUNS DATA HAS CHANGED), and every block it reads back is the one it wrote. Then the dry runs, the
 * refusals (a shrink not forced, a LUN that is not there) and save, whose file the next reload finds unchanged.
 */
class AdminLunVerbsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long INITIATOR = 0xC1;
    private static final String OTHER = "00000000000000c20000000000000001";
    private static final int BLOCKS = 8;
    private static final int BYTES = BLOCKS * 512;
    private static final int READ_AT = 1 << 16;

    /** Each test's daemon serves LUN 0, a 4 MiB file. */
    private static final String LUN_0 = """
            [[lun]]
            number = 0
            path = "lun0.img"
            create = true
            size = "4MiB"
            """;

    @TempDir
    Path dir;
    /** The test's daemon, which its try closes. */
    private AdminDaemon daemon;

    private AdminDaemon started() throws Exception {
        daemon = AdminDaemon.start(dir, LUN_0);
        return daemon;
    }

    private AdminDaemon.Run admin(final String... args) {
        return daemon.ask(args);
    }

    private AdminDaemon.Run ok(final String... args) {
        final AdminDaemon.Run run = admin(args);
        assertEquals(0, run.exit(), String.join(" ", args) + ": " + run.err() + run.out());
        return run;
    }

    /** Writes and reads back LUN 0 until stopped, retrying what a unit attention answered, as an initiator does. */
    private static final class Traffic implements Runnable {
        final TestInitiator ini;
        final AtomicBoolean stop = new AtomicBoolean();
        final Set<Integer> attentions = ConcurrentHashMap.newKeySet();
        final List<String> errors = new CopyOnWriteArrayList<>();
        final AtomicLong verified = new AtomicLong();
        final AtomicLong writeProtected = new AtomicLong();

        Traffic(final TestInitiator ini) {
            this.ini = ini;
        }

        @Override
        public void run() {
            final MemorySegment buffer = ini.buffer();
            for (long round = 0; !stop.get(); round++) {
                final long lba = (round * BLOCKS) % (4 << 20) / 512;
                for (int i = 0; i < BYTES; i += 8) {
                    buffer.set(ValueLayout.JAVA_LONG_UNALIGNED, i, round * 1_000_003 + i);
                }
                final TestInitiator.Response written = retried(TestInitiator.write16(lba, BLOCKS), BYTES, 0, 0);
                if (written == null) {
                    return;
                }
                if (written.status() == ScsiStatus.CHECK_CONDITION && written.senseKey() == 0x07) {
                    writeProtected.incrementAndGet(); // DATA PROTECT: the LUN is read-only now; read what is there
                    continue;
                }
                if (written.status() != ScsiStatus.GOOD) {
                    errors.add("write at " + lba + ": " + written);
                    return;
                }
                final TestInitiator.Response read = retried(TestInitiator.read16(lba, BLOCKS), 0, BYTES, READ_AT);
                if (read == null) {
                    return;
                }
                if (read.status() != ScsiStatus.GOOD) {
                    errors.add("read at " + lba + ": " + read);
                    return;
                }
                if (buffer.asSlice(0, BYTES).mismatch(buffer.asSlice(READ_AT, BYTES)) != -1) {
                    errors.add("read at " + lba + " is not what was written");
                    return;
                }
                verified.incrementAndGet();
            }
        }

        /** The command, again after each unit attention (recorded); null after an error. */
        private TestInitiator.Response retried(final byte[] cdb, final int out, final int in, final long offset) {
            for (int attempt = 0; attempt < 10; attempt++) {
                final TestInitiator.Response r;
                try {
                    r = ini.execute(LunAddress.encode(0), cdb, out, in, offset, false);
                } catch (RuntimeException e) {
                    errors.add(e.toString());
                    return null;
                }
                if (r.status() != ScsiStatus.CHECK_CONDITION || r.senseKey() != 0x06) {
                    return r;
                }
                attentions.add(r.ascAndQualifier());
            }
            errors.add("ten unit attentions in a row");
            return null;
        }
    }

    @Test
    void everyVerbTakesEffectUnderIoWithItsUnitAttentionAndNoError() throws Exception {
        try (AdminDaemon running = started()) {
            try (TestInitiator ini = TestInitiator.login(new InetSocketAddress(TestInitiator.ADDRESS, daemon.port), TargetTestBase.ID_EXT,
                    TargetTestBase.IOC_GUID, INITIATOR, 1 << 20)) {
                final Traffic traffic = new Traffic(ini);
                final Thread io = Thread.ofPlatform().name("admin-test-io").start(traffic);
                try {
                    waitUpTo(Duration.ofSeconds(10), "traffic").until(() -> traffic.verified.get() > 10 || !io.isAlive());

                    final AdminDaemon.Run grown = ok("lun", "resize", "0", "8MiB");
                    assertTrue(grown.out().contains("LUN 0 changed in place: resized from 4194304 to 8388608 bytes"), grown.out());
                    waitUpTo(Duration.ofSeconds(10), "CAPACITY DATA HAS CHANGED")
                            .until(() -> traffic.attentions.contains(0x2A09) || !io.isAlive());
                    assertEquals(8L << 20, Files.size(dir.resolve("lun0.img")));

                    final long protectedBefore = traffic.writeProtected.get();
                    ok("lun", "set", "0", "--read-only");
                    waitUpTo(Duration.ofSeconds(10), "MODE PARAMETERS CHANGED and a write refused")
                            .until(() -> traffic.attentions.contains(0x2A01) && traffic.writeProtected.get() > 0 || !io.isAlive());
                    assertEquals(0, protectedBefore, "no write was refused before the LUN was made read-only");
                    ok("lun", "set", "0", "--writable");
                    final long verifiedThen = traffic.verified.get();
                    waitUpTo(Duration.ofSeconds(10), "writes again").until(() -> traffic.verified.get() > verifiedThen + 10
                            || !io.isAlive());

                    ok("lun", "add", "1", "backend=null", "size=1MiB", "allowed_initiators=[" + OTHER + "]");
                    ok("lun", "set", "1", "--any-initiator");
                    waitUpTo(Duration.ofSeconds(10), "REPORTED LUNS DATA HAS CHANGED")
                            .until(() -> traffic.attentions.contains(0x3F0E) || !io.isAlive());
                    traffic.attentions.remove(0x3F0E);
                    ok("lun", "remove", "1");
                    waitUpTo(Duration.ofSeconds(10), "REPORTED LUNS DATA HAS CHANGED again")
                            .until(() -> traffic.attentions.contains(0x3F0E) || !io.isAlive());
                    final long verifiedAtEnd = traffic.verified.get();
                    waitUpTo(Duration.ofSeconds(10), "more traffic").until(() -> traffic.verified.get() > verifiedAtEnd + 10
                            || !io.isAlive());
                } finally {
                    traffic.stop.set(true);
                    io.join(10_000);
                }
                assertEquals(List.of(), traffic.errors, "the initiator saw no error");
                assertEquals(Set.of(0x2A09, 0x2A01, 0x3F0E), traffic.attentions, "and only these unit attentions");
                final TestInitiator.Response capacity = ini.execute(LunAddress.encode(0),
                        Cdb.of(16, 0x9E).u8(1, 0x10).u32(10, 32).bytes(), 0, 32, 0, false);
                assertEquals(ScsiStatus.GOOD, capacity.status());
                assertEquals((8L << 20) / 512 - 1, ini.buffer().get(ValueLayout.JAVA_LONG_UNALIGNED.withOrder(
                        java.nio.ByteOrder.BIG_ENDIAN), 0), "READ CAPACITY(16) reports the new size");
            }
        }
    }

    @Test
    void dryRunsRefusalsAndSave() throws Exception {
        try (AdminDaemon running = started()) {
            final AdminDaemon.Run dry = ok("lun", "resize", "0", "16MiB", "--dry-run");
            assertTrue(dry.out().lines().anyMatch(l -> l.matches("dryRun\\s+true")), dry.out());
            assertTrue(dry.out().contains("LUN 0 changed in place: resized from 4194304 to 16777216 bytes"), dry.out());
            assertEquals(4L << 20, Files.size(dir.resolve("lun0.img")), "a dry run changes nothing");

            final AdminDaemon.Run shrink = admin("lun", "resize", "0", "2MiB");
            assertEquals(1, shrink.exit());
            assertTrue(shrink.err().contains("LUN 0 would shrink from 4194304 to 2097152 bytes, cutting off its end: refused"
                    + " unless forced"), shrink.err());
            assertEquals(1, shrink.err().strip().lines().count(), "one line: " + shrink.err());
            final AdminDaemon.Run missing = admin("lun", "remove", "9");
            assertEquals(1, missing.exit());
            assertTrue(missing.err().startsWith("rdmablock admin: no LUN 9; the LUNs are [0]"), missing.err());
            final AdminDaemon.Run badKey = admin("lun", "add", "2", "size=1MiB", "backend=memroy");
            assertEquals(1, badKey.exit());
            assertTrue(badKey.err().contains("backend"), badKey.err());
            final AdminDaemon.Run noFolder = admin("lun", "add", "2", "size=1MiB", "path=nowhere/lun2.img", "create=true");
            assertEquals(1, noFolder.exit());
            assertTrue(noFolder.err().contains("the target makes no folder"), noFolder.err());
            assertEquals(1, JSON.readTree(ok("--json", "luns").out()).size(), "nothing was added");
            final AdminDaemon.Run digits = ok("lun", "add", "4", "path=2024", "create=true", "size=1MiB", "--dry-run");
            assertTrue(digits.out().contains("LUN 4 added"), "a path of digits is a path: " + digits.out());
            assertEquals(2, admin("lun", "add", "4", "number=5", "size=1MiB").exit(), "the number is given once");

            final String before = daemon.text;
            ok("lun", "add", "3", "backend=memory", "size=2MiB", "read_only=true");
            final AdminDaemon.Run saved = ok("save");
            assertTrue(saved.out().contains("target.toml.bak"), saved.out());
            assertEquals(before, Files.readString(dir.resolve("target.toml.bak")), "the previous file, comments and all");
            final String written = Files.readString(daemon.config);
            assertTrue(written.contains("number = 3") && written.contains("read_only = true"), written);
            final JsonNode reload = JSON.readTree(ok("--json", "reload").out());
            assertEquals("nothing changed", reload.get("summary").asText(), "the file saved is the configuration running");

            // apply: the file as it was, less LUN 3; a dry run first
            final Path desired = dir.resolve("desired.toml");
            Files.writeString(desired, before);
            final AdminDaemon.Run plan = ok("apply", desired.toString(), "--dry-run");
            assertTrue(plan.out().contains("LUN 3 removed"), plan.out());
            assertEquals(2, JSON.readTree(ok("--json", "luns").out()).size(), "a dry run applies nothing");
            final AdminDaemon.Run applied = ok("apply", desired.toString());
            assertTrue(applied.out().lines().anyMatch(l -> l.matches("applied\\s+true")), applied.out());
            assertEquals(1, JSON.readTree(ok("--json", "luns").out()).size());

            Files.writeString(desired, before.replace("port = " + daemon.port, "port = " + (daemon.port + 1)));
            final AdminDaemon.Run restart = admin("apply", desired.toString());
            assertEquals(1, restart.exit());
            assertTrue(restart.err().contains("[listen] changed: a restart is needed"), restart.err());
        }
    }

    @Test
    void aTimeoutChangedAppliesToTheSessionsAlreadyRunning() throws Exception {
        try (AdminDaemon running = started();
             TestInitiator ini = TestInitiator.login(new InetSocketAddress(TestInitiator.ADDRESS, daemon.port),
                     TargetTestBase.ID_EXT, TargetTestBase.IOC_GUID, INITIATOR, 4096)) {
            assertEquals(ScsiStatus.GOOD, ini.execute(0, new byte[6], 0, 0, 0, false).status(), "the pipeline runs");
            final Path desired = dir.resolve("desired.toml");
            Files.writeString(desired, daemon.text + "[timeouts]\nidle = \"1s\"\n");
            final AdminDaemon.Run applied = ok("apply", desired.toString());
            assertTrue(applied.out().contains("timeouts changed"), applied.out());
            final TestInitiator.Response logout = ini.awaitResponse();
            assertEquals(org.rdmablock.protocol.srp.SrpOpcode.T_LOGOUT, logout.opcode(), "idle past the new limit");
            assertEquals(org.rdmablock.protocol.srp.SrpTargetLogout.REASON_INACTIVE_CHANNEL, logout.logoutReason());
        }
    }
}
