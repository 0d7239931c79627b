package org.rdmablock.initiator;

import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.WorkCompletions;

import java.util.concurrent.locks.LockSupport;

/**
 * Takes the channel's completions and what the target sends, on the agent thread.
 *
 * <p>A SEND's completion goes to the send queue's count; what each receive brought goes to the protocol's
 * {@link InboundHandler}, which posts its buffer again. A failed completion means the connection is lost.
 */
final class ChannelReceiver {
    private final ChannelState state;
    private final SendQueue sendQueue;
    private final InboundHandler inbound;
    private final MemoryRegion receiveRegion;
    private final int receiveLength;
    private final WorkCompletions completions = new WorkCompletions(32);

    ChannelReceiver(final ChannelState state, final SendQueue sendQueue, final InboundHandler inbound,
                    final ChannelMemory memory) {
        this.state = state;
        this.sendQueue = sendQueue;
        this.inbound = inbound;
        this.receiveRegion = memory.receives();
        this.receiveLength = memory.receiveLength();
    }

    /** Polls the completion queue once and handles what it held. Returns the completions taken. */
    int poll() {
        if (state.hasFailed()) {
            return 0; // the connection and its CQ are closed
        }
        final int n = state.completionQueue().poll(completions, completions.capacity());
        for (int i = 0; i < n; i++) {
            final long id = completions.wrId(i);
            if (!completions.isSuccess(i)) {
                state.lostUnlessAlready("completion failed: " + completions.toString(i));
                continue;
            }
            if (WorkRequestIds.kind(id) == WorkRequestIds.RECEIVE) {
                final int receive = WorkRequestIds.receiveIndex(id);
                inbound.received(receive, receiveRegion.segment(), (long) receive * receiveLength, completions.byteLength(i));
            } else {
                sendQueue.completed(id);
            }
        }
        return n;
    }

    /**
     * After the agent stopped (closing thread): polls until a control SEND completes (the logout went) or the deadline
     * passes.
     */
    void awaitControlSent(final long deadline) {
        while (System.nanoTime() < deadline) {
            final int n = state.completionQueue().poll(completions, completions.capacity());
            for (int i = 0; i < n; i++) {
                if (WorkRequestIds.kind(completions.wrId(i)) == WorkRequestIds.CONTROL) {
                    return;
                }
            }
            if (n == 0) {
                LockSupport.parkNanos(100_000);
            }
        }
    }
}
