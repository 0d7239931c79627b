package org.rdmablock.verbs.ibv;

import static org.rdmablock.verbs.ibv.WorkRequestLayout.RECV_NEXT;
import static org.rdmablock.verbs.ibv.WorkRequestLayout.RECV_NUM_SGE;
import static org.rdmablock.verbs.ibv.WorkRequestLayout.RECV_SG_LIST;
import static org.rdmablock.verbs.ibv.WorkRequestLayout.RECV_WR_ID;
import static org.rdmablock.verbs.ibv.WorkRequestLayout.RECV_WR_SIZE;
import static org.rdmablock.verbs.ibv.WorkRequestLayout.CHAIN;
import static org.rdmablock.verbs.ibv.WorkRequestLayout.SGE_SIZE;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import org.rdmablock.verbs.PostFailedException;
import org.rdmablock.verbs.ReceiveWorkRequest;
import org.rdmablock.verbs.ScatterGatherList;
import org.rdmablock.verbs.VerbsException;
import org.rdmablock.verbs.ibv.bindings.ibv_context_ops;

/**
 * Posts receive work requests to a QP or SRQ: copies each chain into preallocated native
 * {@code struct ibv_recv_wr} entries and calls the provider's post_recv (or post_srq_recv) function pointer.
 * Allocates nothing; posting threads serialise on the poster.
 */
final class ReceivePoster {
    private final MemorySegment target;
    private final MemorySegment function;
    private final boolean sharedQueue;
    private final int maxSge;
    private final MemorySegment wrs;
    private final MemorySegment sges;
    private final MemorySegment badWr;

    ReceivePoster(final Arena arena, final MemorySegment target, final MemorySegment function, final boolean sharedQueue, final int maxSge) {
        this.target = target;
        this.function = function;
        this.sharedQueue = sharedQueue;
        this.maxSge = Math.max(1, maxSge);
        this.wrs = arena.allocate(RECV_WR_SIZE * CHAIN, 8);
        this.sges = arena.allocate(SGE_SIZE * CHAIN * this.maxSge, 8);
        this.badWr = arena.allocate(ValueLayout.ADDRESS);
    }

    /** As {@link IbvQueuePair#postSend}: checked whole first, posted in batches, a refusal counts what was posted. */
    void post(final ReceiveWorkRequest first) {
        for (ReceiveWorkRequest wr = first; wr != null; wr = wr.next()) {
            if (wr.sgl().count() > maxSge) {
                throw new PostFailedException(VerbsException.EINVAL, "receive work request has " + wr.sgl().count() + " SGEs, max " + maxSge, 0);
            }
        }
        synchronized (this) {
            ReceiveWorkRequest wr = first;
            int posted = 0;
            while (wr != null) {
                int count = 0;
                for (; wr != null && count < CHAIN; wr = wr.next(), count++) {
                    fill(count, wr, wr.next() != null && count + 1 < CHAIN);
                }
                final int rc = sharedQueue
                    ? ibv_context_ops.post_srq_recv.invoke(function, target, wrs, badWr)
                    : ibv_context_ops.post_recv.invoke(function, target, wrs, badWr);
                if (rc != 0) {
                    throw new PostFailedException(rc, (sharedQueue ? "ibv_post_srq_recv" : "ibv_post_recv") + " failed: "
                        + Native.describe(rc), posted + IbvQueuePair.refusedIndex(badWr, wrs, RECV_WR_SIZE, count));
                }
                posted += count;
            }
        }
    }

    private void fill(final int index, final ReceiveWorkRequest wr, final boolean linked) {
        final ScatterGatherList sgl = wr.sgl();
        final long base = index * RECV_WR_SIZE;
        final long sgeBase = (long) index * maxSge * SGE_SIZE;
        wrs.set(ValueLayout.JAVA_LONG, base + RECV_WR_ID, wr.wrId());
        wrs.set(ValueLayout.JAVA_LONG, base + RECV_NEXT, linked ? wrs.address() + base + RECV_WR_SIZE : 0L);
        wrs.set(ValueLayout.JAVA_LONG, base + RECV_SG_LIST, sges.address() + sgeBase);
        wrs.set(ValueLayout.JAVA_INT, base + RECV_NUM_SGE, sgl.count());
        WorkRequestLayout.writeSges(sges, sgeBase, sgl);
    }
}
