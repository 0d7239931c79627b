package org.rdmablock.target.metrics;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Counters that one thread writes and any thread reads: each a slot of one array, updated with an opaque store (on
 * x86 a plain one) and no atomic read-modify-write, which the single writer does not need. A reader sees every
 * value whole and, soon, the latest one.
 */
public final class SingleWriterCounters {
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);
    private final long[] values;

    /** {@code count} counters, all 0. */
    public SingleWriterCounters(final int count) {
        this.values = new long[count];
    }

    /** Adds {@code delta} to counter {@code index}: the writing thread only. */
    public void add(final int index, final long delta) {
        SLOT.setOpaque(values, index, values[index] + delta);
    }

    /** Sets counter {@code index}: the writing thread only. */
    public void set(final int index, final long value) {
        SLOT.setOpaque(values, index, value);
    }

    /** Counter {@code index}, from any thread. */
    public long get(final int index) {
        return (long) SLOT.getOpaque(values, index);
    }
}
