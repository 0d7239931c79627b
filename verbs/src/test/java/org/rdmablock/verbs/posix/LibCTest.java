package org.rdmablock.verbs.posix;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hand-linked C calls report errno as a negative result: also pread and pwrite, which learn it by repeating a
 * failed call through a handle that captures errno.
 */
class LibCTest {
    @Test
    void failedReadsAndWritesReportTheirErrno(@TempDir Path dir) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buffer = arena.allocate(4096);
            assertEquals(-LibC.EBADF, LibC.pread(-1, buffer.address(), 4096, 0), "pread of no descriptor");
            int readOnly = LibC.open(dir.resolve("f").toString(), LibC.O_RDWR | LibC.O_CREAT, 0600);
            assertTrue(readOnly >= 0, LibC.describe(-readOnly));
            LibC.close(readOnly);
            int fd = LibC.open(dir.resolve("f").toString(), LibC.O_RDONLY, 0);
            assertEquals(-LibC.EBADF, LibC.pwrite(fd, buffer.address(), 4096, 0), "pwrite to a descriptor opened read-only");
            assertEquals(-LibC.EINVAL, LibC.pread(fd, buffer.address(), 4096, -1), "pread at a negative offset");
            assertEquals(0, LibC.pread(fd, buffer.address(), 4096, 0), "pread at the end of an empty file");
            assertEquals(0, LibC.close(fd));
            assertEquals(-LibC.EBADF, LibC.close(fd), "a second close");
        }
    }

    @Test
    void openReportsWhyItFailedByName(@TempDir Path dir) {
        int fd = LibC.open(dir.resolve("missing").resolve("f").toString(), LibC.O_RDWR, 0);
        assertEquals(-2, fd);
        assertEquals("ENOENT: no such file or directory (errno 2)", LibC.describe(-fd));
        assertEquals("error (errno 200)", LibC.describe(200));
    }
}
