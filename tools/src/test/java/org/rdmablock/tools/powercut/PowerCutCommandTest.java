package org.rdmablock.tools.powercut;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rdmablock.target.CommandLines;
import org.rdmablock.target.TargetMain;
import org.rdmablock.tools.verify.VerifiedBlock;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The journal's rules, and the tool end to end against a daemon in this JVM: what was written verifies; a block rolled
 * back to an older generation behind the daemon's back (what a lost write looks like) is found and named.
 */
class PowerCutCommandTest {
    private static final int BLOCK = 512;

    @TempDir
    Path dir;

    @Test
    void writeBackBlocksAreDurableOnlyAfterFuaOrASynchronizeCache() throws IOException {
        final Path file = dir.resolve("wb.journal");
        Files.writeString(file, """
                lun 1 blocks 4 policy write-back
                P 0 1
                W 0 1 0
                P 1 2
                W 1 2 1
                S
                P 0 3
                W 0 3 0
                P 2 4
                W 2 4 0
                P 3 5
                """);
        final PowerCutJournal.Replay r = PowerCutJournal.Replay.read(file);
        assertArrayEquals(new long[] {3, 2, 4, 5}, r.sent());
        assertArrayEquals(new long[] {1, 2, 0, 0}, r.durable(), "before the sync, FUA; after it, nothing not synced");
        assertEquals(4, r.acknowledged());
        assertEquals(1, r.syncs());
    }

    @Test
    void writeThroughBlocksAreDurableOnceAcknowledgedAndATornLastLineIsLeftOut() throws IOException {
        final Path file = dir.resolve("wt.journal");
        Files.writeString(file, "lun 0 blocks 2 policy write-through\nP 0 1\nW 0 1 0\nP 1 2\nW 1 2 0\nP 0 3\nW 0 3");
        final PowerCutJournal.Replay r = PowerCutJournal.Replay.read(file);
        assertArrayEquals(new long[] {1, 2}, r.durable(), "the torn \"W 0 3\" is not an acknowledgement");
        assertArrayEquals(new long[] {3, 2}, r.sent());
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void whatWasWrittenVerifiesAndABlockRolledBackIsFound() throws Exception {
        final int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        final Path config = dir.resolve("target.toml");
        final Path image = dir.resolve("lun0.img");
        Files.writeString(config, """
                [listen]
                address = "127.0.0.1"
                port = %d
                [[lun]]
                number = 0
                path = "%s"
                create = true
                size = "1MiB"
                block_size = %d
                write_cache = "write-through"
                [[lun]]
                number = 1
                path = "%s"
                create = true
                size = "1MiB"
                block_size = %d
                write_cache = "write-back"
                """.formatted(port, image, BLOCK, dir.resolve("lun1.img"), BLOCK));
        final Path journal = dir.resolve("journal");
        final String target = "127.0.0.1:" + port;
        Daemon daemon = Daemon.start(config);
        assertEquals(0, powercut("write", "--target", target, "--journal", journal.toString(), "--lun", "0:write-through,1:write-back",
                "--blocks", "32", "--duration", "2s"));
        assertTrue(Files.exists(journal.resolve(PowerCutCommand.WRITING)), "the marker the harness cuts the power after");
        assertEquals(0, powercut("verify", "--target", target, "--journal", journal.toString()));
        daemon.stop();

        // block 5 of LUN 0 rolled back to generation 5 (written long before), as if the last writes there were lost
        final PowerCutJournal.Replay before = PowerCutJournal.Replay.read(journal.resolve("lun-0.journal"));
        assertTrue(before.durable()[5] > 5, "block 5 was written more than once: " + before.durable()[5]);
        try (Arena arena = Arena.ofConfined(); FileChannel c = FileChannel.open(image, StandardOpenOption.WRITE)) {
            final MemorySegment block = arena.allocate(BLOCK);
            VerifiedBlock.fill(block, BLOCK, 5, 6);
            c.write(block.asByteBuffer(), 5L * BLOCK);
        }
        daemon = Daemon.start(config);
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final PrintStream stdout = System.out;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        final int exit;
        try {
            exit = powercut("verify", "--target", target, "--journal", journal.toString());
        } finally {
            System.setOut(stdout);
            daemon.stop();
        }
        assertEquals(PowerCutCommand.EXIT_LOST, exit);
        final String report = out.toString(StandardCharsets.UTF_8);
        assertTrue(report.contains("LUN 0 (write-through):") && report.contains("1 lost or broken (first: block 5 holds generation 6,"),
                report);
        assertTrue(report.contains("LUN 1 (write-back):") && report.contains("; 0 lost or broken"), report);
    }

    private static int powercut(final String... args) {
        return CommandLines.of(new PowerCutCommand(), "rdmablock powercut").execute(args);
    }

    /** The daemon in this JVM on a config file. */
    private record Daemon(TargetMain main, CompletableFuture<Integer> exit) {
        static Daemon start(final Path config) {
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            final TargetMain main = new TargetMain(new PrintStream(out, true), System.err);
            final CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> new CommandLine(main).execute("--config", config.toString()));
            await("the daemon's banner, or its end").atMost(Duration.ofSeconds(30))
                    .until(() -> out.toString(StandardCharsets.UTF_8).contains("reach it") || exit.isDone());
            assertTrue(out.toString(StandardCharsets.UTF_8).contains("reach it"), "the daemon's banner: " + out);
            return new Daemon(main, exit);
        }

        void stop() throws Exception {
            main.stop();
            assertEquals(0, exit.get(30, TimeUnit.SECONDS));
        }
    }
}
