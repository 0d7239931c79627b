package org.rdmablock.target.backend;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.rdmablock.protocol.scsi.BackendStatus;
import org.rdmablock.target.config.LunConfig;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.posix.LibC;

/**
 * A LUN in a sparse file (or a block device), with positional I/O through the C library: pread into and pwrite from
 * the caller's native buffer, with no copy and no allocation. Runs each operation on the calling backend thread and
 * completes it before returning; several threads may call at once (pread and pwrite need no lock).
 *
 * <p>Opening: a missing file is created at the configured size as a sparse file (mode 0600) only when the config says
 * {@code create = true}, and never its folder; an existing empty file is then sized the same way (it holds nothing).
 * An existing file of another size is refused, since it is more likely the wrong file than one to resize silently: a
 * smaller one is extended only with {@code grow = true}, a larger one never (it would hide data past the end). A
 * read-only LUN opens its file O_RDONLY and never creates or grows it.
 *
 * <p>Durability: in write-through every write goes to a descriptor opened with O_DSYNC, so it is durable when pwrite
 * returns (one system call, and the kernel syncs only the written range; measured as fast as pwrite plus fdatasync).
 * In write-back, writes go to the page cache; a FUA write uses a second, O_DSYNC descriptor, and {@link #flush}
 * calls fdatasync. Once an fdatasync has failed every later flush fails too: Linux reports a write-back error once
 * per descriptor and drops the pages, so a later fdatasync that succeeds proves nothing about the earlier data.
 *
 * <p>UNMAP punches holes ({@code fallocate(PUNCH_HOLE | KEEP_SIZE)}); where the file system cannot, it writes zeroes.
 * Unmapped ranges, and reads past the end of a file shortened behind the LUN's back, read as zeroes.
 *
 * <p>With {@code directIo} (O_DIRECT) the page cache is bypassed, and every buffer address, device offset and length
 * must be a multiple of {@link #DIRECT_IO_ALIGNMENT}, the LUN's block size must be 4096, and the file system must
 * support O_DIRECT (tmpfs may not). A misaligned operation is a bug in the caller (the target's buffers are
 * 4096-aligned and its I/O is in 4096-byte blocks): it completes with {@code INTERNAL_ERROR} instead of being
 * bounced through an aligned copy.
 *
 * <p>{@link InPlaceStorage}, reads only: the file is also mapped read-only (shared, so it shows what pwrite wrote);
 * on the soft provider the target sends a READ's data straight from the mapping when every page of it is in the page
 * cache (mincore), so the bytes leave the cache once instead of being pread into a data buffer first. A read of
 * pages not cached goes through pread as before (a fault on the mapping would wait on the disk on the sending
 * thread). Writes are never placed: a fault on a page of a sparse or copy-on-write file may need blocks the file
 * system has not got, answered with SIGBUS. Not with O_DIRECT. The file must not be shortened while it is served:
 * a page beyond the end reads as absent (copied through pread, zeroes), but one cut off between the check and the
 * send faults, and the soft provider then fails the connection.
 */
public final class FileBackend extends AbstractLunBackend implements InPlaceStorage {
    /** Alignment O_DIRECT is held to: 4096 bytes, the largest logical block size of common devices. */
    public static final int DIRECT_IO_ALIGNMENT = 4096;
    /** Permissions of a file the backend creates: the owner's only, as a LUN holds someone's data. */
    static final int CREATE_MODE = 0600;
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(FileBackend.class);

    private final boolean directIo;
    /** Reads can be tried without waiting (preadv2 RWF_NOWAIT works on the file; never with O_DIRECT, which waits on the device). */
    private final boolean readsWithoutWaiting;
    /** Reads, unmaps, fdatasync, and writes that need not be durable at once. */
    private final int fd;
    /** O_DSYNC: writes durable when pwrite returns. The same as {@link #fd} in write-through and when read-only. */
    private final int syncFd;
    private volatile boolean syncFailed;
    private volatile boolean punchUnsupported;
    private volatile int lastLoggedErrno;
    /** Owns {@link #mapping}: closing it unmaps. */
    private final Arena arena = Arena.ofShared();
    /** The file mapped read-only for reads in place; null with O_DIRECT or when mapping failed. */
    private final MemorySegment mapping;
    private final MappingRegistrations registrations;

    private FileBackend(LunConfig config, int fd, int syncFd) {
        super(config);
        this.directIo = config.directIo();
        this.fd = fd;
        this.syncFd = syncFd;
        this.readsWithoutWaiting = !directIo && LibC.supportsReadNoWait(fd);
        this.mapping = directIo ? null : map(fd, sizeBytes);
        this.registrations = mapping == null ? null : new MappingRegistrations(logName(), mapping, 0);
    }

