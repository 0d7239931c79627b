package org.rdmablock.initiator;

import org.rdmablock.verbs.ReceiveWorkRequest;

/** Posts a channel's receive buffers again once what they held is taken, on the agent thread. */
final class ReceiveBuffers {
    private final ChannelState state;
    private final ReceiveWorkRequest[] receives;

    ReceiveBuffers(final ChannelState state, final ChannelMemory memory) {
        this.state = state;
        this.receives = memory.receiveRequests();
    }

    /** Posts receive buffer {@code receive} again on the channel's QP; a failure means the connection is lost. */
    void repost(final int receive) {
        if (!state.hasFailed()) {
            try {
                state.queuePair().postReceive(receives[receive]);
            } catch (RuntimeException e) {
                state.lost("repost failed: " + e.getMessage());
            }
        }
    }
}
