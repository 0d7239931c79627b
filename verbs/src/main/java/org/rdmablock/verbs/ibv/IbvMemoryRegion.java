package org.rdmablock.verbs.ibv;

import java.lang.foreign.MemorySegment;

import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.ibv.bindings.Rdma;
import org.rdmablock.verbs.ibv.bindings.ibv_mr;

/** A registered memory region ({@code struct ibv_mr}). */
final class IbvMemoryRegion implements MemoryRegion {
    private final IbvProtectionDomain pd;
    final MemorySegment mr;
    private final MemorySegment memory;
    private final int access;
    private final int lkey;
    private final int rkey;
    private boolean closed;

    IbvMemoryRegion(final IbvProtectionDomain pd, final MemorySegment mr, final MemorySegment memory, final int access) {
        this.pd = pd;
        this.mr = mr;
        this.memory = memory;
        this.access = access;
        this.lkey = ibv_mr.lkey(mr);
        this.rkey = ibv_mr.rkey(mr);
    }

    @Override
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    @Override
    public MemorySegment segment() {
        return memory;
    }

    @Override
    public long address() {
        return memory.address();
    }

    @Override
    public long length() {
        return memory.byteSize();
    }

    @Override
    public int lkey() {
        return lkey;
    }

    @Override
    public int rkey() {
        return rkey;
    }

    @Override
    public int access() {
        return access;
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            IbvContext.check(Rdma.ibv_dereg_mr(mr), "ibv_dereg_mr");
            closed = true;
            pd.released(this);
        }
    }
}