    /** The first {@code size} bytes of the file mapped read-only, or null (logged) when the file cannot be mapped. */
    private MemorySegment map(int descriptor, long size) {
        long address = LibC.mapFileReadOnly(descriptor, size);
        if (address < 0) {
            LOG.info("{}: cannot map the file ({}); reads copy through the target's buffers", logName(),
                    LibC.describe((int) -address));
            return null;
        }
        return MemorySegment.ofAddress(address).reinterpret(size, arena, m -> LibC.unmapMemory(m.address(), size)).asReadOnly();
    }

    @Override
    public MemoryRegion regionIn(ProtectionDomain pd) {
        return registrations == null ? null : registrations.regionIn(pd);
    }

    @Override
    public void releaseRegionIn(ProtectionDomain pd) {
        if (registrations != null) {
            registrations.release(pd);
        }
    }

    @Override
    public boolean placesWrites() {
        return false;
    }

    @Override
    public boolean readsInPlace(long deviceOffset, long length, MemorySegment scratch) {
        if (mapping == null || length > mapping.byteSize() - deviceOffset) {
            return false; // a LUN grown while served: the mapping holds only the size it was opened with
        }
        return LibC.resident(mapping.address() + deviceOffset, length, scratch);
    }

    /** Whether the caller's buffer is the mapping at the same place: a READ placed there has its data already. */
    private boolean inPlace(long deviceOffset, MemorySegment buffer, long bufferOffset) {
        return mapping != null && buffer.address() + bufferOffset == mapping.address() + deviceOffset;
    }

    /** ftruncate: the file grows sparse, or loses its end (the caller has the unit stop addressing it first). */
    @Override
    void resizeStorage(long to) {
        int truncated = LibC.ftruncate(fd, to);
        if (truncated < 0) {
            throw new IllegalStateException(logName() + ": cannot size the file to " + to + " bytes: "
                    + LibC.describe(-truncated));
        }
    }

    /** Opens (or creates) the LUN's file; throws {@link BackendOpenException} saying why it cannot. */
    static FileBackend open(LunConfig config) {
        if (!LibC.supported()) {
            throw failure(config, "the file backend needs Linux, not " + System.getProperty("os.name"));
        }
        if (config.directIo() && config.blockSize() != DIRECT_IO_ALIGNMENT) {
            throw failure(config, "directIo needs a block size of " + DIRECT_IO_ALIGNMENT + ", not " + config.blockSize()
                    + " (O_DIRECT I/O must be aligned to " + DIRECT_IO_ALIGNMENT + " bytes)");
        }
        String file = config.path().toString();
        boolean writeThrough = config.writeCache() == LunConfig.WriteCachePolicy.WRITE_THROUGH;
        int common = LibC.O_CLOEXEC | (config.directIo() ? LibC.O_DIRECT : 0);
        int fd = config.readOnly()
                ? LibC.open(file, common | LibC.O_RDONLY, 0)
                : LibC.open(file, common | LibC.O_RDWR | (config.create() ? LibC.O_CREAT : 0)
                        | (writeThrough ? LibC.O_DSYNC : 0), CREATE_MODE);
        if (fd < 0) {
            throw failure(config, "cannot open the file" + (config.readOnly() ? " read-only" : "") + ": " + LibC.describe(-fd)
                    + (-fd == LibC.ENOENT && !config.readOnly() && !config.create()
                    ? " (create = true makes a missing file, a new empty disk; never its folder)" : ""));
        }
        try {
            long existing = LibC.size(fd);
            if (existing < 0) {
                throw failure(config, "cannot read the file's size: " + LibC.describe((int) -existing));
            }
            boolean sizes = !config.readOnly() && (existing == 0 ? config.create() || config.grow() : config.grow());
            if (existing < config.sizeBytes() && sizes) {
                int truncated = LibC.ftruncate(fd, config.sizeBytes());
                if (truncated < 0) {
                    throw failure(config, "cannot size the file to " + config.sizeBytes() + " bytes: " + LibC.describe(-truncated));
                }
            } else if (existing < config.sizeBytes()) {
                throw failure(config, "the file holds " + existing + " bytes, fewer than the configured " + config.sizeBytes()
                        + " (refused: it may be the wrong file; grow = true extends it" + (config.readOnly()
                        ? ", on a LUN that is not read-only)" : ")"));
            } else if (existing > config.sizeBytes()) {
                throw failure(config, "the file holds " + existing + " bytes, more than the configured " + config.sizeBytes()
                        + " (refused: it may be the wrong file, and serving less would hide its end; size = " + existing
                        + " serves all of it)");
            }
            int syncFd = fd;
            if (!config.readOnly() && !writeThrough) {
                syncFd = LibC.open(file, common | LibC.O_RDWR | LibC.O_DSYNC, 0);
                if (syncFd < 0) {
                    throw failure(config, "cannot open the file a second time for FUA writes: " + LibC.describe(-syncFd));
                }
            }
            return new FileBackend(config, fd, syncFd);
        } catch (RuntimeException e) {
            LibC.close(fd);
            throw e;
        }
    }

