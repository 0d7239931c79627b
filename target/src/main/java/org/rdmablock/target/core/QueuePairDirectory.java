package org.rdmablock.target.core;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * QP number to channel id, for completions of the shared receive queue, which carry no channel in their work request
 * id. Open addressing over one {@link AtomicLongArray} of {@code qpn << 32 | channel} entries: the login thread adds,
 * the intake stage removes, the poller looks up, all without locks or allocation.
 */
final class QueuePairDirectory {
    private static final long EMPTY = 0;
    /** A removed entry: lookups probe past it, adds may reuse it. */
    private static final long REMOVED = -1;

    private final AtomicLongArray entries;
    private final int mask;

    QueuePairDirectory(final int maxChannels) {
        final int size = Integer.highestOneBit(Math.max(4, maxChannels * 4) - 1) << 1;
        entries = new AtomicLongArray(size);
        mask = size - 1;
    }

    void add(final int qpn, final int channel) {
        final long entry = ((long) (qpn + 1) << 32) | channel; // +1: QP number 0 must not look EMPTY
        for (int i = hash(qpn); ; i = (i + 1) & mask) {
            final long current = entries.get(i);
            if ((current == EMPTY || current == REMOVED) && entries.compareAndSet(i, current, entry)) {
                return;
            }
        }
    }

    void remove(final int qpn) {
        for (int i = hash(qpn), probes = 0; probes <= mask; i = (i + 1) & mask, probes++) {
            final long current = entries.get(i);
            if (current == EMPTY) {
                return;
            }
            if (current != REMOVED && (int) (current >>> 32) == qpn + 1) {
                entries.compareAndSet(i, current, REMOVED);
                return;
            }
        }
    }

    /** The channel of QP {@code qpn}, or -1. */
    int channelOf(final int qpn) {
        for (int i = hash(qpn), probes = 0; probes <= mask; i = (i + 1) & mask, probes++) {
            final long current = entries.get(i);
            if (current == EMPTY) {
                return -1;
            }
            if (current != REMOVED && (int) (current >>> 32) == qpn + 1) {
                return (int) current;
            }
        }
        return -1;
    }

    private int hash(final int qpn) {
        return (qpn * 0x9E3779B9) >>> 16 & mask;
    }
}
