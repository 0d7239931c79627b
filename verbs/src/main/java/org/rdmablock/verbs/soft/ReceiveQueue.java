package org.rdmablock.verbs.soft;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import org.rdmablock.verbs.PostFailedException;
import org.rdmablock.verbs.ReceiveWorkRequest;
import org.rdmablock.verbs.ScatterGatherList;
import org.rdmablock.verbs.VerbsException;

/**
 * A ring of posted receive work requests, copied at post time into preallocated slots. Posting and taking
 * lock the queue: a shared receive queue has several consumers, and a QP's error transition (any thread)
 * drains it while its I/O agent may be taking; the lock is uncontended in the common case.
 */
final class ReceiveQueue {
    private static final VarHandle TAIL;
    private static final VarHandle HEAD;

    static {
        try {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            TAIL = lookup.findVarHandle(ReceiveQueue.class, "tail", long.class);
            HEAD = lookup.findVarHandle(ReceiveQueue.class, "head", long.class);
        } catch (final ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final int capacity;
    private final int maxSge;
    private final int mask;
    private final long[] wrIds;
    private final int[] sgeCounts;
    private final long[] addresses;
    private final int[] lengths;
    private final int[] lkeys;
    private volatile long tail;
    private volatile long head;

    ReceiveQueue(final int capacity, final int maxSge) {
        this.capacity = capacity;
        this.maxSge = maxSge;
        final int slots = Integer.highestOneBit(Math.max(1, capacity - 1)) << 1;
        this.mask = slots - 1;
        wrIds = new long[slots];
        sgeCounts = new int[slots];
        addresses = new long[slots * maxSge];
        lengths = new int[slots * maxSge];
        lkeys = new int[slots * maxSge];
    }

    int capacity() {
        return capacity;
    }

    int maxSge() {
        return maxSge;
    }

    /** Work requests posted and not yet consumed. */
    int pending() {
        return (int) (tail - head);
    }

    /** Validates and copies a whole chain, then publishes it; nothing of a rejected chain is posted. */
    synchronized void post(final ReceiveWorkRequest first) {
        long t = tail;
        int n = 0;
        for (ReceiveWorkRequest wr = first; wr != null; wr = wr.next()) {
            if (wr.sgl().count() > maxSge) {
                throw new PostFailedException(VerbsException.EINVAL, "receive work request has " + wr.sgl().count() + " SGEs, max " + maxSge, 0);
            }
            n++;
        }
        if (t + n - head > capacity) {
            throw new PostFailedException(VerbsException.ENOMEM, "receive queue full (" + capacity + " work requests)", 0);
        }
        for (ReceiveWorkRequest wr = first; wr != null; wr = wr.next()) {
            final int slot = (int) t & mask;
            final ScatterGatherList sgl = wr.sgl();
            wrIds[slot] = wr.wrId();
            sgeCounts[slot] = sgl.count();
            final int base = slot * maxSge;
            for (int i = 0; i < sgl.count(); i++) {
                addresses[base + i] = sgl.address(i);
                lengths[base + i] = sgl.length(i);
                lkeys[base + i] = sgl.lkey(i);
            }
            t++;
        }
        TAIL.setRelease(this, t);
    }

    /** Takes the oldest work request into {@code out}; false when none is posted. */
    synchronized boolean take(final ReceiveWqe out) {
        return takeUnlocked(out);
    }

    private boolean takeUnlocked(final ReceiveWqe out) {
        final long h = head;
        if (h == (long) TAIL.getAcquire(this)) {
            return false;
        }
        copyOut((int) h & mask, out);
        HEAD.setRelease(this, h + 1);
        return true;
    }

    private void copyOut(final int slot, final ReceiveWqe out) {
        out.wrId = wrIds[slot];
        out.sgeCount = sgeCounts[slot];
        final int base = slot * maxSge;
        System.arraycopy(addresses, base, out.addresses, 0, out.sgeCount);
        System.arraycopy(lengths, base, out.lengths, 0, out.sgeCount);
        System.arraycopy(lkeys, base, out.lkeys, 0, out.sgeCount);
        long total = 0;
        for (int i = 0; i < out.sgeCount; i++) {
            total += out.lengths[i] & 0xFFFF_FFFFL;
        }
        out.totalLength = total;
    }

    /** Removes every pending work request, handing each to {@code sink} (flushing on QP error). */
    synchronized void drain(final ReceiveWqe scratch, final java.util.function.Consumer<ReceiveWqe> sink) {
        while (takeUnlocked(scratch)) {
            sink.accept(scratch);
        }
    }

    /** Drops every pending work request without completions (QP reset). */
    synchronized void clear() {
        HEAD.setRelease(this, tail);
    }

    /** A receive work request taken off the queue: owned by the consumer until its message completes. */
    static final class ReceiveWqe {
        long wrId;
        int sgeCount;
        final long[] addresses;
        final int[] lengths;
        final int[] lkeys;

        ReceiveWqe(final int maxSge) {
            addresses = new long[maxSge];
            lengths = new int[maxSge];
            lkeys = new int[maxSge];
        }

        /** Bytes the scatter list holds, summed once when the request is taken (every SEND segment checks it). */
        long totalLength;

        long totalLength() {
            return totalLength;
        }
    }
}
