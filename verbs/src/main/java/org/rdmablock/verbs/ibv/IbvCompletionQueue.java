package org.rdmablock.verbs.ibv;

import java.lang.foreign.MemorySegment;

import org.rdmablock.verbs.CompletionChannel;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.DeviceContext;
import org.rdmablock.verbs.VerbsException;
import org.rdmablock.verbs.WorkCompletions;
import org.rdmablock.verbs.ibv.bindings.Rdma;
import org.rdmablock.verbs.ibv.bindings.ibv_context;
import org.rdmablock.verbs.ibv.bindings.ibv_context_ops;

/**
 * A completion queue ({@code struct ibv_cq}). {@link #poll} calls the provider's {@code poll_cq} function pointer
 * (ibv_poll_cq is static inline), cached at creation, straight into the caller's {@link WorkCompletions}, which
 * is laid out as {@code struct ibv_wc}: no copy, no allocation.
 */
final class IbvCompletionQueue implements CompletionQueue {
    private final IbvContext context;
    final MemorySegment cq;
    private final IbvCompletionChannel channel;
    private final int capacity;
    private final MemorySegment pollCq;
    private final MemorySegment reqNotifyCq;
    private volatile boolean overrun;
    /** Volatile: a poll or arm after the CQ was destroyed must fail, not touch freed native memory. */
    private volatile boolean closed;
    /** Events taken from the channel and not yet acknowledged (ibv_ack_cq_events); guarded by itself. */
    private final int[] unacknowledged = new int[1];

    IbvCompletionQueue(final IbvContext context, final MemorySegment cq, final IbvCompletionChannel channel, final int capacity) {
        this.context = context;
        this.cq = cq;
        this.channel = channel;
        this.capacity = capacity;
        final MemorySegment ops = ibv_context.ops(context.context);
        this.pollCq = ibv_context_ops.poll_cq(ops);
        this.reqNotifyCq = ibv_context_ops.req_notify_cq(ops);
        if (channel != null) {
            channel.attach(this);
        }
    }

    /** The channel took an event of this CQ: acknowledges them in batches of {@code batch}. */
    void eventTaken(final int batch) {
        synchronized (unacknowledged) {
            if (++unacknowledged[0] >= batch) {
                Rdma.ibv_ack_cq_events(cq, unacknowledged[0]);
                unacknowledged[0] = 0;
            }
        }
    }

    /** Acknowledges every event taken (before the CQ is destroyed). */
    void acknowledgeEvents() {
        synchronized (unacknowledged) {
            if (unacknowledged[0] > 0) {
                Rdma.ibv_ack_cq_events(cq, unacknowledged[0]);
                unacknowledged[0] = 0;
            }
        }
    }

    @Override
    public DeviceContext context() {
        return context;
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public CompletionChannel channel() {
        return channel;
    }

    @Override
    public int poll(final WorkCompletions completions, final int max) {
        if (overrun || closed) {
            if (closed) {
                throw new VerbsException(VerbsException.EINVAL, "the completion queue is destroyed");
            }
            throw new VerbsException(VerbsException.EIO, "completion queue overrun: completions were lost (CQ of " + capacity + " entries)");
        }
        final int n = ibv_context_ops.poll_cq.invoke(pollCq, cq, Math.min(max, completions.capacity()), completions.segment());
        if (n < 0) {
            overrun = true;
            throw new VerbsException(VerbsException.EIO, "ibv_poll_cq failed (" + n + "): the CQ is in error");
        }
        return n;
    }

    /** The device reported IBV_EVENT_CQ_ERR (an overrun): polling reports the loss from now on. */
    void markOverrun() {
        overrun = true;
    }

    @Override
    public void requestNotify(final boolean solicitedOnly) {
        if (channel == null || closed) {
            throw new VerbsException(VerbsException.EINVAL, closed ? "the completion queue is destroyed" : "this CQ has no completion channel");
        }
        IbvContext.check(ibv_context_ops.req_notify_cq.invoke(reqNotifyCq, cq, solicitedOnly ? 1 : 0), "ibv_req_notify_cq");
    }

    @Override
    public synchronized void close() {
        if (!closed) {
            acknowledgeEvents(); // ibv_destroy_cq waits for every event to be acknowledged
            IbvContext.check(Rdma.ibv_destroy_cq(cq), "ibv_destroy_cq");
            if (channel != null) {
                channel.detach(this);
            }
            closed = true;
            context.unregister(cq);
            context.released(this);
        }
    }
}
