package org.rdmablock.verbs.soft;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.rdmablock.verbs.AccessFlags;

/**
 * Checks of local scatter/gather elements against the STag table, as a NIC checks lkeys: the key must name a
 * valid memory region of the QP's protection domain that contains the range and, for writes, grants
 * LOCAL_WRITE. A failure is a local protection error of the work request.
 */
final class LocalAccess {
    private final StagTable stags;
    private final SoftProtectionDomain pd;

    LocalAccess(final StagTable stags, final SoftProtectionDomain pd) {
        this.stags = stags;
        this.pd = pd;
    }

    /** The region an SGE may use, or null when the lkey, PD, bounds or right do not allow it. */
    SoftMemoryRegion region(final int lkey, final long address, final long length, final boolean write) {
        if (stags.lookup(lkey) instanceof SoftMemoryRegion mr && mr.isValid() && mr.pd() == pd
            && mr.contains(address, length) && (!write || (mr.access() & AccessFlags.LOCAL_WRITE) != 0)) {
            return mr;
        }
        return null;
    }

    /**
     * Copies inline data at post time. The lkey of an inline SGE is not checked (ibv_post_send(3)): a registered
     * region is used when the address lies in one, else the raw address is read.
     */
    void copyInline(final int lkey, final long address, final MemorySegment target, final long targetOffset,
                    final int length) {
        final SoftMemoryRegion known = region(lkey, address, length, false);
        if (length == 0) {
            return;
        }
        final MemorySegment source = known != null ? known.segment()
            : MemorySegment.ofAddress(address).reinterpret(length);
        final long offset = known != null ? address - known.address() : 0;
        MemorySegment.copy(source, ValueLayout.JAVA_BYTE, offset, target, ValueLayout.JAVA_BYTE, targetOffset, length);
    }
}
