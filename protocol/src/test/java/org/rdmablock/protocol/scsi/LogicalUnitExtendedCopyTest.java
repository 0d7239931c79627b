package org.rdmablock.protocol.scsi;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rdmablock.protocol.scsi.LunHarness.assertCheckCondition;
import static org.rdmablock.protocol.scsi.LunHarness.assertGood;

/**
 * EXTENDED COPY(LID1) (SPC-4 6.4) in the engine, as {@code sg_xcopy} drives it: copy targets named by the NAA
 * designator each unit's VPD 83h lists, block to block segments copied inside the target between and within the units
 * of one initiator's table, a refused list writing nothing; and what the copy manager reports of itself (RECEIVE COPY
 * RESULTS' operating parameters, the Third-party Copy VPD page, 3PC). The parameter lists here are written from SPC-4's
 * byte layout, not from the codec's constants.
 */
class LogicalUnitExtendedCopyTest {
    private static final int BLOCK = 512;
    private static final int BUFFER = 1 << 20;
    private static final long UNIT_BYTES = 4L << 20;
    private static final int A = 1;
    private static final int B = 4;

    private final NexusRegistry nexuses = new NexusRegistry();
    private final Nexus initiator = nexuses.ofSrp(0x1111L, 1, 1);
    private final Nexus other = nexuses.ofSrp(0x2222L, 2, 1);
    private final LogicalUnitTable table = new LogicalUnitTable();
    private final LogicalUnit a = unit(A, "XA");
    private final LogicalUnit b = unit(B, "XB");
    private final MemorySegment buffer = Arena.ofAuto().allocate(BUFFER, 4096);
    private final ScsiCommand cmd = new ScsiCommand();
    private int completions;

    LogicalUnitExtendedCopyTest() {
        table.add(a);
        table.add(b);
        cmd.setCompletion(c -> completions++);
    }

    private static LogicalUnit unit(final int lun, final String serial) {
        return new LogicalUnit(lun, LunHarness.config(BLOCK).serialNumber(serial).build(), new InMemoryBackend(UNIT_BYTES));
    }

    private ScsiCommand run(final int lun, final Nexus from, final byte[] cdb, final byte[] dataOut, final int expectedIn) {
        final int before = completions;
        MemorySegment.copy(dataOut, 0, buffer, ValueLayout.JAVA_BYTE, 0, dataOut.length);
        cmd.setNexus(from).setCdb(cdb).setDataBuffer(buffer, 0, BUFFER).setExpectedLengths(dataOut.length, expectedIn);
        table.execute(LunAddress.encode(lun), cmd);
        assertEquals(before + 1, completions, "exactly one completion");
        return cmd;
    }

    private ScsiCommand xcopy(final int lun, final byte[] list) {
        return xcopy(lun, initiator, list);
    }

    private ScsiCommand xcopy(final int lun, final Nexus from, final byte[] list) {
        return run(lun, from, extendedCopyCdb(list.length), list, 0);
    }

    private static byte[] extendedCopyCdb(final int parameterLength) {
        return ByteBuffer.allocate(16).put(0, (byte) 0x83).putInt(10, parameterLength).array();
    }

    private void write(final int lun, final long lba, final byte[] data) {
        assertGood(run(lun, initiator, Cdbs.rw16(true, lba, data.length / BLOCK, false), data, 0));
    }

    private byte[] read(final int lun, final long lba, final int blocks) {
        assertGood(run(lun, initiator, Cdbs.rw16(false, lba, blocks, false), new byte[0], blocks * BLOCK));
        return buffer.asSlice(0, (long) blocks * BLOCK).toArray(ValueLayout.JAVA_BYTE);
    }

    private static byte[] random(final int blocks, final long seed) {
        final byte[] data = new byte[blocks * BLOCK];
        new Random(seed).nextBytes(data);
        return data;
    }

