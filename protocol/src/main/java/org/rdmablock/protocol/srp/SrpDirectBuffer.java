package org.rdmablock.protocol.srp;

import java.lang.foreign.MemorySegment;

/**
 * A direct data buffer descriptor, 16 bytes: Linux {@code struct srp_direct_buf} in
 * {@code include/scsi/srp.h} (T10 SRP r16a 5.7.2): the initiator memory {@code {va, key, len}} that the
 * target reads (data-out) or writes (data-in) with RDMA.
 */
public final class SrpDirectBuffer {
    /** Size of the descriptor. */
    public static final int LENGTH = 16;
    /** Virtual address, 8 bytes. */
    public static final int VA_OFFSET = 0;
    /** Memory key (rkey), 4 bytes. */
    public static final int KEY_OFFSET = 8;
    /** Length in bytes, 4 bytes. */
    public static final int LEN_OFFSET = 12;

    private MemorySegment segment;
    private long offset;

    /** Points this flyweight at the descriptor at {@code offset} in {@code segment}. */
    public SrpDirectBuffer wrap(MemorySegment segment, long offset) {
        this.segment = segment;
        this.offset = offset;
        return this;
    }

    public long virtualAddress() {
        return segment.get(SrpInformationUnit.BE_LONG, offset + VA_OFFSET);
    }

    /** The memory key; an opaque 32-bit value. */
    public int key() {
        return segment.get(SrpInformationUnit.BE_INT, offset + KEY_OFFSET);
    }

    /** The buffer length in bytes (unsigned). */
    public long length() {
        return Integer.toUnsignedLong(segment.get(SrpInformationUnit.BE_INT, offset + LEN_OFFSET));
    }

    /** Writes all three fields. */
    public SrpDirectBuffer set(long virtualAddress, int key, long length) {
        segment.set(SrpInformationUnit.BE_LONG, offset + VA_OFFSET, virtualAddress);
        segment.set(SrpInformationUnit.BE_INT, offset + KEY_OFFSET, key);
        segment.set(SrpInformationUnit.BE_INT, offset + LEN_OFFSET, (int) length);
        return this;
    }
}
