package org.rdmablock.protocol.scsi;

import java.lang.foreign.MemorySegment;

/**
 * The storage behind a logical unit: asynchronous read, write, flush and unmap on byte ranges.
 * {@link LogicalUnit} validates every range against {@link #sizeBytes()} before calling, so offsets and
 * lengths are always inside the device. Implementations (file, RocksDB, in-memory) must be safe to call
 * from several threads and must call the callback exactly once per operation.
 *
 * <p>Buffers are passed as (segment, offset, length) rather than slices so that the I/O path creates no
 * objects; the buffer stays valid and untouched by the caller until the callback runs.
 */
public interface BlockBackend {
    /** Size of the device in bytes; the logical unit exposes {@code sizeBytes / blockSize} blocks. */
    long sizeBytes();

    /** Whether {@link #unmap} is implemented (required for a thin-provisioned logical unit). */
    boolean supportsUnmap();

    /**
     * Whether an unmapped range reads back as zeroes (SBC LBPRZ). When true, the logical unit may serve a
     * WRITE SAME of zeroes with the UNMAP bit by unmapping.
     */
    boolean unmapReadsZeroes();

    /** Reads {@code length} bytes at {@code deviceOffset} into {@code buffer} at {@code bufferOffset}. */
    void read(long deviceOffset, MemorySegment buffer, long bufferOffset, int length, BackendCallback callback);

    /**
     * Writes {@code length} bytes from {@code buffer} at {@code bufferOffset} to {@code deviceOffset}.
     *
     * @param forceUnitAccess when true the data must be durable before the callback (SCSI FUA, or every
     *                        write while the logical unit's write cache is disabled)
     */
    void write(long deviceOffset, MemorySegment buffer, long bufferOffset, int length, boolean forceUnitAccess,
               BackendCallback callback);

    /** Makes every completed write durable (SYNCHRONIZE CACHE). */
    void flush(BackendCallback callback);

    /** Deallocates {@code length} bytes at {@code deviceOffset} (UNMAP, WRITE SAME with UNMAP). */
    void unmap(long deviceOffset, long length, BackendCallback callback);

    /**
     * How the bytes from {@code deviceOffset} on are provisioned (SBC-4 GET LBA STATUS): the length of the run that
     * starts there, at most {@code length}, positive when its bytes are mapped (hold data), negative when they are
     * deallocated (read as an unmapped range reads). May wait on the device. The default: everything is mapped.
     */
    default long provisioning(long deviceOffset, long length) {
        return length;
    }
}