    /** The unit's first VPD 83h designation descriptor, as sg_xcopy takes it (its NAA designator). */
    private byte[] designation(final int lun) {
        assertGood(run(lun, initiator, Cdbs.inquiryVpd(0x83, 255), new byte[0], 255));
        final int length = Byte.toUnsignedInt(buffer.get(ValueLayout.JAVA_BYTE, 7));
        return buffer.asSlice(4, 4 + length).toArray(ValueLayout.JAVA_BYTE);
    }

    /** An identification CSCD descriptor (E4h): the designation at byte 4, the disk block length at 29-31. */
    private static byte[] cscd(final byte[] designation, final int blockLength) {
        final ByteBuffer d = ByteBuffer.allocate(32).put(0, (byte) 0xE4).put(4, designation);
        return d.put(29, (byte) (blockLength >>> 16)).putShort(30, (short) blockLength).array();
    }

    /** A block to block segment descriptor (02h, 28 bytes, DESCRIPTOR LENGTH 0018h). */
    private static byte[] segment(final int source, final int destination, final int blocks, final long sourceLba,
                                  final long destinationLba) {
        return ByteBuffer.allocate(28).put(0, (byte) 0x02).putShort(2, (short) 0x18).putShort(4, (short) source)
            .putShort(6, (short) destination).putShort(10, (short) blocks).putLong(12, sourceLba).putLong(20, destinationLba)
            .array();
    }

    /** The 16-byte header (LIST ID USAGE 10b, as sg_xcopy sends with no held data), the CSCDs, the segments. */
    private static byte[] list(final byte[][] cscds, final byte[]... segments) {
        final int cscdBytes = 32 * cscds.length;
        final ByteBuffer l = ByteBuffer.allocate(16 + cscdBytes + 28 * segments.length);
        l.put(0, (byte) 1).put(1, (byte) (2 << 3)).putShort(2, (short) cscdBytes).putInt(8, 28 * segments.length);
        int at = 16;
        for (final byte[] c : cscds) {
            l.put(at, c);
            at += c.length;
        }
        for (final byte[] s : segments) {
            l.put(at, s);
            at += s.length;
        }
        return l.array();
    }

    private byte[][] aThenB() {
        return new byte[][]{cscd(designation(A), BLOCK), cscd(designation(B), BLOCK)};
    }

    @Test
    void copiesBetweenTheUnitsOfTheTableSegmentBySegment() {
        final byte[] data = random(1400, 1); // 700 KiB: several chunks of the copy buffer
        final byte[] small = random(8, 2);
        write(A, 10, data);
        write(A, 5000, small);
        final ScsiCommand c = xcopy(B, list(aThenB(), segment(0, 1, 1400, 10, 100), segment(0, 1, 8, 5000, 7000)));
        assertGood(c);
        assertEquals(0, c.dataInLength(), "nothing for the initiator");
        assertEquals(ResidualKind.NONE, c.dataOutResidualKind());
        assertArrayEquals(data, read(B, 100, 1400));
        assertArrayEquals(small, read(B, 7000, 8));
        assertArrayEquals(new byte[BLOCK], read(B, 99, 1), "nothing before the destination");
        assertArrayEquals(new byte[BLOCK], read(B, 1500, 1), "nothing after it");

        // sent to the source rather than the destination, and the other way round
        assertGood(xcopy(A, list(aThenB(), segment(1, 0, 1400, 100, 2000))));
        assertArrayEquals(data, read(A, 2000, 1400));
    }

    @Test
    void overlappingRangesOfOneUnitAreCopiedAsMemmoveDoes() {
        final byte[] data = random(1200, 3);
        final byte[][] self = {cscd(designation(A), BLOCK)};
        write(A, 0, data);
        assertGood(xcopy(A, list(self, segment(0, 0, 1200, 0, 300)))); // the destination above, inside the source
        assertArrayEquals(data, read(A, 300, 1200));
        assertGood(xcopy(A, list(self, segment(0, 0, 1200, 300, 100)))); // and below it
        assertArrayEquals(data, read(A, 100, 1200));
    }

