package org.rdmablock.protocol.srp;

import java.lang.foreign.MemorySegment;

/**
 * An indirect data buffer descriptor: Linux {@code struct srp_indirect_buf} in {@code include/scsi/srp.h}
 * (T10 SRP r16a 5.7.3). A 16-byte table descriptor locating the whole descriptor table in initiator
 * memory, the 4-byte total data length, then (packed at offset 20) as many direct descriptors as the
 * command's descriptor count says are carried inside the IU. When the IU carries fewer than the table
 * holds, the rest must be fetched from initiator memory ({@link SrpCommand#dataOutTableIsExternal()}).
 */
public final class SrpIndirectBuffer {
    /** Size of the header before the descriptor list. */
    public static final int HEADER_LENGTH = 20;
    /** The table descriptor ({@code va, key, len} of the whole table), 16 bytes. */
    public static final int TABLE_DESC_OFFSET = 0;
    /** Total length of the data the descriptors describe, 4 bytes. */
    public static final int TOTAL_LEN_OFFSET = 16;
    /** First direct descriptor of the in-IU list. */
    public static final int DESC_LIST_OFFSET = 20;

    private MemorySegment segment;
    private long offset;

    /** Points this flyweight at the indirect descriptor at {@code offset} in {@code segment}. */
    public SrpIndirectBuffer wrap(MemorySegment segment, long offset) {
        this.segment = segment;
        this.offset = offset;
        return this;
    }

    /** Encoded length with {@code descriptors} direct descriptors in the IU. */
    public static int length(int descriptors) {
        return HEADER_LENGTH + descriptors * SrpDirectBuffer.LENGTH;
    }

    public long tableVirtualAddress() {
        return segment.get(SrpInformationUnit.BE_LONG, offset + TABLE_DESC_OFFSET);
    }

    public int tableKey() {
        return segment.get(SrpInformationUnit.BE_INT, offset + TABLE_DESC_OFFSET + SrpDirectBuffer.KEY_OFFSET);
    }

    /** Length of the whole descriptor table in bytes (unsigned). */
    public long tableLength() {
        return Integer.toUnsignedLong(segment.get(SrpInformationUnit.BE_INT, offset + TABLE_DESC_OFFSET + SrpDirectBuffer.LEN_OFFSET));
    }

    /** Number of direct descriptors in the whole table ({@link #tableLength()} / 16). */
    public long tableDescriptorCount() {
        return tableLength() / SrpDirectBuffer.LENGTH;
    }

    /** Total data length (unsigned). */
    public long totalLength() {
        return Integer.toUnsignedLong(segment.get(SrpInformationUnit.BE_INT, offset + TOTAL_LEN_OFFSET));
    }

    public long descriptorVirtualAddress(int index) {
        return segment.get(SrpInformationUnit.BE_LONG, descriptorAt(index) + SrpDirectBuffer.VA_OFFSET);
    }

    public int descriptorKey(int index) {
        return segment.get(SrpInformationUnit.BE_INT, descriptorAt(index) + SrpDirectBuffer.KEY_OFFSET);
    }

    public long descriptorLength(int index) {
        return Integer.toUnsignedLong(segment.get(SrpInformationUnit.BE_INT, descriptorAt(index) + SrpDirectBuffer.LEN_OFFSET));
    }

    /** Writes the table descriptor and total length. */
    public SrpIndirectBuffer setTable(long virtualAddress, int key, long tableLength, long totalLength) {
        segment.set(SrpInformationUnit.BE_LONG, offset + TABLE_DESC_OFFSET, virtualAddress);
        segment.set(SrpInformationUnit.BE_INT, offset + TABLE_DESC_OFFSET + SrpDirectBuffer.KEY_OFFSET, key);
        segment.set(SrpInformationUnit.BE_INT, offset + TABLE_DESC_OFFSET + SrpDirectBuffer.LEN_OFFSET, (int) tableLength);
        segment.set(SrpInformationUnit.BE_INT, offset + TOTAL_LEN_OFFSET, (int) totalLength);
        return this;
    }

    /** Writes the {@code index}th in-IU direct descriptor. */
    public SrpIndirectBuffer setDescriptor(int index, long virtualAddress, int key, long length) {
        long at = descriptorAt(index);
        segment.set(SrpInformationUnit.BE_LONG, at + SrpDirectBuffer.VA_OFFSET, virtualAddress);
        segment.set(SrpInformationUnit.BE_INT, at + SrpDirectBuffer.KEY_OFFSET, key);
        segment.set(SrpInformationUnit.BE_INT, at + SrpDirectBuffer.LEN_OFFSET, (int) length);
        return this;
    }

    private long descriptorAt(int index) {
        return offset + DESC_LIST_OFFSET + (long) index * SrpDirectBuffer.LENGTH;
    }
}
