package org.rdmablock.initiator;

import org.rdmablock.protocol.nvme.NvmeCompletion;
import org.rdmablock.protocol.nvme.NvmeStatus;

import java.lang.foreign.MemorySegment;

/**
 * Takes the completions an NVMe over Fabrics controller sends on an I/O queue, on the agent thread: each completes
 * the command its identifier names ({@link ResponseMatcher}) and frees its submission queue entry (one credit back).
 * Anything that is not a 16-byte completion means the connection is lost.
 */
final class NvmeInbound implements InboundHandler {
    private final ChannelState state;
    private final ResponseMatcher matcher;
    private final Credits credits;
    private final ReceiveBuffers receives;
    private final NvmeCompletion completion = new NvmeCompletion();

    NvmeInbound(final ChannelState state, final ResponseMatcher matcher, final Credits credits,
                final ReceiveBuffers receives) {
        this.state = state;
        this.matcher = matcher;
        this.credits = credits;
        this.receives = receives;
    }

    @Override
    public void received(final int receive, final MemorySegment buffers, final long offset, final int length) {
        if (length != NvmeCompletion.LENGTH) {
            state.lost("the controller sent " + length + " bytes, not a 16-byte completion");
            return;
        }
        completion.wrap(buffers, offset);
        final int commandId = completion.commandId();
        final int status = completion.status() & ~(NvmeStatus.MORE | NvmeStatus.DO_NOT_RETRY);
        receives.repost(receive);
        credits.grant(1);
        final OutstandingCommand c = matcher.inFlightIn(commandId);
        if (c == null) {
            return;
        }
        if (status == NvmeStatus.SUCCESS) {
            matcher.answered(c, c.length);
        } else {
            matcher.failed(c, request -> new NvmeStatusException(request.describe(), status));
        }
    }
}
