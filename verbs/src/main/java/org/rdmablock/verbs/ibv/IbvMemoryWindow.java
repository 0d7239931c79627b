package org.rdmablock.verbs.ibv;

import java.lang.foreign.MemorySegment;

import org.rdmablock.verbs.MemoryWindow;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.ibv.bindings.ibv_context;
import org.rdmablock.verbs.ibv.bindings.ibv_context_ops;
import org.rdmablock.verbs.ibv.bindings.ibv_mw;

/**
 * A type 2 memory window ({@code struct ibv_mw}). A type 2 bind posted with ibv_post_send carries the new rkey in
 * the work request and libibverbs does not write it back into the struct, so the window keeps its key here: the
 * key of the last bind posted.
 */
final class IbvMemoryWindow implements MemoryWindow {
    private final IbvProtectionDomain pd;
    final MemorySegment mw;
    private volatile int rkey;
    private boolean closed;

    IbvMemoryWindow(final IbvProtectionDomain pd, final MemorySegment mw) {
        this.pd = pd;
        this.mw = mw;
        this.rkey = ibv_mw.rkey(mw);
    }

    @Override
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    @Override
    public int rkey() {
        return rkey;
    }

    /** ibv_inc_rkey(3): the same index with the next 8-bit key. */
    @Override
    public int nextRkey() {
        final int current = rkey;
        return (current & 0xFFFF_FF00) | ((current + 1) & 0xFF);
    }

    /** A bind with {@link #nextRkey()} was posted: that key becomes the window's once the bind completes. */
    int bindPosted() {
        final int next = nextRkey();
        rkey = next;
        return next;
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            final MemorySegment dealloc = ibv_context_ops.dealloc_mw(ibv_context.ops(pd.ibvContext().context));
            IbvContext.check(ibv_context_ops.dealloc_mw.invoke(dealloc, mw), "ibv_dealloc_mw");
            closed = true;
            pd.released(this);
        }
    }
}
