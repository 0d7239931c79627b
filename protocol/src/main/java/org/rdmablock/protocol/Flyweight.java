package org.rdmablock.protocol;

import java.lang.foreign.MemorySegment;

/**
 * Base of the wire-format flyweights (SRP's information units, NVMe's entries): a window on {@code segment} at
 * {@code offset}, moved by {@link #wrap} without reading or copying anything. The subclasses read and write their
 * fields in place, each in its protocol's byte order.
 */
public abstract class Flyweight<T extends Flyweight<T>> {
    /** The segment wrapped. */
    protected MemorySegment segment;
    /** The structure's first byte within {@link #segment}. */
    protected long offset;

    /** What {@link #clear} copies: the largest structure's bytes of zeroes (NVMe's Identify data). */
    private static final MemorySegment ZEROES = MemorySegment.ofArray(new byte[4096]);

    protected Flyweight() {
    }

    /**
     * Zeroes {@code length} bytes from the structure's start, as encoders do before setting fields. Copies zeroes
     * rather than filling a slice: the slice is an object, allocated per call whenever the JIT does not inline the fill.
     */
    protected final void clear(final int length) {
        for (int done = 0; done < length; done += (int) ZEROES.byteSize()) {
            MemorySegment.copy(ZEROES, 0, segment, offset + done, Math.min(ZEROES.byteSize(), length - done));
        }
    }

    /** Points this flyweight at the structure starting at {@code offset} in {@code segment}. Returns this. */
    public final T wrap(final MemorySegment segment, final long offset) {
        this.segment = segment;
        this.offset = offset;
        return self();
    }

    /** This flyweight as its own type, for the setters' chains. */
    @SuppressWarnings("unchecked")
    protected final T self() {
        return (T) this;
    }

    /** The segment this flyweight is wrapped over. */
    public final MemorySegment segment() {
        return segment;
    }

    /** The offset of the structure's first byte within {@link #segment()}. */
    public final long offset() {
        return offset;
    }
}
