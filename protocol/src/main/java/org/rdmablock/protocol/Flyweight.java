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

    protected Flyweight() {
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
