package org.rdmablock.initiator;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The command descriptor blocks the initiator sends (SBC-4, SPC-5), written big-endian straight into an IU or a
 * preallocated array, so that building one allocates nothing.
 */
final class ScsiCdb {
    static final int TEST_UNIT_READY = 0x00;
    static final int INQUIRY = 0x12;
    static final int SYNCHRONIZE_CACHE_10 = 0x35;
    static final int UNMAP = 0x42;
    static final int READ_16 = 0x88;
    static final int WRITE_16 = 0x8A;
    static final int SERVICE_ACTION_IN_16 = 0x9E;
    static final int READ_CAPACITY_16 = 0x10;
    static final int REPORT_LUNS = 0xA0;
    /** SBC-4 5.6: FUA is bit 3 of byte 1 of READ(16)/WRITE(16). */
    static final int FUA = 0x08;
    /** Bytes of an UNMAP parameter list with one block descriptor (SBC-4 5.30.2). */
    static final int UNMAP_ONE_DESCRIPTOR_LENGTH = 24;

    private static final ValueLayout.OfLong BE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort BE_SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private ScsiCdb() {
    }

    /** READ(16) or WRITE(16) of {@code blocks} at {@code lba} into the 16 bytes at {@code at}. */
    static void readWrite16(final MemorySegment cdb, final long at, final int opcode, final long lba, final int blocks,
                            final boolean fua) {
        cdb.set(ValueLayout.JAVA_BYTE, at, (byte) opcode);
        cdb.set(ValueLayout.JAVA_BYTE, at + 1, (byte) (fua ? FUA : 0));
        cdb.set(BE_LONG, at + 2, lba);
        cdb.set(BE_INT, at + 10, blocks);
        cdb.set(ValueLayout.JAVA_BYTE, at + 14, (byte) 0);
        cdb.set(ValueLayout.JAVA_BYTE, at + 15, (byte) 0);
    }

    /** TEST UNIT READY (6 bytes). */
    static int testUnitReady(final byte[] cdb) {
        java.util.Arrays.fill(cdb, 0, 6, (byte) 0);
        return 6;
    }

    /** INQUIRY (6 bytes): the standard data, or VPD page {@code page} when {@code vpd}. */
    static int inquiry(final byte[] cdb, final boolean vpd, final int page, final int allocationLength) {
        java.util.Arrays.fill(cdb, 0, 6, (byte) 0);
        cdb[0] = (byte) INQUIRY;
        cdb[1] = (byte) (vpd ? 1 : 0);
        cdb[2] = (byte) page;
        cdb[3] = (byte) (allocationLength >>> 8);
        cdb[4] = (byte) allocationLength;
        return 6;
    }

    /** READ CAPACITY(16) (SERVICE ACTION IN(16), service action 10h). */
    static int readCapacity16(final byte[] cdb, final int allocationLength) {
        java.util.Arrays.fill(cdb, 0, 16, (byte) 0);
        cdb[0] = (byte) SERVICE_ACTION_IN_16;
        cdb[1] = (byte) READ_CAPACITY_16;
        MemorySegment.ofArray(cdb).set(BE_INT, 10, allocationLength);
        return 16;
    }

    /** REPORT LUNS (12 bytes), select report 0. */
    static int reportLuns(final byte[] cdb, final int allocationLength) {
        java.util.Arrays.fill(cdb, 0, 12, (byte) 0);
        cdb[0] = (byte) REPORT_LUNS;
        MemorySegment.ofArray(cdb).set(BE_INT, 6, allocationLength);
        return 12;
    }

    /** SYNCHRONIZE CACHE(10) of the whole medium (LBA 0, 0 blocks: to the end). */
    static int synchronizeCache10(final byte[] cdb) {
        java.util.Arrays.fill(cdb, 0, 10, (byte) 0);
        cdb[0] = (byte) SYNCHRONIZE_CACHE_10;
        return 10;
    }

    /** UNMAP (10 bytes) with a parameter list of {@code parameterLength} bytes. */
    static int unmap(final byte[] cdb, final int parameterLength) {
        java.util.Arrays.fill(cdb, 0, 10, (byte) 0);
        cdb[0] = (byte) UNMAP;
        cdb[7] = (byte) (parameterLength >>> 8);
        cdb[8] = (byte) parameterLength;
        return 10;
    }

    /** The UNMAP parameter list with one block descriptor: {@code blocks} (at most 2^32 - 1) at {@code lba}. */
    static void unmapParameters(final MemorySegment list, final long lba, final long blocks) {
        list.asSlice(0, UNMAP_ONE_DESCRIPTOR_LENGTH).fill((byte) 0);
        list.set(BE_SHORT, 0, (short) (UNMAP_ONE_DESCRIPTOR_LENGTH - 2)); // UNMAP data length
        list.set(BE_SHORT, 2, (short) 16); // block descriptor data length
        list.set(BE_LONG, 8, lba);
        list.set(BE_INT, 16, (int) blocks);
    }
}
