package org.rdmablock.target.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmablock.protocol.scsi.BackendStatus;
import org.rdmablock.target.config.LunConfig;
import org.rdmablock.target.config.LunConfig.BackendKind;
import org.rdmablock.verbs.posix.LibC;

/**
 * What a file LUN does for a caller that must not wait (its callback names a {@link DeferredCall}: the poller with
 * blocking-call threads): a read of cached pages and a whole-page write-back write are made at once; a read of pages
 * not in the page cache, a partial-page write, a FUA write and a flush are stashed, not made and not called back, until
 * {@link DeferredCall#run} makes them once the caller says it may wait. A memory LUN never defers.
 */
class DeferredCallTest {
    private static final int POSIX_FADV_DONTNEED = 4;

    @Test
    void aFileLunMakesWhatDoesNotWaitAndDefersTheRest(@TempDir Path dir) throws Throwable {
        LunConfig config = TestLuns.lun(BackendKind.FILE, dir.resolve("lun.img"), 4 << 20, 512);
        try (Arena arena = Arena.ofConfined(); LunBackend backend = BackendFactory.open(config)) {
            MemorySegment written = arena.allocate(1 << 20, 4096);
            MemorySegment read = arena.allocate(1 << 20, 4096);
            DeviceModel.fillPattern(written, 0, 1 << 20, 9);
            Completion done = new Completion();
            backend.write(0, written, 0, 1 << 20, false, done.reset()); // a caller that may wait: made as it comes
            done.assertStatus(BackendStatus.OK, "write by a caller that may wait");

            DeferredCall call = new DeferredCall();
            done.deferringTo(call);
            backend.read(0, read, 0, 64 << 10, done.reset());
            done.assertStatus(BackendStatus.OK, "a read of cached pages, made at once");
            assertFalse(call.pending());
            assertEquals(-1, MemorySegment.mismatch(read, 0, 64 << 10, written, 0, 64 << 10));

            backend.write(8192, written, 8192, 8192, false, done.reset());
            done.assertStatus(BackendStatus.OK, "a whole-page write-back write, made at once");
            assertFalse(call.pending());

            backend.write(512, written, 512, 512, false, done.reset());
            assertDeferred(call, done, "a write of part of a page");
            backend.write(4096, written, 4096, 4096, true, done.reset());
            assertDeferred(call, done, "a FUA write");
            backend.flush(done.reset());
            assertDeferred(call, done, "a flush (fdatasync)");
            backend.unmap(1 << 20, 4096, done.reset());
            assertDeferred(call, done, "an unmap (fallocate)");

            dropFromPageCache(config.path());
            read.fill((byte) 0);
            backend.read(0, read, 0, 64 << 10, done.reset());
            String fileSystem = java.nio.file.Files.getFileStore(config.path()).type();
            Assumptions.assumeFalse(fileSystem.equals("tmpfs") || fileSystem.equals("ramfs"),
                    "a " + fileSystem + " file is always in memory: nothing to defer");
            assertDeferred(call, done, "a read of pages not in the page cache");
            assertEquals(-1, MemorySegment.mismatch(read, 0, 64 << 10, written, 0, 64 << 10), "the deferred read's bytes");
        }
    }

    @Test
    void aMemoryLunNeverDefers() throws Throwable {
        LunConfig config = TestLuns.lun(BackendKind.MEMORY, null, 1 << 20, 512);
        try (Arena arena = Arena.ofConfined(); LunBackend backend = BackendFactory.open(config)) {
            MemorySegment buffer = arena.allocate(8192, 4096);
            DeferredCall call = new DeferredCall();
            Completion done = new Completion().deferringTo(call);
            backend.write(512, buffer, 0, 512, true, done.reset());
            done.assertStatus(BackendStatus.OK, "a partial-page FUA write of memory");
            backend.flush(done.reset());
            done.assertStatus(BackendStatus.OK, "a flush of memory");
            backend.read(0, buffer, 0, 8192, done.reset());
            done.assertStatus(BackendStatus.OK, "a read of memory");
            assertFalse(call.pending());
        }
    }

    /** The call was stashed, not made: no callback yet; run once the caller may wait, it completes once, OK. */
    private static void assertDeferred(DeferredCall call, Completion done, String what) {
        assertTrue(call.pending(), what + ": stashed for a blocking-call thread");
        assertEquals(0, done.calls(), what + ": not called back on the poller");
        done.deferringTo(null); // run() is for a thread that may wait, as the blocking-call threads say before it
        try {
            call.run();
        } finally {
            done.deferringTo(call);
        }
        assertFalse(call.pending());
        done.assertStatus(BackendStatus.OK, what + ", made by run()");
    }

    /** Writes back the file's dirty pages and asks the kernel to drop its cached ones. */
    private static void dropFromPageCache(Path file) throws Throwable {
        Linker linker = Linker.nativeLinker();
        MethodHandle fadvise = linker.downcallHandle(linker.defaultLookup().find("posix_fadvise").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                        ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT));
        int fd = LibC.open(file.toString(), LibC.O_RDWR | LibC.O_CLOEXEC, 0);
        assertTrue(fd >= 0, "open: " + fd);
        try {
            assertEquals(0, LibC.fdatasync(fd), "fdatasync");
            assertEquals(0, (int) fadvise.invokeExact(fd, 0L, 0L, POSIX_FADV_DONTNEED), "posix_fadvise(DONTNEED)");
        } finally {
            LibC.close(fd);
        }
    }
}