    @Test
    void aCopyTargetTheInitiatorDoesNotSeeIsNotReachable() {
        final LogicalUnit elsewhere = unit(9, "XC"); // another initiator's unit: in no table of this one's
        final LunHarness alone = new LunHarness(elsewhere.config(), UNIT_BYTES);
        assertGood(alone.run(Cdbs.inquiryVpd(0x83, 255), 255));
        final byte[] vpd = alone.dataIn();
        final byte[] foreign = Arrays.copyOfRange(vpd, 4, 8 + vpd[7]);
        final ScsiCommand c = xcopy(A, list(new byte[][]{cscd(designation(A), BLOCK), cscd(foreign, BLOCK)},
            segment(0, 1, 8, 0, 0)));
        assertCheckCondition(c, SenseCode.COPY_TARGET_DEVICE_NOT_REACHABLE);
        assertEquals(SenseKey.COPY_ABORTED, LunHarness.senseKey(c));
    }

    @Test
    void aRefusedListWritesNothingAndSaysWhy() {
        final byte[] data = random(16, 4);
        write(A, 0, data);
        final byte[] before = read(B, 0, 16);
        // the second segment runs past B's last block: the first is not copied either
        final long last = UNIT_BYTES / BLOCK - 1;
        assertCheckCondition(xcopy(B, list(aThenB(), segment(0, 1, 16, 0, 0), segment(0, 1, 2, 0, last))),
            SenseCode.LBA_OUT_OF_RANGE);
        assertArrayEquals(before, read(B, 0, 16), "nothing copied");

        final byte[][] two = aThenB();
        final byte[][] five = {two[0], two[1], two[0], two[1], two[0]};
        assertCheckCondition(xcopy(B, list(five, segment(0, 1, 1, 0, 0))), SenseCode.TOO_MANY_TARGET_DESCRIPTORS);
        final byte[][] nine = new byte[9][];
        Arrays.fill(nine, segment(0, 1, 1, 0, 0));
        assertCheckCondition(xcopy(B, list(two, nine)), SenseCode.TOO_MANY_SEGMENT_DESCRIPTORS);

        final byte[] withOffset = segment(0, 1, 1, 0, 0);
        withOffset[0] = 0x0A; // block to block with offsets
        ScsiCommand c = xcopy(B, list(two, withOffset));
        assertCheckCondition(c, SenseCode.UNSUPPORTED_SEGMENT_DESCRIPTOR_TYPE_CODE);
        assertEquals(16 + 64, LunHarness.fieldPointer(c), "the segment descriptor's first byte");
        final byte[] sas = two[1].clone();
        sas[0] = (byte) 0xE9; // a SAS CSCD
        c = xcopy(B, list(new byte[][]{two[0], sas}, segment(0, 1, 1, 0, 0)));
        assertCheckCondition(c, SenseCode.UNSUPPORTED_TARGET_DESCRIPTOR_TYPE_CODE);
        assertEquals(16 + 32, LunHarness.fieldPointer(c));

        c = xcopy(B, list(new byte[][]{two[0], cscd(designation(B), 4096)}, segment(0, 1, 1, 0, 0)));
        assertCheckCondition(c, SenseCode.INVALID_FIELD_IN_PARAMETER_LIST);
        assertEquals(16 + 32 + 29, LunHarness.fieldPointer(c), "the disk block length B does not have");
        c = xcopy(B, list(two, segment(0, 2, 1, 0, 0)));
        assertCheckCondition(c, SenseCode.INVALID_FIELD_IN_PARAMETER_LIST);
        assertEquals(16 + 64 + 6, LunHarness.fieldPointer(c), "a destination index past the CSCDs");

        final byte[] inline = list(two, segment(0, 1, 1, 0, 0));
        inline[15] = 4;
        assertCheckCondition(xcopy(B, inline), SenseCode.INVALID_FIELD_IN_PARAMETER_LIST);
        final byte[] cut = list(two, segment(0, 1, 1, 0, 0));
        assertCheckCondition(xcopy(B, Arrays.copyOf(cut, cut.length - 1)), SenseCode.PARAMETER_LIST_LENGTH_ERROR);
        assertCheckCondition(xcopy(B, new byte[15]), SenseCode.PARAMETER_LIST_LENGTH_ERROR);
        assertGood(xcopy(B, new byte[0])); // no parameter list: nothing to copy, and no error
        assertArrayEquals(before, read(B, 0, 16), "nothing copied by any of them");
    }

