package org.rdmablock.initiator;

import org.rdmablock.verbs.MemoryRegion;

import java.lang.foreign.MemorySegment;

/**
 * Builds the command a protocol sends for a request, in its slot's IU buffer, on the agent thread: an SRP_CMD
 * ({@link SrpCommandEncoder}) or an NVMe submission entry ({@link NvmeCommandEncoder}). Holds what both use: the IU
 * buffers and the bounce buffers, one of each per command slot.
 */
abstract class CommandEncoder {
    private final MemoryRegion ius;
    private final int iuLength;
    /** Per command slot, the registered buffer that carries the data of a caller's buffer that is not registered. */
    final MemoryRegion bounce;
    final int bounceBytes;

    CommandEncoder(final ChannelMemory memory) {
        this.ius = memory.ius();
        this.iuLength = memory.iuLength();
        this.bounce = memory.bounce();
        this.bounceBytes = memory.bounceBytes();
    }

    /** Bytes one command of {@code request} may carry: its LUN's maximum transfer, and a bounce buffer without registration. */
    int maxCommandBytes(final IoRequest request) {
        return request.rkey != RegisteredMemory.NOT_REGISTERED ? request.maxTransferBytes
                : Math.min(bounceBytes, request.maxTransferBytes);
    }

    /**
     * Data bytes of a request that is not a read or write of blocks (flush, unmap, a CDB-given command): one command,
     * the data from its inline bytes or buffer.
     */
    abstract int controlDataLength(IoRequest request);

    /** Whether one command may carry several registered buffers (merged requests; SRP's indirect descriptor list). */
    abstract boolean carriesSeveralBuffers();

    /** What the login (again) granted: the largest write that goes inside the command (0: none). */
    abstract void immediateLimit(int bytes);

    /**
     * Builds the command for the parts in {@code c} ({@code request} is its first) in {@code c}'s IU buffer; sets
     * {@code c.dataIn} and {@code c.bounced}. Returns the command's length.
     */
    abstract int encode(IoRequest request, OutstandingCommand c);

    /** The region of the channel's IU buffers (each command slot's, then the control IUs'). */
    final MemoryRegion ius() {
        return ius;
    }

    /** Where {@code c}'s IU buffer starts in {@link #ius}. */
    final long iuOffset(final OutstandingCommand c) {
        return (long) c.index * iuLength;
    }

    /** Where {@code c}'s slot's bounce buffer starts in the bounce region. */
    final long bounceOffset(final OutstandingCommand c) {
        return (long) c.index * bounceBytes;
    }

    /**
     * Where {@code c}'s data is when it goes in one buffer: the caller's registered one, or the slot's bounce buffer
     * (into which a write's data, {@code out}, is gathered first; {@code c.bounced} set).
     */
    final long singleBuffer(final IoRequest request, final OutstandingCommand c, final boolean out) {
        if (request.rkey != RegisteredMemory.NOT_REGISTERED) {
            return request.buffer.address() + request.bufferOffset + c.partOffset[0];
        }
        c.bounced = true;
        if (out) {
            gather(c, bounce.segment(), bounceOffset(c));
        }
        return bounce.address() + bounceOffset(c);
    }

    /** The remote key of {@link #singleBuffer}'s buffer. */
    final int singleBufferKey(final IoRequest request) {
        return request.rkey != RegisteredMemory.NOT_REGISTERED ? request.rkey : bounce.rkey();
    }

    /** Copies the data-out of each part of {@code c}, one after another, to {@code at} of {@code to}. */
    static void gather(final OutstandingCommand c, final MemorySegment to, final long at) {
        long offset = at;
        for (int i = 0; i < c.partCount; i++) {
            final IoRequest part = c.parts[i];
            MemorySegment.copy(source(part), part.bufferOffset + c.partOffset[i], to, offset, c.partLength[i]);
            offset += c.partLength[i];
        }
    }

    /** Where a request's data-out comes from: the caller's buffer, or (an unmap, or a RAW command with none) its inline bytes. */
    static MemorySegment source(final IoRequest request) {
        return request.buffer != null ? request.buffer : request.inline;
    }
}
