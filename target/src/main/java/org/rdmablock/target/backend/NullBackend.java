package org.rdmablock.target.backend;

import java.lang.foreign.MemorySegment;

import org.rdmablock.protocol.scsi.BackendStatus;
import org.rdmablock.target.config.LunConfig;

/**
 * A LUN that stores nothing: reads return zeroes, writes and unmaps are accepted and discarded. For measuring the
 * target without storage behind it. Completes every operation on the calling backend thread, allocating nothing;
 * any number of threads may call at once.
 */
public final class NullBackend extends AbstractLunBackend {
    /** A null LUN of the configured size. */
    NullBackend(LunConfig config) {
        super(config);
    }

    @Override
    BackendStatus readChecked(long deviceOffset, MemorySegment buffer, long bufferOffset, int length) {
        Zeroes.fill(buffer, bufferOffset, length);
        return BackendStatus.OK;
    }

    /** Discarded. */
    @Override
    BackendStatus writeChecked(long deviceOffset, MemorySegment buffer, long bufferOffset, int length, boolean forceUnitAccess) {
        return BackendStatus.OK;
    }

    /** Nothing to deallocate: every block reads zeroes already. */
    @Override
    BackendStatus unmapChecked(long deviceOffset, long length) {
        return BackendStatus.OK;
    }

    @Override
    void release() {
        // holds nothing
    }

    @Override
    public String toString() {
        return "null (" + sizeBytes + " bytes, " + policy() + ")";
    }
}
