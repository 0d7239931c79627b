package org.rdmablock.initiator;

import org.rdmablock.verbs.SendWorkRequest;

/**
 * One SRP_CMD in flight on a channel, preallocated per queue slot: its tag (slot index and a generation, so that a
 * response to an earlier use is told apart), the IU buffer and bounce buffer of its slot, the SEND that carries the
 * IU, and which part of which {@link IoRequest} it moves. Touched by the channel's thread only.
 */
final class OutstandingCommand {
    final int index;
    final SendWorkRequest send = new SendWorkRequest(1);
    int generation;
    long tag;
    IoRequest request;
    /** Byte offset of this command's data inside the request's buffer. */
    long requestOffset;
    int length;
    boolean dataIn;
    /** Whether the data goes through this slot's bounce buffer (copied in for writes, out for reads). */
    boolean bounced;
    long startNanos;

    OutstandingCommand(final int index) {
        this.index = index;
    }

    /** A new tag for the next use of this slot: generation in the high bits, slot index in the low 16. */
    long nextTag() {
        generation = (generation + 1) & 0x7FFF_FFFF;
        tag = ((long) generation << 16) | index;
        return tag;
    }
}
