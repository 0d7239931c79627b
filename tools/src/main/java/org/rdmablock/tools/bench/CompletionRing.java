package org.rdmablock.tools.bench;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The slots a bench thread's I/Os completed in, as the initiator's channel threads report them: many producers (one
 * per channel), one consumer (the bench thread), no allocation. It never holds more entries than the thread has I/Os
 * in flight, which its capacity covers, so a push never waits.
 */
final class CompletionRing {
    /** Per cell: the position it was written for, plus one, in the high 48 bits; the slot index in the low 16. */
    private final AtomicLongArray cells;
    private final AtomicLong tail = new AtomicLong();
    private final int mask;
    private long head;

    /** A ring for at most {@code entries} completions outstanding at once. */
    CompletionRing(final int entries) {
        final int capacity = Integer.highestOneBit(Math.max(1, entries - 1)) << 1;
        if (capacity > 1 << 16) {
            throw new IllegalArgumentException("at most 65536 completions outstanding, not " + entries);
        }
        cells = new AtomicLongArray(capacity);
        mask = capacity - 1;
    }

    /**
     * Any thread: slot {@code slot} completed. A volatile write, so that a consumer about to park sees it (Dekker). The
     * cell is stamped with its position: the consumer never has to clear it, and a value of an earlier lap is never
     * taken for a new one.
     */
    void push(final int slot) {
        final long position = tail.getAndIncrement();
        cells.set((int) (position & mask), (position + 1) << 16 | slot);
    }

    /** The consumer: the next completed slot, or -1 when none is there yet. */
    int poll() {
        final long value = cells.get((int) (head & mask));
        if (value >>> 16 != head + 1) {
            return -1;
        }
        head++;
        return (int) (value & 0xFFFF);
    }

    /** The consumer: whether a completion waits. */
    boolean isEmpty() {
        return cells.get((int) (head & mask)) >>> 16 != head + 1;
    }
}
