package org.rdmablock.verbs;

import java.lang.foreign.MemorySegment;

/**
 * A protection domain ({@code struct ibv_pd}): memory regions, windows, address handles and queue pairs of one
 * PD may be used together; keys of another PD are rejected with a protection or access error.
 */
public interface ProtectionDomain extends AutoCloseable {
    DeviceContext context();

    /**
     * Registers native memory for RDMA (ibv_reg_mr). Registering the same memory twice gives two regions with
     * different keys.
     *
     * @param memory native memory (not a heap segment)
     * @param access {@link AccessFlags} bits
     */
    MemoryRegion registerMemory(MemorySegment memory, int access);

    /** Allocates a type 2 memory window (ibv_alloc_mw); bind it with a {@link SendOpcode#BIND_MW} work request. */
    MemoryWindow allocateMemoryWindow();

    /** Creates a queue pair (ibv_create_qp) in state RESET. Connected QPs are usually created through a {@link ConnectionId}. */
    QueuePair createQueuePair(QueuePairInitAttributes attributes);

    /** Creates a shared receive queue (ibv_create_srq). */
    SharedReceiveQueue createSharedReceiveQueue(int maxWr, int maxSge);

    /** Creates an address handle for UD sends (ibv_create_ah). */
    AddressHandle createAddressHandle(AddressHandleAttributes attributes);

    /** Deallocates the PD; its resources must have been closed first (else EBUSY). */
    @Override
    void close();
}