    private static BackendOpenException failure(LunConfig config, String cause) {
        return new BackendOpenException(config.number(), "file", config.path(), cause, null);
    }

    @Override
    BackendStatus readChecked(long deviceOffset, MemorySegment buffer, long bufferOffset, int length) {
        if (inPlace(deviceOffset, buffer, bufferOffset)) {
            return BackendStatus.OK;
        }
        if (buffer.isReadOnly() || !addressable(buffer, bufferOffset, deviceOffset, length)) {
            return BackendStatus.INTERNAL_ERROR;
        }
        long address = buffer.address() + bufferOffset;
        for (long done = 0; done < length; ) {
            long n = LibC.pread(fd, address + done, length - done, deviceOffset + done);
            if (n > 0) {
                done += n;
            } else if (n == 0) {
                // past the end of the file: it was shortened behind the LUN's back; what is not there reads as zeroes
                Zeroes.fill(buffer, bufferOffset + done, length - done);
                break;
            } else if (n != -LibC.EINTR) {
                return failed("pread", (int) -n);
            }
        }
        return BackendStatus.OK;
    }

    /** A file call may wait on the device: on the poller with blocking-call threads, only the two below are made there. */
    @Override
    boolean mayBlock() {
        return true;
    }

    /**
     * The page cache's bytes or nothing: preadv2 with RWF_NOWAIT, made when every byte asked for was there; anything
     * else (a page not cached, end of file, an error) defers the read to a blocking-call thread, which reads it again.
     */
    @Override
    BackendStatus readWithoutBlocking(MemorySegment iovec, long deviceOffset, MemorySegment buffer, long bufferOffset,
                                      int length) {
        if (inPlace(deviceOffset, buffer, bufferOffset)) {
            return BackendStatus.OK;
        }
        if (!readsWithoutWaiting) {
            return null;
        }
        if (buffer.isReadOnly() || !addressable(buffer, bufferOffset, deviceOffset, length)) {
            return BackendStatus.INTERNAL_ERROR;
        }
        long n = LibC.preadNoWait(fd, iovec, buffer.address() + bufferOffset, length, deviceOffset);
        return n == length ? BackendStatus.OK : null;
    }

    /**
     * A write-back write of whole pages is a copy into the page cache, made at once (it waits only while the kernel
     * throttles dirty pages, as a poller-run pipeline always has); a FUA, write-through or O_DIRECT write waits on the
     * device, and a partial page may have to be read first: those are deferred. (RWF_NOWAIT buffered writes are refused
     * with EOPNOTSUPP by ext4 on Linux 6.18, so they are not tried.)
     */
    @Override
    BackendStatus writeWithoutBlocking(long deviceOffset, MemorySegment buffer, long bufferOffset, int length,
                                       boolean forceUnitAccess) {
        // only whole pages: a partial one may have to be read first
        if (forceUnitAccess || writeThrough || directIo || ((deviceOffset | length) & (LibC.PAGE_SIZE - 1)) != 0) {
            return null;
        }
        return writeChecked(deviceOffset, buffer, bufferOffset, length, false);
    }

    @Override
    BackendStatus writeChecked(long deviceOffset, MemorySegment buffer, long bufferOffset, int length, boolean forceUnitAccess) {
        if (!addressable(buffer, bufferOffset, deviceOffset, length)) {
            return BackendStatus.INTERNAL_ERROR;
        }
        return writeAll(forceUnitAccess ? syncFd : fd, buffer.address() + bufferOffset, length, deviceOffset);
    }

