package org.rdmablock.target.backend;

import java.lang.foreign.MemorySegment;

import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.ProtectionDomain;

/**
 * A backend whose blocks are mapped into this process, which the target may register and move READ and WRITE data
 * through by RDMA in place: data-in WRITEs read straight from the LUN's memory and data-out READs land straight in
 * it, with no copy through the pipeline's data buffer. The backend's own copy then sees the same address on both
 * sides and skips it. The memory backend places both; the file backend places reads only, and only of pages the
 * page cache holds ({@link #readsInPlace}). Used only where registering memory pins nothing (the {@code soft}
 * provider): a large LUN registered on a native device would be locked in RAM whole.
 *
 * <p>A WRITE so placed changes the LUN as its data arrives, before the command executes: the target places only
 * commands the logical unit will accept ({@code LogicalUnit.reachesBackend}); an aborted or failed one leaves its
 * blocks indeterminate, as SBC allows.
 */
public interface InPlaceStorage {
    /**
     * The region of {@code pd} that holds the whole device (byte offset = device offset), registered on the first
     * call for that domain and deregistered when the backend closes; null once it is closed or when registration
     * failed (the caller then copies through its buffers as usual).
     */
    MemoryRegion regionIn(ProtectionDomain pd);

    /**
     * Whether a WRITE's data may land in the mapping. Default true. A file mapping answers false: a page fault there
     * may need blocks the file system has not got (a sparse file, a copy-on-write one), and the kernel answers that
     * with SIGBUS, not an error code.
     */
    default boolean placesWrites() {
        return true;
    }

    /**
     * Whether a READ of these bytes may leave from the mapping now, with no page fault that waits on the device on
     * the thread that sends it. Default true (memory). {@code scratch} holds at least
     * {@code length / page size + 2} bytes the call may overwrite (so that the check allocates nothing).
     */
    default boolean readsInPlace(long deviceOffset, long length, MemorySegment scratch) {
        return true;
    }

    /**
     * Deregisters the region of {@code pd}, before the domain closes (the target's shutdown); {@link #regionIn} then
     * answers null for it. Nothing when there is none.
     */
    void releaseRegionIn(ProtectionDomain pd);
}
