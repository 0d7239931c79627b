package org.rdmablock.initiator;

import org.rdmablock.verbs.MemoryRegion;

import java.lang.foreign.MemorySegment;

/**
 * The caller buffers registered for RDMA ({@link SrpInitiator#allocateBuffer}): a command whose buffer lies inside one
 * names it to the target directly (its address and rkey), with no copy through a bounce buffer. Lookups read a
 * copy-on-write array: any thread, no lock, no allocation.
 */
final class RegisteredMemory {
    /** Returned by {@link #rkeyOf} for memory that is not registered. */
    static final int NOT_REGISTERED = -1;
    private volatile MemoryRegion[] regions = new MemoryRegion[0];

    synchronized void add(final MemoryRegion region) {
        final MemoryRegion[] next = java.util.Arrays.copyOf(regions, regions.length + 1);
        next[regions.length] = region;
        regions = next;
    }

    synchronized MemoryRegion[] removeAll() {
        final MemoryRegion[] all = regions;
        regions = new MemoryRegion[0];
        return all;
    }

    /** The rkey of the region holding {@code length} bytes at {@code offset} of {@code buffer}, or {@link #NOT_REGISTERED}. */
    int rkeyOf(final MemorySegment buffer, final long offset, final long length) {
        if (!buffer.isNative()) {
            return NOT_REGISTERED;
        }
        final long start = buffer.address() + offset;
        for (final MemoryRegion region : regions) {
            if (start >= region.address() && start + length <= region.address() + region.length()) {
                return region.rkey();
            }
        }
        return NOT_REGISTERED;
    }
}
