package org.rdmablock.verbs.ibv;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.AddressHandle;
import org.rdmablock.verbs.AddressHandleAttributes;
import org.rdmablock.verbs.DeviceContext;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.MemoryWindow;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.QueuePair;
import org.rdmablock.verbs.QueuePairInitAttributes;
import org.rdmablock.verbs.SharedReceiveQueue;
import org.rdmablock.verbs.VerbsException;
import org.rdmablock.verbs.spi.ResourceSet;
import org.rdmablock.verbs.ibv.bindings.Rdma;
import org.rdmablock.verbs.ibv.bindings.ibv_ah_attr;
import org.rdmablock.verbs.ibv.bindings.ibv_context;
import org.rdmablock.verbs.ibv.bindings.ibv_context_ops;
import org.rdmablock.verbs.ibv.bindings.ibv_global_route;
import org.rdmablock.verbs.ibv.bindings.ibv_mr;
import org.rdmablock.verbs.ibv.bindings.ibv_mw;
import org.rdmablock.verbs.ibv.bindings.ibv_srq_attr;
import org.rdmablock.verbs.ibv.bindings.ibv_srq_init_attr;

/** A protection domain ({@code struct ibv_pd}). */
final class IbvProtectionDomain implements ProtectionDomain {
    /** ibv_reg_mr is a macro over the exported function of the same name. */
    private static final MethodHandle REG_MR = Native.withErrno(Rdma.ibv_reg_mr$address(), Rdma.ibv_reg_mr$descriptor());
    private static final MethodHandle CREATE_SRQ = Native.withErrno(Rdma.ibv_create_srq$address(), Rdma.ibv_create_srq$descriptor());
    private static final MethodHandle CREATE_AH = Native.withErrno(Rdma.ibv_create_ah$address(), Rdma.ibv_create_ah$descriptor());
    /** IBV_MW_TYPE_2. */
    private static final int MW_TYPE_2 = 2;

    private final IbvContext context;
    final MemorySegment pd;
    private final ResourceSet resources = new ResourceSet("protection domain");
    private boolean closed;

    IbvProtectionDomain(final IbvContext context, final MemorySegment pd) {
        this.context = context;
        this.pd = pd;
    }

    @Override
    public DeviceContext context() {
        return context;
    }

    IbvContext ibvContext() {
        return context;
    }

    @Override
    public MemoryRegion registerMemory(final MemorySegment memory, final int access) {
        AccessFlags.validate(access);
        if (!memory.isNative()) {
            throw new VerbsException(VerbsException.EFAULT, "only native memory can be registered (got a heap segment)");
        }
        final MemorySegment mr;
        try {
            mr = (MemorySegment) REG_MR.invokeExact(Native.state(), pd, memory, memory.byteSize(), access);
        } catch (final Throwable e) {
            throw new VerbsException(VerbsException.EIO, "ibv_reg_mr: " + e, e);
        }
        if (mr.equals(MemorySegment.NULL)) {
            throw Native.failure("ibv_reg_mr(" + memory.byteSize() + " bytes)", Native.errno());
        }
        final MemorySegment struct = mr.reinterpret(ibv_mr.sizeof());
        return track(new IbvMemoryRegion(this, struct, memory, access));
    }

    @Override
    public MemoryWindow allocateMemoryWindow() {
        final MemorySegment ops = ibv_context.ops(context.context);
        final MemorySegment alloc = ibv_context_ops.alloc_mw(ops);
        if (alloc.equals(MemorySegment.NULL)) {
            throw new VerbsException(VerbsException.EOPNOTSUPP, "this device has no memory windows");
        }
        final MemorySegment mw = ibv_context_ops.alloc_mw.invoke(alloc, pd, MW_TYPE_2);
        if (mw.equals(MemorySegment.NULL)) {
            throw new VerbsException(VerbsException.ENOMEM, "ibv_alloc_mw failed");
        }
        return track(new IbvMemoryWindow(this, mw.reinterpret(ibv_mw.sizeof())));
    }

    @Override
    public QueuePair createQueuePair(final QueuePairInitAttributes attributes) {
        return track(IbvQueuePair.create(this, attributes, null));
    }

    @Override
    public SharedReceiveQueue createSharedReceiveQueue(final int maxWr, final int maxSge) {
        try (Arena scratch = Arena.ofConfined()) {
            final MemorySegment init = scratch.allocate(ibv_srq_init_attr.layout());
            final MemorySegment attr = ibv_srq_init_attr.attr(init);
            ibv_srq_attr.max_wr(attr, maxWr);
            ibv_srq_attr.max_sge(attr, maxSge);
            final MemorySegment srq;
            try {
                srq = (MemorySegment) CREATE_SRQ.invokeExact(Native.state(), pd, init);
            } catch (final Throwable e) {
                throw new VerbsException(VerbsException.EIO, "ibv_create_srq: " + e, e);
            }
            if (srq.equals(MemorySegment.NULL)) {
                throw Native.failure("ibv_create_srq", Native.errno());
            }
            final IbvSharedReceiveQueue wrapped = new IbvSharedReceiveQueue(this, srq, maxSge);
            context.register(srq, wrapped);
            return track(wrapped);
        }
    }

    @Override
    public AddressHandle createAddressHandle(final AddressHandleAttributes attributes) {
        try (Arena scratch = Arena.ofConfined()) {
            final MemorySegment attr = scratch.allocate(ibv_ah_attr.layout());
            fillAddressVector(attr, attributes);
            final MemorySegment ah;
            try {
                ah = (MemorySegment) CREATE_AH.invokeExact(Native.state(), pd, attr);
            } catch (final Throwable e) {
                throw new VerbsException(VerbsException.EIO, "ibv_create_ah: " + e, e);
            }
            if (ah.equals(MemorySegment.NULL)) {
                throw Native.failure("ibv_create_ah", Native.errno());
            }
            return track(new IbvAddressHandle(this, ah, attributes));
        }
    }

    /** Writes an address vector into a {@code struct ibv_ah_attr}. */
    static void fillAddressVector(final MemorySegment attr, final AddressHandleAttributes attributes) {
        ibv_ah_attr.dlid(attr, (short) attributes.dlid());
        ibv_ah_attr.sl(attr, (byte) attributes.serviceLevel());
        ibv_ah_attr.port_num(attr, (byte) attributes.portNum());
        if (attributes.isGlobal()) {
            ibv_ah_attr.is_global(attr, (byte) 1);
            final MemorySegment grh = ibv_ah_attr.grh(attr);
            MemorySegment.copy(MemorySegment.ofArray(attributes.destinationGid().toBytes()), 0, ibv_global_route.dgid(grh), 0, 16);
            ibv_global_route.sgid_index(grh, (byte) attributes.sourceGidIndex());
            ibv_global_route.hop_limit(grh, (byte) attributes.hopLimit());
        }
    }

    <T extends AutoCloseable> T track(final T resource) {
        resources.add(resource);
        return resource;
    }

    void released(final AutoCloseable resource) {
        resources.remove(resource);
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        resources.requireEmpty();
        IbvContext.check(Rdma.ibv_dealloc_pd(pd), "ibv_dealloc_pd");
        closed = true;
        context.released(this);
    }
}
