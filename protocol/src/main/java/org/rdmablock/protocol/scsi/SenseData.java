package org.rdmablock.protocol.scsi;

import static org.rdmablock.protocol.scsi.BigEndian.get16;
import static org.rdmablock.protocol.scsi.BigEndian.get8;
import static org.rdmablock.protocol.scsi.BigEndian.put16;
import static org.rdmablock.protocol.scsi.BigEndian.put32;
import static org.rdmablock.protocol.scsi.BigEndian.put64;
import static org.rdmablock.protocol.scsi.BigEndian.put8;

import java.lang.foreign.MemorySegment;

/**
 * Builds and reads SCSI sense data in both formats of SPC-4 4.5: fixed format (response code 0x70, 18
 * bytes) and descriptor format (0x72, an 8-byte header followed by an information descriptor and a
 * sense-key-specific descriptor when they apply). Writes into a caller-owned segment; allocates nothing.
 *
 * <p>The sense-key-specific field pointer (SKSV=1) tells the initiator which CDB or parameter-list byte
 * (and bit) was wrong; sg3_utils prints it.
 */
public final class SenseData {
    /** Largest sense data SPC allows (and the size of {@link ScsiCommand}'s sense buffer). */
    public static final int MAX_LENGTH = 252;
    /** Fixed-format length built here: 8 header bytes plus an additional length of 10. */
    public static final int FIXED_LENGTH = 18;
    /** Fixed format, current error. */
    public static final int RESPONSE_FIXED_CURRENT = 0x70;
    /** Descriptor format, current error. */
    public static final int RESPONSE_DESCRIPTOR_CURRENT = 0x72;
    /** No field pointer. */
    public static final int NO_FIELD = -1;

    private SenseData() {
    }

    /**
     * Writes sense data for {@code code} at {@code offset} and returns its length.
     *
     * @param information     the INFORMATION field (for example the failing LBA), or -1 for none
     * @param fieldPointer    byte index of the offending field, or {@link #NO_FIELD}
     * @param inCdb           whether the field pointer points into the CDB (C/D=1) or the parameter list
     * @param bitPointer      the offending bit 0..7 within that byte, or -1 for none
     */
    public static int write(MemorySegment dst, long offset, SenseFormat format, SenseCode code,
                            long information, int fieldPointer, boolean inCdb, int bitPointer) {
        return format == SenseFormat.DESCRIPTOR
                ? writeDescriptor(dst, offset, code, information, fieldPointer, inCdb, bitPointer)
                : writeFixed(dst, offset, code, information, fieldPointer, inCdb, bitPointer);
    }

    /** Writes sense data for {@code code} without information or field pointer. */
    public static int write(MemorySegment dst, long offset, SenseFormat format, SenseCode code) {
        return write(dst, offset, format, code, -1, NO_FIELD, false, -1);
    }

    private static int writeFixed(MemorySegment dst, long offset, SenseCode code, long information,
                                  int fieldPointer, boolean inCdb, int bitPointer) {
        dst.asSlice(offset, FIXED_LENGTH).fill((byte) 0);
        // VALID only when the information fits the 4-byte fixed-format field.
        boolean valid = information >= 0 && information <= 0xFFFF_FFFFL;
        put8(dst, offset, RESPONSE_FIXED_CURRENT | (valid ? 0x80 : 0));
        put8(dst, offset + 2, code.senseKey());
        if (valid) {
            put32(dst, offset + 3, information);
        }
        put8(dst, offset + 7, FIXED_LENGTH - 8);
        put8(dst, offset + 12, code.asc());
        put8(dst, offset + 13, code.ascq());
        if (fieldPointer >= 0) {
            writeSenseKeySpecific(dst, offset + 15, fieldPointer, inCdb, bitPointer);
        }
        return FIXED_LENGTH;
    }

