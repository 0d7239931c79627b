package org.rdmablock.target.backend;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmablock.protocol.scsi.BackendStatus;
import org.rdmablock.target.config.LunConfig.BackendKind;
import org.rdmablock.target.config.LunConfig.WriteCachePolicy;
import org.rdmablock.verbs.posix.LibC;

/**
 * The backend contract for a file opened O_DIRECT (4096-byte blocks only), and its alignment rule: a misaligned
 * buffer is refused with INTERNAL_ERROR, not bounced. Skipped where the temporary directory's file system refuses
 * O_DIRECT (tmpfs on older kernels).
 */
class FileBackendDirectIoTest extends BackendContractTest {
    @Override
    BackendKind kind() {
        return BackendKind.FILE;
    }

    @Override
    boolean directIo() {
        return true;
    }

    @Override
    Stream<Integer> blockSizes() {
        return Stream.of(FileBackend.DIRECT_IO_ALIGNMENT);
    }

    @BeforeAll
    void fileSystemSupportsDirectIo() throws Exception {
        Path dir = Files.createTempDirectory("direct-io-probe");
        Path probe = dir.resolve("probe");
        int fd = LibC.open(probe.toString(), LibC.O_RDWR | LibC.O_CREAT | LibC.O_DIRECT, 0600);
        if (fd >= 0) {
            LibC.close(fd);
        }
        Files.deleteIfExists(probe);
        Files.delete(dir);
        assumeTrue(fd >= 0, "O_DIRECT refused in " + dir.getParent() + ": " + (fd < 0 ? LibC.describe(-fd) : ""));
    }

    @Test
    void misalignedBuffersAndRangesAreRefused(@TempDir Path dir) {
        try (LunBackend backend = BackendFactory.open(config(dir, 4096, WriteCachePolicy.WRITE_BACK))) {
            Completion done = new Completion();
            backend.write(0, buffer, 512, 4096, false, done.reset());
            done.assertStatus(BackendStatus.INTERNAL_ERROR, "write from a buffer address 512 past 4096 alignment");
            backend.read(0, buffer, 8, 4096, done.reset());
            done.assertStatus(BackendStatus.INTERNAL_ERROR, "read into a misaligned buffer address");
            backend.read(512, buffer, 0, 4096, done.reset());
            done.assertStatus(BackendStatus.INTERNAL_ERROR, "read at a misaligned device offset");
            backend.write(0, buffer, 0, 1024, false, done.reset());
            done.assertStatus(BackendStatus.INTERNAL_ERROR, "write of a misaligned length");
            backend.write(0, buffer, 4096, 4096, false, done.reset());
            done.assertStatus(BackendStatus.OK, "aligned write");
        }
    }
}
