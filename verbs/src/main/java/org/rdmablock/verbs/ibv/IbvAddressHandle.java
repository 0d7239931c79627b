package org.rdmablock.verbs.ibv;

import java.lang.foreign.MemorySegment;

import org.rdmablock.verbs.AddressHandle;
import org.rdmablock.verbs.AddressHandleAttributes;
import org.rdmablock.verbs.ibv.bindings.Rdma;

/** An address handle for UD sends ({@code struct ibv_ah}). */
final class IbvAddressHandle implements AddressHandle {
    private final IbvProtectionDomain pd;
    final MemorySegment ah;
    private final AddressHandleAttributes attributes;
    private boolean closed;

    IbvAddressHandle(final IbvProtectionDomain pd, final MemorySegment ah, final AddressHandleAttributes attributes) {
        this.pd = pd;
        this.ah = ah;
        this.attributes = attributes;
    }

    @Override
    public AddressHandleAttributes attributes() {
        return attributes;
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            IbvContext.check(Rdma.ibv_destroy_ah(ah), "ibv_destroy_ah");
            closed = true;
            pd.released(this);
        }
    }
}
