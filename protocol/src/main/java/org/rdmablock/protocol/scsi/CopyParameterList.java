package org.rdmablock.protocol.scsi;

import java.lang.foreign.MemorySegment;

import static org.rdmablock.protocol.scsi.BigEndian.get16;
import static org.rdmablock.protocol.scsi.BigEndian.get32;
import static org.rdmablock.protocol.scsi.BigEndian.get64;
import static org.rdmablock.protocol.scsi.BigEndian.get8;

/**
 * EXTENDED COPY(LID1)'s parameter list (SPC-4 6.4.3), as a flyweight over the data-out: a 16-byte header, the copy
 * source and destination (CSCD) descriptors, then the segment descriptors. Of the CSCD types only the identification
 * descriptor (E4h: a unit named by a Device Identification VPD designator) and of the segment types only block to
 * block (02h) are served, the pair VMware and {@code sg_xcopy} send. Big-endian throughout; offsets are from the start
 * of the list, of a descriptor, or of a designation descriptor as each constant says.
 */
public final class CopyParameterList {
    public static final int HEADER_LENGTH = 16;
    public static final int LIST_IDENTIFIER_OFFSET = 0;
    /** STR (bit 5), LIST ID USAGE (bits 4-3) and PRIORITY (bits 2-0). */
    public static final int FLAGS_OFFSET = 1;
    public static final int CSCD_LIST_LENGTH_OFFSET = 2;
    public static final int SEGMENT_LIST_LENGTH_OFFSET = 8;
    public static final int INLINE_DATA_LENGTH_OFFSET = 12;

    /** Every CSCD descriptor type is 32 bytes long (the extension type aside, not served). */
    public static final int CSCD_LENGTH = 32;
    public static final int CSCD_TYPE_OFFSET = 0;
    /** LU ID TYPE (bits 7-6), NUL (bit 5), PERIPHERAL DEVICE TYPE (bits 4-0): a block device is all zero. */
    public static final int CSCD_DEVICE_TYPE_OFFSET = 1;
    /** The designation descriptor as VPD 83h carries it: code set, association and type, length, designator. */
    public static final int CSCD_DESIGNATION_OFFSET = 4;
    public static final int CSCD_DESIGNATION_MAX = 20;
    /** Block device type specific parameters: PAD (byte 28, bit 2) and DISK BLOCK LENGTH (bytes 29-31). */
    public static final int CSCD_BLOCK_LENGTH_OFFSET = 29;
    public static final int CSCD_IDENTIFICATION = 0xE4;

    /** Within the designation descriptor (SPC-4 7.8.6.1). */
    public static final int DESIGNATION_CODE_SET_OFFSET = 0;
    public static final int DESIGNATION_TYPE_OFFSET = 1;
    public static final int DESIGNATION_LENGTH_OFFSET = 3;
    public static final int DESIGNATION_HEADER = 4;
    public static final int CODE_SET_BINARY = 0x1;
    public static final int DESIGNATOR_NAA = 0x3;

    /** Block to block segment descriptor: 28 bytes, a DESCRIPTOR LENGTH of 0018h. */
    public static final int SEGMENT_BLOCK_TO_BLOCK = 0x02;
    public static final int SEGMENT_BLOCK_TO_BLOCK_LENGTH = 28;
    public static final int SEGMENT_TYPE_OFFSET = 0;
    /** DC (bit 1), CAT (bit 0). */
    public static final int SEGMENT_FLAGS_OFFSET = 1;
    public static final int SEGMENT_DESCRIPTOR_LENGTH_OFFSET = 2;
    public static final int SEGMENT_SOURCE_OFFSET = 4;
    public static final int SEGMENT_DESTINATION_OFFSET = 6;
    public static final int SEGMENT_BLOCKS_OFFSET = 10;
    public static final int SEGMENT_SOURCE_LBA_OFFSET = 12;
    public static final int SEGMENT_DESTINATION_LBA_OFFSET = 20;

    private MemorySegment data;
    private long base;

    /** Wraps the list at {@code offset} of {@code buffer}; the caller checked that the header is there. */
    public CopyParameterList wrap(MemorySegment buffer, long offset) {
        this.data = buffer;
        this.base = offset;
        return this;
    }

    public int cscdListLength() {
        return get16(data, base + CSCD_LIST_LENGTH_OFFSET);
    }

    public long segmentListLength() {
        return get32(data, base + SEGMENT_LIST_LENGTH_OFFSET);
    }

    public long inlineDataLength() {
        return get32(data, base + INLINE_DATA_LENGTH_OFFSET);
    }

    /** Offset, from the list's start, of CSCD descriptor {@code index}. */
    public static long cscdAt(int index) {
        return HEADER_LENGTH + (long) index * CSCD_LENGTH;
    }

    /** Offset, from the list's start, of segment descriptor {@code index} (after {@code cscdListLength} bytes of CSCDs). */
    public static long segmentAt(int cscdListLength, int index) {
        return HEADER_LENGTH + cscdListLength + (long) index * SEGMENT_BLOCK_TO_BLOCK_LENGTH;
    }

    /** The byte at {@code at} from the list's start. */
    public int u8(long at) {
        return get8(data, base + at);
    }

    public int u16(long at) {
        return get16(data, base + at);
    }

    public long u64(long at) {
        return get64(data, base + at);
    }

    /** The 24-bit DISK BLOCK LENGTH of the CSCD descriptor at {@code cscd}. */
    public int diskBlockLength(long cscd) {
        return (u8(cscd + CSCD_BLOCK_LENGTH_OFFSET) << 16) | u16(cscd + CSCD_BLOCK_LENGTH_OFFSET + 1);
    }
}
