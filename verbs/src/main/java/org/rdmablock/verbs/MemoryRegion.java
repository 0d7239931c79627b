package org.rdmablock.verbs;

import java.lang.foreign.MemorySegment;

/**
 * Registered memory ({@code struct ibv_mr}): local work requests name it by {@link #lkey()}, remote peers by
 * {@link #rkey()} and an address inside {@code [address(), address() + length())}.
 */
public interface MemoryRegion extends AutoCloseable {
    ProtectionDomain protectionDomain();

    /** The registered memory. */
    MemorySegment segment();

    /** Start address, as used in scatter/gather elements and by remote peers. */
    long address();

    long length();

    int lkey();

    int rkey();

    /** {@link AccessFlags} bits. */
    int access();

    /** Deregisters the region (ibv_dereg_mr): its keys stop working at once. */
    @Override
    void close();
}
