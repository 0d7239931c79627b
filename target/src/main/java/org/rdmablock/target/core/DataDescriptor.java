package org.rdmablock.target.core;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * One entry of a command's descriptor list, the core's form of a remote buffer its data moves to or from by RDMA:
 * address, remote key, length, 16 bytes, big-endian. Laid out as SRP's direct data buffer descriptor (Linux
 * {@code struct srp_direct_buf}, {@code include/scsi/srp.h}), so that the SRP front end copies an initiator's list as
 * it came; a front end whose descriptors differ (NVMe's keyed SGL data block) writes its own in this form.
 */
public final class DataDescriptor {
    /** Size of an entry. */
    static final int LENGTH = 16;
    /** The remote virtual address, 8 bytes. */
    static final int ADDRESS_OFFSET = 0;
    /** The remote key, 4 bytes, opaque. */
    static final int KEY_OFFSET = 8;
    /** The length in bytes, 4 bytes, unsigned. */
    static final int LENGTH_OFFSET = 12;
    private static final ValueLayout.OfLong BE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private MemorySegment segment;
    private long offset;

    /** Points this flyweight at the entry at {@code offset} in {@code segment}. */
    DataDescriptor wrap(final MemorySegment segment, final long offset) {
        this.segment = segment;
        this.offset = offset;
        return this;
    }

    /** Writes the entry: {@code length} bytes at {@code address} under remote key {@code key}. */
    void set(final long address, final int key, final long length) {
        segment.set(BE_LONG, offset + ADDRESS_OFFSET, address);
        segment.set(BE_INT, offset + KEY_OFFSET, key);
        segment.set(BE_INT, offset + LENGTH_OFFSET, (int) length);
    }

    long address() {
        return segment.get(BE_LONG, offset + ADDRESS_OFFSET);
    }

    int key() {
        return segment.get(BE_INT, offset + KEY_OFFSET);
    }

    long length() {
        return Integer.toUnsignedLong(segment.get(BE_INT, offset + LENGTH_OFFSET));
    }
}
