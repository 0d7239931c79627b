package org.rdmablock.target.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmablock.protocol.scsi.BackendStatus;
import org.rdmablock.target.config.LunConfig;
import org.rdmablock.target.config.LunConfig.BackendKind;

/** The backend contract for a sparse file with buffered I/O, and what only a file does: holes and a short file. */
class FileBackendTest extends BackendContractTest {
    @Override
    BackendKind kind() {
        return BackendKind.FILE;
    }

    @Test
    void aNewFileIsSparseAndUnmapPunchesHolesInIt(@TempDir Path dir) throws Exception {
        LunConfig config = TestLuns.lun(BackendKind.FILE, dir.resolve("big.img"), 1L << 30, 4096);
        try (LunBackend backend = BackendFactory.open(config)) {
            assertEquals(1L << 30, Files.size(config.path()), "the file is created at the configured size");
            assertTrue(allocatedBytes(config.path()) < (64 << 10), "a new 1 GiB LUN allocates nothing: " + allocatedBytes(config.path()));
            Completion done = new Completion();
            DeviceModel.fillPattern(buffer, 0, 1 << 20, 1);
            backend.write(0, buffer, 0, 1 << 20, false, done.reset());
            done.assertStatus(BackendStatus.OK, "write of 1 MiB");
            backend.flush(done.reset());
            done.assertStatus(BackendStatus.OK, "flush");
            long written = allocatedBytes(config.path());
            assertTrue(written >= 1 << 20, "1 MiB written allocates it: " + written);
            backend.unmap(0, 1 << 20, done.reset());
            done.assertStatus(BackendStatus.OK, "unmap of the 1 MiB");
            long punched = allocatedBytes(config.path());
            assertTrue(punched < written - (512 << 10), "unmap gave the space back: " + written + " -> " + punched);
            assertEquals(1L << 30, Files.size(config.path()), "a punched file keeps its size");
        }
    }

    @Test
    void readsPastTheEndOfAFileShortenedBehindTheLunsBackReturnZeroes(@TempDir Path dir) throws Exception {
        LunConfig config = TestLuns.lun(BackendKind.FILE, dir.resolve("lun.img"), 1 << 20, 4096);
        try (LunBackend backend = BackendFactory.open(config)) {
            Completion done = new Completion();
            DeviceModel.fillPattern(buffer, 0, 1 << 20, 5);
            backend.write(0, buffer, 0, 1 << 20, false, done.reset());
            done.assertStatus(BackendStatus.OK, "write of the whole LUN");
            try (RandomAccessFile file = new RandomAccessFile(config.path().toFile(), "rw")) {
                file.setLength(6000); // ends inside the second block
            }
            readBuffer.fill((byte) 0x77);
            backend.read(4096, readBuffer, 0, 3 * 4096, done.reset());
            done.assertStatus(BackendStatus.OK, "read across the new end of the file");
            assertEquals(-1, java.lang.foreign.MemorySegment.mismatch(readBuffer, 0, 6000 - 4096, buffer, 4096, 6000), "the bytes still in the file");
            for (long i = 6000 - 4096; i < 3 * 4096; i++) {
                assertEquals(0, readBuffer.get(java.lang.foreign.ValueLayout.JAVA_BYTE, i), "byte " + i + " past the end");
            }
        }
    }

    /** Bytes the file system allocated to the file ({@code stat %b}, 512-byte units). */
    static long allocatedBytes(Path file) throws IOException, InterruptedException {
        Process stat = new ProcessBuilder("stat", "-c", "%b", file.toString()).redirectErrorStream(true).start();
        String out = new String(stat.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
        assertEquals(0, stat.waitFor(), "stat: " + out);
        return Long.parseLong(out) * 512;
    }
}