    /** pwrite until every byte is written, retrying after a signal and after a short write. */
    private BackendStatus writeAll(int target, long address, long length, long deviceOffset) {
        for (long done = 0; done < length; ) {
            long n = LibC.pwrite(target, address + done, length - done, deviceOffset + done);
            if (n > 0) {
                done += n;
            } else if (n == 0) {
                return failed("pwrite", LibC.EIO); // no progress and no errno
            } else if (n != -LibC.EINTR) {
                return failed("pwrite", (int) -n);
            }
        }
        return BackendStatus.OK;
    }

    @Override
    BackendStatus flushChecked() {
        return sync();
    }

    private BackendStatus sync() {
        if (syncFailed) {
            return BackendStatus.IO_ERROR;
        }
        int result;
        do {
            result = LibC.fdatasync(fd);
        } while (result == -LibC.EINTR);
        if (result < 0) {
            syncFailed = true;
            return failed("fdatasync", -result);
        }
        return BackendStatus.OK;
    }

    /**
     * Mapped: the file's data; deallocated: its holes ({@code lseek} SEEK_DATA / SEEK_HOLE), which punched-out UNMAPs
     * and never-written sparse ranges are. A file system that cannot tell reports everything mapped.
     */
    @Override
    public long provisioning(long deviceOffset, long length) {
        long data = LibC.lseek(fd, deviceOffset, LibC.SEEK_DATA);
        if (data == -LibC.ENXIO) {
            return -length; // no data from here to the end of the file
        }
        if (data < 0) {
            return length;
        }
        if (data > deviceOffset) {
            return -Math.min(data - deviceOffset, length);
        }
        long hole = LibC.lseek(fd, deviceOffset, LibC.SEEK_HOLE);
        return hole <= deviceOffset ? length : Math.min(hole - deviceOffset, length);
    }

    @Override
    BackendStatus unmapChecked(long deviceOffset, long length) {
        if (!punchUnsupported) {
            int result = LibC.fallocate(fd, LibC.FALLOC_FL_PUNCH_HOLE | LibC.FALLOC_FL_KEEP_SIZE, deviceOffset, length);
            if (result == 0) {
                // write-through promises every change durable at completion; a punched hole is one
                return writeThrough ? sync() : BackendStatus.OK;
            }
            if (result != -LibC.EOPNOTSUPP) {
                return failed("fallocate(PUNCH_HOLE)", -result);
            }
            punchUnsupported = true;
            LOG.info("{}: the file system cannot punch holes; UNMAP writes zeroes", logName());
        }
        // fd is O_DSYNC in write-through, so these are durable when written
        for (long done = 0; done < length; ) {
            long n = Math.min(length - done, Zeroes.BYTES);
            BackendStatus status = writeAll(fd, Zeroes.SEGMENT.address(), n, deviceOffset + done);
            if (status != BackendStatus.OK) {
                return status;
            }
            done += n;
        }
        return BackendStatus.OK;
    }

    /**
     * Whether the buffer may be handed to a system call by its raw address, which nothing checks: native memory that
     * is still alive, and aligned when the file is open O_DIRECT.
     */
    private boolean addressable(MemorySegment buffer, long bufferOffset, long deviceOffset, int length) {
        if (!buffer.isNative() || !buffer.scope().isAlive()) {
            return false;
        }
        return !directIo || ((buffer.address() + bufferOffset | deviceOffset | length) & (DIRECT_IO_ALIGNMENT - 1)) == 0;
    }

    /** Logs a failed call (once per distinct errno in a row, so a dying disk does not flood the log) and maps it. */
    private BackendStatus failed(String call, int errno) {
        if (errno != lastLoggedErrno) {
            lastLoggedErrno = errno;
            LOG.warn("{}: {} failed: {}", logName(), call, LibC.describe(errno));
        }
        return switch (errno) {
            case LibC.ENOSPC, LibC.EDQUOT -> BackendStatus.NO_SPACE;
            case LibC.EBADF, LibC.EFAULT, LibC.EINVAL -> BackendStatus.INTERNAL_ERROR; // a bug, not the medium
            default -> BackendStatus.IO_ERROR;
        };
    }

    @Override
    void release() {
        if (registrations != null) {
            registrations.releaseAll();
        }
        arena.close(); // unmaps; a send still copying from it fails rather than touching unmapped memory
        if (syncFd != fd) {
            closeDescriptor(syncFd);
        }
        closeDescriptor(fd);
    }

    private void closeDescriptor(int descriptor) {
        int result = LibC.close(descriptor);
        if (result < 0) {
            LOG.warn("{}: close failed: {}", logName(), LibC.describe(-result));
        }
    }

    @Override
    public String toString() {
        return "file " + path + " (" + policy() + (directIo ? ", O_DIRECT" : "") + ")";
    }
}
