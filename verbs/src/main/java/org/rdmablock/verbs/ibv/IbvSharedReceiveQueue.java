package org.rdmablock.verbs.ibv;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.ReceiveWorkRequest;
import org.rdmablock.verbs.SharedReceiveQueue;
import org.rdmablock.verbs.ibv.bindings.Rdma;
import org.rdmablock.verbs.ibv.bindings.ibv_context;
import org.rdmablock.verbs.ibv.bindings.ibv_context_ops;
import org.rdmablock.verbs.ibv.bindings.ibv_srq_attr;

/** A shared receive queue ({@code struct ibv_srq}); posting goes through the post_srq_recv function pointer. */
final class IbvSharedReceiveQueue implements SharedReceiveQueue {
    /** IBV_SRQ_LIMIT attribute mask bit. */
    private static final int SRQ_LIMIT = 1 << 1;

    private final IbvProtectionDomain pd;
    final MemorySegment srq;
    private final Arena arena = Arena.ofShared();
    private final ReceivePoster poster;
    private boolean closed;

    IbvSharedReceiveQueue(final IbvProtectionDomain pd, final MemorySegment srq, final int maxSge) {
        this.pd = pd;
        this.srq = srq;
        final MemorySegment ops = ibv_context.ops(pd.ibvContext().context);
        this.poster = new ReceivePoster(arena, srq, ibv_context_ops.post_srq_recv(ops), true, maxSge);
    }

    @Override
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    @Override
    public void postReceive(final ReceiveWorkRequest wr) {
        poster.post(wr);
    }

    @Override
    public void armLimit(final int limit) {
        try (Arena scratch = Arena.ofConfined()) {
            final MemorySegment attr = scratch.allocate(ibv_srq_attr.layout());
            ibv_srq_attr.srq_limit(attr, limit);
            IbvContext.check(Rdma.ibv_modify_srq(srq, attr, SRQ_LIMIT), "ibv_modify_srq(limit " + limit + ")");
        }
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            IbvContext.check(Rdma.ibv_destroy_srq(srq), "ibv_destroy_srq");
            closed = true;
            pd.ibvContext().unregister(srq);
            pd.released(this);
            arena.close();
        }
    }
}