    @Test
    void theDestinationMustBeWritableAndNotReservedAgainstTheNexus() {
        write(A, 0, random(4, 5));
        final byte[] before = read(B, 0, 4);
        b.writeProtect(true);
        assertCheckCondition(xcopy(A, list(aThenB(), segment(0, 1, 4, 0, 0))), SenseCode.WRITE_PROTECTED);
        b.writeProtect(false);

        // the other nexus registers and reserves B Write Exclusive: the initiator may read B, not write it
        final byte[] register = ByteBuffer.allocate(24).putLong(8, 0xBEEFL).array();
        assertGood(run(B, other, Cdbs.persistentReserveOut(PersistentReserveData.REGISTER, 0, 0, 24), register, 0));
        final byte[] reserve = ByteBuffer.allocate(24).putLong(0, 0xBEEFL).array();
        assertGood(run(B, other, Cdbs.persistentReserveOut(PersistentReserveData.RESERVE, 0, PersistentReserveData.WRITE_EXCLUSIVE,
            24), reserve, 0));
        assertEquals(ScsiStatus.RESERVATION_CONFLICT, xcopy(A, list(aThenB(), segment(0, 1, 4, 0, 0))).status(),
            "sent to A, writing B");
        assertArrayEquals(before, read(B, 0, 4));
        assertGood(xcopy(A, list(aThenB(), segment(1, 0, 4, 0, 100)))); // reading B under Write Exclusive is allowed
        assertGood(xcopy(A, other, list(aThenB(), segment(0, 1, 4, 0, 0))));
        assertArrayEquals(read(A, 0, 4), read(B, 0, 4), "the holder copies");
    }

    @Test
    void receiveCopyResultsReportsTheOperatingParameters() {
        final byte[] cdb = ByteBuffer.allocate(16).put(0, (byte) 0x84).put(1, (byte) 0x03).putInt(10, 256).array();
        assertGood(run(A, initiator, cdb, new byte[0], 256));
        final ByteBuffer p = ByteBuffer.wrap(buffer.asSlice(0, cmd.dataInLength()).toArray(ValueLayout.JAVA_BYTE));
        assertEquals(46, p.capacity());
        assertEquals(42, p.getInt(0), "AVAILABLE DATA");
        assertEquals(1, p.get(4) & 1, "SNLID");
        assertEquals(4, p.getShort(8), "maximum CSCD descriptor count");
        assertEquals(8, p.getShort(10), "maximum segment descriptor count");
        assertEquals(4 * 32 + 8 * 28, p.getInt(12), "maximum descriptor list length");
        assertEquals(32 << 20, p.getInt(16), "maximum segment length");
        assertEquals(0, p.getInt(20), "no inline data");
        assertEquals(0, p.getInt(24), "no held data");
        assertEquals(9, p.get(37), "data segment granularity: 512 bytes");
        assertEquals(2, p.get(43), "implemented descriptor list length");
        assertEquals(0x02, p.get(44) & 0xFF, "block to block");
        assertEquals(0xE4, p.get(45) & 0xFF, "identification CSCD");
        final byte[] status = ByteBuffer.allocate(16).put(0, (byte) 0x84).put(1, (byte) 0x00).putInt(10, 256).array();
        assertCheckCondition(run(A, initiator, status, new byte[0], 256), SenseCode.INVALID_FIELD_IN_CDB);
    }

