package org.rdmablock.initiator;

import org.rdmablock.verbs.SendWorkRequest;

/**
 * One SRP_CMD in flight on a channel, preallocated per queue slot: its tag (slot index and a generation, so that a
 * response to an earlier use is told apart), the IU buffer and bounce buffer of its slot, the SEND that carries the
 * IU, and which parts of which {@link IoRequest}s it moves: one part of one request, or (merged) whole adjacent
 * requests one after another. Touched by the channel's thread only.
 */
final class OutstandingCommand {
    /** Requests one command carries at most when adjacent ones are merged (one descriptor each). */
    static final int MAX_PARTS = 16;
    final int index;
    final SendWorkRequest send = new SendWorkRequest(1);
    final IoRequest[] parts = new IoRequest[MAX_PARTS];
    /** Byte offset of each part's data inside its request's buffer. */
    final long[] partOffset = new long[MAX_PARTS];
    final int[] partLength = new int[MAX_PARTS];
    int partCount;
    int generation;
    long tag;
    /** Bytes the command moves: the parts' lengths added up. */
    int length;
    boolean dataIn;
    /** Whether the data goes through this slot's bounce buffer (copied in for writes, out for reads), parts in a row. */
    boolean bounced;
    long startNanos;
    /** An ABORT TASK for it is in flight. */
    boolean aborting;
    /**
     * Aborted: its parts went to the retry queue, but the slot stays out of use until a late response for its tag
     * comes or the channel logs in again (the target may still move data for it).
     */
    boolean quarantined;

    OutstandingCommand(final int index) {
        this.index = index;
    }

    /** A new tag for the next use of this slot: generation in the high bits, slot index in the low 16. */
    long nextTag() {
        generation = (generation + 1) & 0x7FFF_FFFF;
        tag = ((long) generation << 16) | index;
        return tag;
    }

    /** The slot a tag names (its low 16 bits). */
    static int slotOf(final long tag) {
        return (int) (tag & 0xFFFF);
    }

    boolean inUse() {
        return partCount > 0;
    }

    void add(final IoRequest request, final long offset, final int bytes) {
        parts[partCount] = request;
        partOffset[partCount] = offset;
        partLength[partCount] = bytes;
        partCount++;
        length += bytes;
    }

    /** The slot's use ended: nothing of it carries over to the next command in the slot. */
    void clear() {
        for (int i = 0; i < partCount; i++) {
            parts[i] = null;
        }
        partCount = 0;
        length = 0;
        // answered while its ABORT TASK was on the way: the next command here must still be timed out
        aborting = false;
    }
}
