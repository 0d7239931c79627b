package org.rdmablock.protocol.scsi;

import java.lang.foreign.MemorySegment;

/**
 * Writes the CDBs (and the UNMAP parameter list) a transport that speaks other than SCSI translates its block commands
 * into, so that they execute on a {@link LogicalUnit} as any SCSI command does (the NVMe front end's Read, Write,
 * Compare, Flush, Write Zeroes and Dataset Management): the 16-byte forms of SBC-4, big-endian, each field at its
 * named offset. Allocates nothing.
 */
public final class CdbWriter {
    /** Bytes of every CDB written here. */
    public static final int LENGTH_16 = 16;
    /** UNMAP's CDB is 10 bytes. */
    public static final int UNMAP_LENGTH = 10;
    /** Byte 1 of READ / WRITE (16): FUA. */
    public static final int FUA_BIT = 0x08;
    /** Byte 1 of WRITE SAME (16): UNMAP, and NDOB (no data-out buffer: zeroes). */
    public static final int WRITE_SAME_UNMAP_BIT = 0x08;
    public static final int WRITE_SAME_NDOB_BIT = 0x01;
    /** Byte 1 of VERIFY (16): BYTCHK 01b, the data-out compared with the medium. */
    public static final int VERIFY_BYTCHK_DATA_OUT = 0x02;
    /** The 16-byte forms: the flags byte, the LBA, the block count. */
    public static final int FLAGS_OFFSET = 1;
    public static final int LBA_16_OFFSET = 2;
    public static final int BLOCKS_16_OFFSET = 10;
    /** UNMAP: the parameter list length. */
    public static final int UNMAP_PARAMETER_LENGTH_OFFSET = 7;
    /** The UNMAP parameter list: its header, then block descriptors of LBA, block count and 4 reserved bytes. */
    public static final int UNMAP_HEADER_LENGTH = 8;
    public static final int UNMAP_DATA_LENGTH_OFFSET = 0;
    public static final int UNMAP_DESCRIPTORS_LENGTH_OFFSET = 2;
    public static final int UNMAP_DESCRIPTOR_LENGTH = 16;
    public static final int UNMAP_DESCRIPTOR_LBA_OFFSET = 0;
    public static final int UNMAP_DESCRIPTOR_BLOCKS_OFFSET = 8;

    /** Copied over a CDB or a header before its fields are set: a slice filled would be an object per call. */
    private static final MemorySegment ZEROES = MemorySegment.ofArray(new byte[LENGTH_16]);

    private CdbWriter() {
    }

    /** READ (16) of {@code blocks} from {@code lba}; returns the CDB's length. */
    public static int read16(final MemorySegment cdb, final long lba, final long blocks, final boolean fua) {
        return sixteen(cdb, ScsiOpcode.READ_16, fua ? FUA_BIT : 0, lba, blocks);
    }

    /** WRITE (16) of {@code blocks} at {@code lba}. */
    public static int write16(final MemorySegment cdb, final long lba, final long blocks, final boolean fua) {
        return sixteen(cdb, ScsiOpcode.WRITE_16, fua ? FUA_BIT : 0, lba, blocks);
    }

    /** VERIFY (16) of {@code blocks} at {@code lba} against as many blocks of data-out (a compare). */
    public static int compare16(final MemorySegment cdb, final long lba, final long blocks) {
        return sixteen(cdb, ScsiOpcode.VERIFY_16, VERIFY_BYTCHK_DATA_OUT, lba, blocks);
    }

    /** SYNCHRONIZE CACHE (16) of the whole medium (LBA 0, 0 blocks). */
    public static int synchronizeCache16(final MemorySegment cdb) {
        return sixteen(cdb, ScsiOpcode.SYNCHRONIZE_CACHE_16, 0, 0, 0);
    }

    /** WRITE SAME (16) of zeroes without a data-out buffer (NDOB) over {@code blocks} at {@code lba}, unmapping them if asked. */
    public static int writeZeroes16(final MemorySegment cdb, final long lba, final long blocks, final boolean unmap) {
        return sixteen(cdb, ScsiOpcode.WRITE_SAME_16, WRITE_SAME_NDOB_BIT | (unmap ? WRITE_SAME_UNMAP_BIT : 0), lba, blocks);
    }

    /** UNMAP with a parameter list of {@code descriptors} block descriptors. */
    public static int unmap(final MemorySegment cdb, final int descriptors) {
        MemorySegment.copy(ZEROES, 0, cdb, 0, UNMAP_LENGTH);
        BigEndian.put8(cdb, 0, ScsiOpcode.UNMAP);
        BigEndian.put16(cdb, UNMAP_PARAMETER_LENGTH_OFFSET, unmapListLength(descriptors));
        return UNMAP_LENGTH;
    }

    /** Bytes of an UNMAP parameter list of {@code descriptors} block descriptors. */
    public static int unmapListLength(final int descriptors) {
        return UNMAP_HEADER_LENGTH + descriptors * UNMAP_DESCRIPTOR_LENGTH;
    }

    /** The UNMAP parameter list's header at {@code at}, for {@code descriptors} block descriptors after it. */
    public static void unmapHeader(final MemorySegment list, final long at, final int descriptors) {
        MemorySegment.copy(ZEROES, 0, list, at, UNMAP_HEADER_LENGTH);
        BigEndian.put16(list, at + UNMAP_DATA_LENGTH_OFFSET, unmapListLength(descriptors) - 2);
        BigEndian.put16(list, at + UNMAP_DESCRIPTORS_LENGTH_OFFSET, descriptors * UNMAP_DESCRIPTOR_LENGTH);
    }

    /** UNMAP block descriptor {@code index} of the list at {@code at}: {@code blocks} from {@code lba}. */
    public static void unmapDescriptor(final MemorySegment list, final long at, final int index, final long lba,
                                       final long blocks) {
        final long d = at + UNMAP_HEADER_LENGTH + (long) index * UNMAP_DESCRIPTOR_LENGTH;
        BigEndian.put64(list, d + UNMAP_DESCRIPTOR_LBA_OFFSET, lba);
        BigEndian.put32(list, d + UNMAP_DESCRIPTOR_BLOCKS_OFFSET, blocks);
        BigEndian.put32(list, d + UNMAP_DESCRIPTOR_BLOCKS_OFFSET + 4, 0);
    }

    private static int sixteen(final MemorySegment cdb, final int opcode, final int flags, final long lba, final long blocks) {
        MemorySegment.copy(ZEROES, 0, cdb, 0, LENGTH_16);
        BigEndian.put8(cdb, 0, opcode);
        BigEndian.put8(cdb, FLAGS_OFFSET, flags);
        BigEndian.put64(cdb, LBA_16_OFFSET, lba);
        BigEndian.put32(cdb, BLOCKS_16_OFFSET, blocks);
        return LENGTH_16;
    }
}