    @Test
    void theUnitSaysItCopiesStandardInquiryVpdAndOperationCodes() {
        assertGood(run(A, initiator, Cdbs.inquiry(96), new byte[0], 96));
        assertEquals(0x08, buffer.get(ValueLayout.JAVA_BYTE, 5) & 0x08, "3PC");
        assertGood(run(A, initiator, Cdbs.inquiryVpd(0x00, 255), new byte[0], 255));
        final byte[] pages = Arrays.copyOfRange(buffer.asSlice(0, cmd.dataInLength()).toArray(ValueLayout.JAVA_BYTE), 4,
            (int) cmd.dataInLength());
        assertTrue(contains(pages, 0x8F), "VPD 8Fh listed");

        assertGood(run(A, initiator, Cdbs.inquiryVpd(0x8F, 1024), new byte[0], 1024));
        final ByteBuffer page = ByteBuffer.wrap(buffer.asSlice(0, cmd.dataInLength()).toArray(ValueLayout.JAVA_BYTE));
        assertEquals(0x8F, page.get(1) & 0xFF);
        assertEquals(page.capacity() - 4, page.getShort(2), "page length");
        final java.util.Map<Integer, Integer> descriptors = new java.util.LinkedHashMap<>();
        for (int at = 4; at < page.capacity(); at += 4 + page.getShort(at + 2)) {
            final int length = page.getShort(at + 2);
            assertEquals(0, length % 4, "descriptors padded to 4 bytes");
            descriptors.put(page.getShort(at) & 0xFFFF, at);
        }
        assertEquals(java.util.List.of(0x0001, 0x0004, 0x0008, 0x000C, 0x8001), java.util.List.copyOf(descriptors.keySet()));
        final int commands = descriptors.get(0x0001);
        assertEquals(6, page.get(commands + 4), "commands supported list length");
        assertArrayEquals(new byte[]{(byte) 0x83, 1, 0x00, (byte) 0x84, 1, 0x03},
            Arrays.copyOfRange(page.array(), commands + 5, commands + 11));
        final int parameters = descriptors.get(0x0004);
        assertEquals(28, page.getShort(parameters + 2));
        assertEquals(4, page.getShort(parameters + 8));
        assertEquals(8, page.getShort(parameters + 10));
        final int supported = descriptors.get(0x0008);
        assertEquals(2, page.get(supported + 4));
        assertEquals(0x02, page.get(supported + 5));
        assertEquals(0xE4, page.get(supported + 6) & 0xFF);
        final int general = descriptors.get(0x8001);
        assertEquals(32, page.getShort(general + 2));
        assertEquals(32 << 20, page.getInt(general + 12), "maximum segment length");
        assertEquals(9, page.get(general + 16));

        assertGood(run(A, initiator, Cdbs.reportOpcodes(2, false, 0x83, 0x00, 64), new byte[0], 64));
        assertEquals(0x03, buffer.get(ValueLayout.JAVA_BYTE, 1) & 0x07, "EXTENDED COPY(LID1) supported");
        assertEquals(16, buffer.get(ValueLayout.JAVA_BYTE, 3), "a 16-byte CDB");
        assertGood(run(A, initiator, Cdbs.reportOpcodes(2, false, 0x84, 0x03, 64), new byte[0], 64));
        assertEquals(0x03, buffer.get(ValueLayout.JAVA_BYTE, 1) & 0x07, "OPERATING PARAMETERS supported");
        assertGood(run(A, initiator, Cdbs.reportOpcodes(2, false, 0x84, 0x00, 64), new byte[0], 64));
        assertEquals(0x01, buffer.get(ValueLayout.JAVA_BYTE, 1) & 0x07, "COPY STATUS not supported");
    }

    private static boolean contains(final byte[] values, final int value) {
        for (final byte v : values) {
            if ((v & 0xFF) == value) {
                return true;
            }
        }
        return false;
    }
}
