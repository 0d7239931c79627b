package org.rdmablock.tools.soak;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rdmablock.target.CommandLines;
import org.rdmablock.tools.mount.MountPoint;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The soak's short run (issue 41 asks for one in {@code bin/test}): 14 s of verified I/O from two writers through the
 * initiator library and one through the FUSE volume against a daemon restarted every 5 s (SIGKILL, then SIGTERM):
 * exit 0, every block read back as written, the restarts and the reconnections they caused counted in the CSV, I/O
 * through the mount, the daemon and the mount sampled while up, the chart drawn, the mount gone at the end. Needs
 * fuse3 (bin/test installs it when run as root).
 */
class SoakCommandTest {
    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void aShortSoakRidesOutTheRestartsAndReadsEveryBlockBack(@TempDir final Path dir) throws IOException {
        final Path png = dir.resolve("soak.png");
        final int exit = CommandLines.of(new SoakCommand(), "rdmablock soak").execute("--duration", "14s", "--restart-every", "5s",
                "--sample-every", "1s", "--writers", "2", "--fuse-writers", "1", "--blocks", "64", "--dir", dir.toString(), "--chart", png.toString());
        assertEquals(0, exit, "the soak's exit status (3: a verify error)");
        final List<String> rows = Files.readAllLines(dir.resolve("soak.csv"));
        assertEquals(SoakCommand.CSV_HEADER, rows.getFirst());
        assertTrue(rows.size() >= 8, "a row each second: " + rows.size());
        final String[] last = rows.getLast().split(",");
        final List<String> columns = List.of(SoakCommand.CSV_HEADER.split(","));
        assertEquals("0", last[columns.indexOf("verify_errors")]);
        assertEquals(2, Integer.parseInt(last[columns.indexOf("restarts")]), "restarted at 5 s and 10 s");
        assertTrue(Long.parseLong(last[columns.indexOf("reconnects")]) >= 2, "the initiator logged in again after each restart");
        assertTrue(Long.parseLong(last[columns.indexOf("writes")]) > 0, "writes acknowledged");
        assertTrue(Long.parseLong(last[columns.indexOf("fuse_writes")]) > 0, "writes acknowledged through the mount");
        assertTrue(Long.parseLong(last[columns.indexOf("fuse_reads")]) > 0, "reads checked through the mount");
        assertTrue(rows.stream().skip(1).anyMatch(r -> Long.parseLong(r.split(",")[columns.indexOf("daemon_threads")]) > 0),
                "the daemon sampled while up");
        assertTrue(rows.stream().skip(1).anyMatch(r -> Long.parseLong(r.split(",")[columns.indexOf("mount_threads")]) > 0),
                "the mount sampled while up");
        assertEquals(MountPoint.State.FREE, MountPoint.probe(dir.resolve("mnt")), "unmounted at the end");
        final byte[] magic = {(byte) 0x89, 'P', 'N', 'G'};
        final byte[] head = new byte[4];
        System.arraycopy(Files.readAllBytes(png), 0, head, 0, 4);
        assertArrayEquals(magic, head, "the chart is a PNG");
    }
}