    private static int writeDescriptor(MemorySegment dst, long offset, SenseCode code, long information,
                                       int fieldPointer, boolean inCdb, int bitPointer) {
        int length = 8;
        dst.asSlice(offset, length).fill((byte) 0);
        put8(dst, offset, RESPONSE_DESCRIPTOR_CURRENT);
        put8(dst, offset + 1, code.senseKey());
        put8(dst, offset + 2, code.asc());
        put8(dst, offset + 3, code.ascq());
        if (information >= 0) {
            // Information descriptor: type 0x00, additional length 0x0A, VALID, 8-byte information.
            long at = offset + length;
            dst.asSlice(at, 12).fill((byte) 0);
            put8(dst, at, 0x00);
            put8(dst, at + 1, 0x0A);
            put8(dst, at + 2, 0x80);
            put64(dst, at + 4, information);
            length += 12;
        }
        if (fieldPointer >= 0) {
            // Sense-key specific descriptor: type 0x02, additional length 0x06, the 3 SKS bytes at 4.
            long at = offset + length;
            dst.asSlice(at, 8).fill((byte) 0);
            put8(dst, at, 0x02);
            put8(dst, at + 1, 0x06);
            writeSenseKeySpecific(dst, at + 4, fieldPointer, inCdb, bitPointer);
            length += 8;
        }
        put8(dst, offset + 7, length - 8);
        return length;
    }

    /** SKSV | C/D | BPV | bit pointer, then the 2-byte field pointer (SPC-4 4.5.2.4.2). */
    private static void writeSenseKeySpecific(MemorySegment dst, long at, int fieldPointer, boolean inCdb, int bitPointer) {
        int flags = 0x80 | (inCdb ? 0x40 : 0) | (bitPointer >= 0 ? 0x08 | (bitPointer & 0x07) : 0);
        put8(dst, at, flags);
        put16(dst, at + 1, fieldPointer);
    }

    /** The response code (0x70..0x73) of sense data, or -1 if there are no bytes. */
    public static int responseCode(MemorySegment src, long offset, int length) {
        return length < 1 ? -1 : get8(src, offset) & 0x7F;
    }

    /** Whether the sense data is in descriptor format. */
    public static boolean isDescriptorFormat(MemorySegment src, long offset, int length) {
        int code = responseCode(src, offset, length);
        return code == 0x72 || code == 0x73;
    }

    /** The sense key of sense data in either format, or -1 if too short to tell. */
    public static int senseKey(MemorySegment src, long offset, int length) {
        if (isDescriptorFormat(src, offset, length)) {
            return length > 1 ? get8(src, offset + 1) & 0x0F : -1;
        }
        return length > 2 ? get8(src, offset + 2) & 0x0F : -1;
    }

    /** The additional sense code of sense data in either format, or -1 if too short to tell. */
    public static int asc(MemorySegment src, long offset, int length) {
        if (isDescriptorFormat(src, offset, length)) {
            return length > 2 ? get8(src, offset + 2) : -1;
        }
        return length > 12 ? get8(src, offset + 12) : -1;
    }

    /** The additional sense code qualifier of sense data in either format, or -1 if too short to tell. */
    public static int ascq(MemorySegment src, long offset, int length) {
        if (isDescriptorFormat(src, offset, length)) {
            return length > 3 ? get8(src, offset + 3) : -1;
        }
        return length > 13 ? get8(src, offset + 13) : -1;
    }

    /**
     * The field pointer of a valid sense-key-specific field (fixed bytes 15..17, or a type-2 descriptor),
     * or -1 if there is none.
     */
    public static int fieldPointer(MemorySegment src, long offset, int length) {
        long sks = senseKeySpecificAt(src, offset, length);
        if (sks < 0 || (get8(src, sks) & 0x80) == 0) {
            return -1;
        }
        return get16(src, sks + 1);
    }

    /** Whether the valid field pointer points into the CDB (C/D bit), false if none or into parameter data. */
    public static boolean fieldPointerInCdb(MemorySegment src, long offset, int length) {
        long sks = senseKeySpecificAt(src, offset, length);
        return sks >= 0 && (get8(src, sks) & 0xC0) == 0xC0;
    }

    private static long senseKeySpecificAt(MemorySegment src, long offset, int length) {
        if (!isDescriptorFormat(src, offset, length)) {
            return length >= FIXED_LENGTH ? offset + 15 : -1;
        }
        if (length < 8) {
            return -1;
        }
        int end = Math.min(length, 8 + get8(src, offset + 7));
        int at = 8;
        while (at + 2 <= end) {
            int type = get8(src, offset + at);
            int descriptorLength = 2 + get8(src, offset + at + 1);
            if (type == 0x02 && at + 7 <= end) {
                return offset + at + 4;
            }
            at += descriptorLength;
        }
        return -1;
    }
}
