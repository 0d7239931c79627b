package org.rdmablock.target.srp;

import org.rdmablock.protocol.scsi.BackendCallback;
import org.rdmablock.protocol.scsi.BackendStatus;
import org.rdmablock.protocol.scsi.BlockBackend;

import java.lang.foreign.MemorySegment;

/**
 * The backend of the pipeline benchmarks: every operation completes at once on the caller's thread without touching
 * the data (reads return whatever the buffer holds, writes are dropped), so that only the pipeline is measured. The
 * daemon's {@code null} LUN ({@link org.rdmablock.target.backend.NullBackend}) zero-fills reads.
 */
public record DiscardingBackend(long sizeBytes, boolean supportsUnmap, boolean unmapReadsZeroes) implements BlockBackend {
    public DiscardingBackend(final long sizeBytes) {
        this(sizeBytes, true, false);
    }

    @Override
    public void read(final long deviceOffset, final MemorySegment buffer, final long bufferOffset, final int length,
                     final BackendCallback callback) {
        callback.completed(BackendStatus.OK);
    }

    @Override
    public void write(final long deviceOffset, final MemorySegment buffer, final long bufferOffset, final int length,
                      final boolean forceUnitAccess, final BackendCallback callback) {
        callback.completed(BackendStatus.OK);
    }

    @Override
    public void flush(final BackendCallback callback) {
        callback.completed(BackendStatus.OK);
    }

    @Override
    public void unmap(final long deviceOffset, final long length, final BackendCallback callback) {
        callback.completed(BackendStatus.OK);
    }
}
