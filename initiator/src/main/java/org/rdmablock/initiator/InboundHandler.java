package org.rdmablock.initiator;

import java.lang.foreign.MemorySegment;

/**
 * Takes what the target sent into receive buffer {@code receive} ({@code length} bytes at {@code offset} of
 * {@code buffers}), on the agent thread, and posts the buffer again ({@link ReceiveBuffers}): an SRP IU
 * ({@link SrpInbound}) or an NVMe completion ({@link NvmeInbound}).
 */
interface InboundHandler {
    void received(int receive, MemorySegment buffers, long offset, int length);
}
