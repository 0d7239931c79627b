package org.rdmablock.verbs.soft;

import java.lang.foreign.Arena;

import org.rdmablock.verbs.PostFailedException;
import org.rdmablock.verbs.SendWorkRequest;
import org.rdmablock.verbs.VerbsException;

/**
 * The send queue of a soft QP: a ring of preallocated {@link SendWqe} slots with three cursors. Posting threads
 * advance {@code tail} (under the queue's lock, after validating the whole chain); the transmitter advances
 * {@code transmitNext} as messages go on the wire; completion in posting order advances {@code head}, which
 * frees slots.
 */
final class SendQueue {
    private final SendWqe[] slots;
    private final int mask;
    private final int capacity;
    private final Arena arena = Arena.ofShared();
    private volatile long tail;
    private volatile long head;

    SendQueue(final int capacity, final int maxSge, final int maxInline) {
        this.capacity = capacity;
        final int size = Integer.highestOneBit(Math.max(1, capacity - 1)) << 1;
        mask = size - 1;
        slots = new SendWqe[size];
        for (int i = 0; i < size; i++) {
            slots[i] = new SendWqe(maxSge, maxInline, arena);
        }
    }

    int capacity() {
        return capacity;
    }

    /** The slot of sequence number {@code seq}. */
    SendWqe at(final long seq) {
        return slots[(int) seq & mask];
    }

    long tail() {
        return tail;
    }

    long head() {
        return head;
    }

    void advanceHead(final long newHead) {
        head = newHead;
    }

    /**
     * Copies a validated chain of {@code count} requests into the ring and publishes them.
     *
     * @throws VerbsException ENOMEM when they do not fit
     */
    synchronized void post(final SendWorkRequest first, final int count, final boolean signalAll, final LocalAccess access) {
        long t = tail;
        if (t + count - head > capacity) {
            throw new PostFailedException(VerbsException.ENOMEM, "send queue full (" + capacity + " work requests)", 0);
        }
        for (SendWorkRequest wr = first; wr != null; wr = wr.next()) {
            at(t).copyFrom(wr, signalAll, access);
            t++;
        }
        tail = t;
    }

    /** Drops every posted work request without completions (QP reset). */
    synchronized void clear() {
        head = tail;
    }

    void release() {
        arena.close();
    }
}
