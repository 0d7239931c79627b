package org.rdmablock.target.core;

import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.QueuePair;
import org.rdmablock.verbs.ReceiveWorkRequest;
import org.rdmablock.verbs.SharedReceiveQueue;

import java.lang.foreign.Arena;

/**
 * A set of IU-sized receive buffers in one registered region, each with its preallocated receive work request, posted
 * either to one channel's QP or to the target's shared receive queue. The work request id names the buffer and, for a
 * channel's own buffers, the channel; a shared queue's completions are routed by QP number instead.
 *
 * <p>Threads: posted once by the login thread (or at start, for the shared set), then reposted by the intake stage.
 */
public final class ReceiveBuffers implements AutoCloseable {
    /** Channel field of the work request id of a shared receive: the poller finds the channel by QP number. */
    static final int SHARED = 0xFF_FFFF;

    private final Arena arena = Arena.ofShared();
    final MemoryRegion region;
    final int bufferLength;
    final int count;
    private final ReceiveWorkRequest[] receives;
    private final QueuePair queuePair;
    private final SharedReceiveQueue srq;

    private ReceiveBuffers(final ProtectionDomain pd, final int channel, final int count, final int bufferLength,
                           final QueuePair queuePair, final SharedReceiveQueue srq) {
        this.count = count;
        this.bufferLength = bufferLength;
        this.queuePair = queuePair;
        this.srq = srq;
        this.region = pd.registerMemory(arena.allocate((long) count * bufferLength, 4096), AccessFlags.LOCAL_WRITE);
        this.receives = new ReceiveWorkRequest[count];
        for (int i = 0; i < count; i++) {
            receives[i] = new ReceiveWorkRequest(1).wrId(WorkRequestIds.of(WorkRequestIds.RECEIVE, channel, i));
            receives[i].sgl().add(region, (long) i * bufferLength, bufferLength);
        }
    }

    /** A channel's own buffers, posted to its QP. */
    static ReceiveBuffers forChannel(final int channel, final QueuePair qp, final int count, final int bufferLength) {
        return new ReceiveBuffers(qp.protectionDomain(), channel, count, bufferLength, qp, null);
    }

    /** The target's shared buffers, posted to {@code srq}. */
    static ReceiveBuffers shared(final SharedReceiveQueue srq, final int count, final int bufferLength) {
        return new ReceiveBuffers(srq.protectionDomain(), SHARED, count, bufferLength, null, srq);
    }

    boolean isShared() {
        return srq != null;
    }

    void postAll() {
        for (int i = 0; i < count; i++) {
            post(i);
        }
    }

    /** Posts buffer {@code index}; throws when the queue refuses (its QP went to ERR). */
    void post(final int index) {
        if (srq != null) {
            srq.postReceive(receives[index]);
        } else {
            queuePair.postReceive(receives[index]);
        }
    }

    /** Reposts a shared buffer; a refusal (the SRQ is being destroyed at shutdown) is left to the close. */
    static void repostShared(final ReceiveBuffers shared, final int index) {
        try {
            shared.post(index);
        } catch (RuntimeException e) {
            // only at shutdown: the SRQ goes with the target
        }
    }

    public long offset(final int index) {
        return (long) index * bufferLength;
    }

    @Override
    public void close() {
        region.close();
        arena.close();
    }
}
