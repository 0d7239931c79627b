package org.rdmablock.initiator;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Puts each request on a channel, on the submitting thread (a callback included, which never waits for room): the
 * channel the policy picks (the thread's own, or the next in turn), in a slot claimed in its ring, filled in place and
 * published.
 */
final class RequestRouter {
    private final List<InitiatorChannel> channels;
    private final InitiatorConfig.ChannelPolicy policy;
    /** Bytes a RAW command carries at most: one bounce buffer. */
    private final int rawMaxTransfer;
    private final AtomicInteger roundRobin = new AtomicInteger();
    /**
     * PER_THREAD: each submitting thread gets the next channel in turn on its first submission and keeps it (thread
     * ids are not dense, so id modulo channels could put two threads on one channel).
     */
    private final ThreadLocal<InitiatorChannel> threadChannel;

    /** Routes over {@code channels}, which the session fills before the first request. */
    RequestRouter(final List<InitiatorChannel> channels, final InitiatorConfig.ChannelPolicy policy, final int rawMaxTransfer) {
        this.channels = channels;
        this.policy = policy;
        this.rawMaxTransfer = rawMaxTransfer;
        this.threadChannel = ThreadLocal.withInitial(() -> channels.get(nextInTurn()));
    }

    /** Submits a read or write of {@code blocks} at {@code lba}, its buffer registered under {@code rkey} (or not). */
    void submit(final int op, final long lunField, final int blockSize, final int maxTransferBytes, final long lba,
                final long blocks, final MemorySegment buffer, final long offset, final int rkey, final boolean fua,
                final Object attachment, final IoCallback callback) {
        final InitiatorChannel channel = pick();
        final long sequence = channel.claim(); // on a channel's own thread (a callback): never waits, may throw
        channel.request(sequence).set(op, lunField, blockSize, lba, blocks, buffer, offset, rkey, fua, maxTransferBytes,
                attachment, callback);
        channel.publish(sequence);
    }

    /** Submits a CDB-given command (flush, unmap, discovery); {@code prepare} fills the request's CDB and data fields. */
    void submitRaw(final long lunField, final RawCommand prepare, final MemorySegment buffer, final Object attachment,
                   final IoCallback callback) {
        final InitiatorChannel channel = pick();
        final long sequence = channel.claim();
        final IoRequest request = channel.request(sequence);
        request.set(IoRequest.RAW, lunField, 1, 0, 1, buffer, 0, RegisteredMemory.NOT_REGISTERED, false, rawMaxTransfer,
                attachment, callback);
        prepare.fill(request);
        channel.publish(sequence);
    }

    private InitiatorChannel pick() {
        if (channels.size() == 1) {
            return channels.get(0);
        }
        return switch (policy) {
            case PER_THREAD -> threadChannel.get();
            case ROUND_ROBIN -> channels.get(nextInTurn());
        };
    }

    private int nextInTurn() {
        return (roundRobin.getAndIncrement() & Integer.MAX_VALUE) % channels.size();
    }
}
