package org.rdmablock.tools.mount;

import com.sun.nio.file.ExtendedOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rdmablock.initiator.InitiatorConfig;
import org.rdmablock.initiator.SrpInitiator;
import org.rdmablock.tools.session.EmbeddedTarget;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A volume mounted in this process on a memory LUN: what is written through {@code lun0.img}, at aligned and unaligned
 * offsets, in pieces smaller than a block and larger than a request, is what a second session reads from the LUN's
 * blocks directly, byte for byte at the same offsets; and reads back the same through the mount.
 */
class VolumeTest {
    private static final long LUN_BYTES = 8L << 20;
    private static final int BLOCK = 512;

    @TempDir
    Path dir;

    @Test
    @Timeout(120)
    void bytesWrittenThroughTheFileAreTheLunsBytesAtTheSameOffsets() throws Exception {
        final FuseRequirements.Found fuse = FuseRequirements.check(FuseRequirements.SYSTEM, null);
        assertTrue(fuse.ok(), "this test needs FUSE on the machine (bin/test installs fuse3 when run as root): " + fuse.problems());
        try (EmbeddedTarget target = EmbeddedTarget.start("memory", LUN_BYTES, null, "soft");
             SrpInitiator mounting = SrpInitiator.connect(session(target, 1));
             SrpInitiator direct = SrpInitiator.connect(session(target, 2))) {
            final Path mnt = Files.createDirectories(dir.resolve("mnt"));
            final byte[] model = new byte[(int) LUN_BYTES];
            try (Volume volume = Volume.mount(mounting, mnt, 4, fuse.library())) {
                final Path file = mnt.resolve("lun0.img");
                try (Stream<Path> listing = Files.list(mnt)) {
                    assertEquals(List.of(file), listing.toList());
                }
                assertEquals(LUN_BYTES, Files.size(file));
                final Random random = new Random(12);
                try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                    final long[][] writes = {
                            {0, 4096},                          // aligned
                            {9 * BLOCK, BLOCK},                 // one block
                            {20 * BLOCK + 100, 1000},           // starts and ends inside blocks
                            {3 * BLOCK + 7, 10},                // inside one block
                            {(1 << 20) - BLOCK, (1 << 20) + 1027}, // more than one request, unaligned end
                            {LUN_BYTES - 700, 700},             // the last bytes
                    };
                    for (final long[] w : writes) {
                        final byte[] bytes = new byte[(int) w[1]];
                        random.nextBytes(bytes);
                        final ByteBuffer src = ByteBuffer.wrap(bytes);
                        while (src.hasRemaining()) {
                            channel.write(src, w[0] + src.position());
                        }
                        System.arraycopy(bytes, 0, model, (int) w[0], bytes.length);
                    }
                    channel.force(true); // fsync: SYNCHRONIZE CACHE
                    final IOException full = assertThrows(IOException.class, () -> channel.write(ByteBuffer.wrap(new byte[1]), LUN_BYTES));
                    assertTrue(full.getMessage().contains("No space left"), full.getMessage());
                    assertThrows(IOException.class, () -> channel.truncate(4096)); // the size is the LUN's
                }
                // O_DIRECT: aligned buffer, offset and length, past the kernel's page cache; 1 MiB arrives as one request
                try (FileChannel odirect = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE,
                        ExtendedOpenOption.DIRECT)) {
                    final ByteBuffer aligned = ByteBuffer.allocateDirect((1 << 20) + 4096).alignedSlice(4096);
                    final byte[] bytes = new byte[1 << 20];
                    random.nextBytes(bytes);
                    aligned.put(0, bytes);
                    assertEquals(8192, odirect.write(aligned.slice(0, 8192), 4L << 20));
                    System.arraycopy(bytes, 0, model, 4 << 20, 8192);
                    assertEquals(1 << 20, odirect.write(aligned, 6L << 20));
                    System.arraycopy(bytes, 0, model, 6 << 20, 1 << 20);
                    assertEquals(1 << 20, volume.largestRequest(), "1 MiB requests arrive (max_write)");
                }
                assertEquals(LUN_BYTES, Files.size(file));

                final MemorySegment blocks = direct.allocateBuffer(LUN_BYTES);
                direct.lun(0).readBlocking(0, LUN_BYTES / BLOCK, blocks, 0);
                assertSameBytes(model, blocks.toArray(ValueLayout.JAVA_BYTE), "the LUN read directly");
                assertSameBytes(model, Files.readAllBytes(file), "the file read back through the mount");
                assertTrue(volume.threadsSeen() >= 1 && volume.threadsSeen() <= 4, "threads " + volume.threadsSeen());
            }
        }
    }

    private static InitiatorConfig session(final EmbeddedTarget target, final long initiatorLow) {
        // two sessions from one host to one target need two initiator port ids (a login ends its id's other session)
        return InitiatorConfig.of("soft", EmbeddedTarget.ADDRESS, target.address().getPort())
                .withTargetPortId(target.idExt(), target.idExt())
                .withInitiatorPortId(0x0272_0000_5654_4553L, initiatorLow);
    }

    private static void assertSameBytes(final byte[] expected, final byte[] actual, final String what) {
        assertEquals(expected.length, actual.length, what + ": length");
        for (int i = 0; i < expected.length; i++) {
            if (expected[i] != actual[i]) {
                fail(what + ": byte " + i + " (LBA " + i / BLOCK + ", byte " + i % BLOCK + ") is " + actual[i] + ", written "
                        + expected[i]);
            }
        }
    }
}
