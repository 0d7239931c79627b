package org.rdmablock.target.srp;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rdmablock.protocol.scsi.ScsiOpcode;
import org.rdmablock.protocol.scsi.ScsiStatus;
import org.rdmablock.protocol.srp.SrpResponse;
import org.rdmablock.target.srp.TestInitiator.Extent;
import org.rdmablock.target.srp.TestInitiator.Response;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every SCSI command the engine supports (protocol/README.md's table), end to end through the target over the soft
 * provider: what each returns, its data-in and data-out residuals as SRP flags and counts, commands to an absent LUN,
 * and READs and WRITEs through indirect descriptors whose bytes land in each descriptor's buffer.
 */
class ScsiCommandsTest extends TargetTestBase {
    /** Where data-in lands and data-out is taken from in the initiator's buffer. */
    private static final long IN = 0x10_0000;
    private static final long OUT = 0x20_0000;
    /** Bytes after each data-in buffer that must stay as they were. */
    private static final int GUARD = 64;
    private static final byte GUARD_BYTE = (byte) 0xEE;
    private static final int INVALID_FIELD_IN_CDB = 0x2400;
    private static final int LBA_OUT_OF_RANGE = 0x2100;
    private static final int LOGICAL_UNIT_NOT_SUPPORTED = 0x2500;
    private static final int ILLEGAL_REQUEST = 0x05;
    private static final long LUN0_BLOCKS = LUN_BYTES / 512;
    private static final long LUN1_BLOCKS = LUN_BYTES / 4096;

    TestInitiator ini;

    @BeforeEach
    void loginOne() {
        ini = login(0xC1);
    }

    /** Runs a data-in command offering {@code offer} bytes at {@link #IN} (zeroed first, guard bytes after). */
    private Response in(final long lun, final byte[] cdb, final int offer) {
        ini.buffer().asSlice(IN, offer).fill((byte) 0);
        ini.buffer().asSlice(IN + offer, GUARD).fill(GUARD_BYTE);
        return ini.execute(lun, cdb, 0, offer, IN, false);
    }

    /** Runs a data-out command with {@code data} taken by RDMA READ from {@link #OUT}. */
    private Response out(final long lun, final byte[] cdb, final byte[] data) {
        fill(ini, OUT, data);
        return ini.execute(lun, cdb, data.length, 0, OUT, false);
    }

    /** The {@code length} bytes of data-in that arrived at {@link #IN}. */
    private byte[] got(final int length) {
        return bytesAt(ini, IN, length);
    }

    /** The guard bytes after an offer of {@code offer} bytes: still as they were. */
    private void assertGuardIntact(final int offer, final String what) {
        final byte[] guard = new byte[GUARD];
        Arrays.fill(guard, GUARD_BYTE);
        assertArrayEquals(guard, bytesAt(ini, IN + offer, GUARD), what + ": nothing written past the descriptor");
    }

    private static void assertGood(final Response r, final String what) {
        assertEquals(ScsiStatus.GOOD, r.status(), what + ": " + r);
        assertEquals(0, r.sense().length, what + ": no sense with GOOD");
        assertEquals(1, r.requestLimitDelta(), what + ": the response returns the command's credit");
    }

    private static void assertCheckCondition(final Response r, final int ascAndQualifier, final String what) {
        assertEquals(ScsiStatus.CHECK_CONDITION, r.status(), what);
        assertEquals(SrpResponse.FLAG_SNSVALID, r.flags() & SrpResponse.FLAG_SNSVALID, what + ": SNSVALID");
        assertEquals(ILLEGAL_REQUEST, r.senseKey(), what);
        assertEquals(ascAndQualifier, r.ascAndQualifier(), what);
    }

    private static void assertResidual(final Response r, final int flag, final long residual, final String what) {
        assertEquals(flag, r.residualFlags(), what + ": residual flags");
        if ((flag & (SrpResponse.FLAG_DIUNDER | SrpResponse.FLAG_DIOVER)) != 0) {
            assertEquals(residual, r.dataInResidual(), what + ": data-in residual count");
        } else if (flag != 0) {
            assertEquals(residual, r.dataOutResidual(), what + ": data-out residual count");
        }
    }

    private static int u16(final byte[] b, final int at) {
        return ByteBuffer.wrap(b).getShort(at) & 0xFFFF;
    }

    private static long u32(final byte[] b, final int at) {
        return ByteBuffer.wrap(b).getInt(at) & 0xFFFF_FFFFL;
    }

    private static long u64(final byte[] b, final int at) {
        return ByteBuffer.wrap(b).getLong(at);
    }

    private static String ascii(final byte[] b, final int at, final int length) {
        return new String(b, at, length, StandardCharsets.US_ASCII);
    }

    @Test
    void testUnitReadyStartStopAndPreventAllowAreNoOps() {
        for (final byte[] cdb : new byte[][]{Cdb.of(6, ScsiOpcode.TEST_UNIT_READY).bytes(),
                Cdb.of(6, ScsiOpcode.START_STOP_UNIT).u8(4, 1).bytes(), Cdb.of(6, ScsiOpcode.PREVENT_ALLOW_MEDIUM_REMOVAL).bytes()}) {
            final Response r = ini.execute(LUN0, cdb, 0, 0, 0, false);
            assertGood(r, "opcode " + cdb[0]);
            assertEquals(0, r.flags(), "no residual, no sense, no response data");
        }
    }

    @Test
    void standardInquiryWithEveryResidual() {
        Response r = in(LUN0, Cdb.of(6, ScsiOpcode.INQUIRY).u16(3, 255).bytes(), 255);
        assertGood(r, "INQUIRY");
        final byte[] data = got(74);
        assertEquals(0x00, data[0], "peripheral qualifier 0, direct-access block device");
        assertEquals(74 - 5, data[4], "additional length: 74 bytes of standard data");
        assertEquals(0x02, data[7] & 0x02, "CMDQUE");
        assertEquals("RDMABLK SRP DISK        0001", ascii(data, 8, 28), "vendor, product, revision");
        assertResidual(r, SrpResponse.FLAG_DIUNDER, 255 - 74, "255 offered, 74 sent");
        assertGuardIntact(255, "INQUIRY");

        r = in(LUN0, Cdb.of(6, ScsiOpcode.INQUIRY).u16(3, 36).bytes(), 36);
        assertGood(r, "INQUIRY 36");
        assertResidual(r, 0, 0, "the allocation length and the offer agree");
        assertArrayEquals(Arrays.copyOf(data, 36), got(36));

        r = in(LUN0, Cdb.of(6, ScsiOpcode.INQUIRY).u16(3, 36).bytes(), 16);
        assertGood(r, "INQUIRY 36 into 16");
        assertResidual(r, SrpResponse.FLAG_DIOVER, 20, "36 due, 16 offered");
        assertArrayEquals(Arrays.copyOf(data, 16), got(16));
        assertGuardIntact(16, "an overflowing INQUIRY");
    }

    @Test
    void vitalProductDataPages() {
        final byte[] vpd = Cdb.of(6, ScsiOpcode.INQUIRY).u8(1, 1).u16(3, 255).bytes();
        vpd[2] = 0x00;
        assertGood(in(LUN0, vpd, 255), "VPD 0x00");
        assertArrayEquals(new byte[]{0, 0, 0, 7, 0x00, (byte) 0x80, (byte) 0x83, (byte) 0x8F, (byte) 0xB0, (byte) 0xB1, (byte) 0xB2},
                got(11), "supported pages");
        vpd[2] = (byte) 0x80;
        assertGood(in(LUN0, vpd, 255), "VPD 0x80");
        assertEquals("lun0", ascii(got(8), 4, 4), "unit serial number");
        vpd[2] = (byte) 0x83;
        assertGood(in(LUN0, vpd, 255), "VPD 0x83");
        final byte[] ids = got(255);
        assertEquals(0x83, ids[1] & 0xFF);
        assertTrue(new String(ids, StandardCharsets.US_ASCII).contains("RDMABLK lun0"), "a T10 vendor ID designator with the serial");
        vpd[2] = (byte) 0xB0;
        assertGood(in(LUN0, vpd, 255), "VPD 0xB0");
        assertEquals((1 << 20) / 512, u32(got(64), 8), "maximum transfer length in blocks");
        vpd[2] = (byte) 0xB1;
        assertGood(in(LUN0, vpd, 255), "VPD 0xB1");
        assertEquals(1, u16(got(8), 4), "non-rotating medium");
        vpd[2] = (byte) 0xB2;
        assertGood(in(LUN0, vpd, 255), "VPD 0xB2, thin LUN");
        assertEquals(0xE4, got(8)[5] & 0xFF, "LBPU, LBPWS, LBPWS10, LBPRZ");
        assertGood(in(LUN1, vpd, 255), "VPD 0xB2, thick LUN");
        assertEquals(0, got(8)[5], "no provisioning bits on a thick LUN");
        vpd[2] = (byte) 0x89;
        assertCheckCondition(in(LUN0, vpd, 255), INVALID_FIELD_IN_CDB, "VPD 0x89 is not offered");
    }

    @Test
    void readCapacityTenAndSixteen() {
        assertGood(in(LUN0, Cdb.of(10, ScsiOpcode.READ_CAPACITY_10).bytes(), 8), "READ CAPACITY(10)");
        assertEquals(LUN0_BLOCKS - 1, u32(got(8), 0), "last LBA");
        assertEquals(512, u32(got(8), 4), "block length");
        assertGood(in(LUN1, Cdb.of(10, ScsiOpcode.READ_CAPACITY_10).bytes(), 8), "READ CAPACITY(10), LUN 1");
        assertEquals(LUN1_BLOCKS - 1, u32(got(8), 0));
        assertEquals(4096, u32(got(8), 4));

        final byte[] rc16 = Cdb.of(16, ScsiOpcode.SERVICE_ACTION_IN_16).u8(1, ScsiOpcode.SA_READ_CAPACITY_16).u32(10, 32).bytes();
        Response r = in(LUN0, rc16, 32);
        assertGood(r, "READ CAPACITY(16)");
        assertResidual(r, 0, 0, "32 due, 32 offered");
        assertEquals(LUN0_BLOCKS - 1, u64(got(32), 0));
        assertEquals(512, u32(got(32), 8));
        assertEquals(0xC0, got(32)[14] & 0xFF, "LBPME, LBPRZ on the thin LUN");
        r = in(LUN1, rc16, 32);
        assertGood(r, "READ CAPACITY(16), LUN 1");
        assertEquals(LUN1_BLOCKS - 1, u64(got(32), 0));
        assertEquals(4096, u32(got(32), 8));
        assertEquals(0, got(32)[14], "no provisioning on the thick LUN");
    }

    /** A READ or WRITE CDB of each size; FUA where the CDB has the bit (6 has none). */
    private static byte[] rw(final int size, final boolean write, final long lba, final int blocks, final boolean fua) {
        final int fuaBit = fua ? 0x08 : 0;
        return switch (size) {
            case 6 -> Cdb.of(6, write ? ScsiOpcode.WRITE_6 : ScsiOpcode.READ_6).u8(1, (int) (lba >>> 16) & 0x1F).u16(2, (int) lba)
                    .u8(4, blocks).bytes();
            case 10 -> Cdb.of(10, write ? ScsiOpcode.WRITE_10 : ScsiOpcode.READ_10).u8(1, fuaBit).u32(2, lba).u16(7, blocks).bytes();
            case 12 -> Cdb.of(12, write ? ScsiOpcode.WRITE_12 : ScsiOpcode.READ_12).u8(1, fuaBit).u32(2, lba).u32(6, blocks).bytes();
            default -> Cdb.of(16, write ? ScsiOpcode.WRITE_16 : ScsiOpcode.READ_16).u8(1, fuaBit).u64(2, lba).u32(10, blocks).bytes();
        };
    }

    @Test
    void readAndWriteOfEveryCdbSizeWithAndWithoutFua() {
        final int[] sizes = {6, 10, 12, 16};
        for (int i = 0; i < sizes.length; i++) {
            for (final boolean fua : new boolean[]{false, true}) {
                if (sizes[i] == 6 && fua) {
                    continue;
                }
                final long lba = 1000 + 100L * i + (fua ? 50 : 0);
                final byte[] data = pattern(4 * 512, i * 2 + (fua ? 1 : 0));
                final long forced = backend0.forcedWriteCount();
                final String what = "WRITE(" + sizes[i] + ")" + (fua ? " FUA" : "");
                assertGood(out(LUN0, rw(sizes[i], true, lba, 4, fua), data), what);
                assertEquals(forced + (fua ? 1 : 0), backend0.forcedWriteCount(), what + ": FUA reaches the backend (write-back LUN)");
                assertArrayEquals(data, stored(backend0, lba * 512, data.length), what + ": the backend holds it");
                // read it back with the next size, so that each READ size reads what another WRITE size wrote
                final int readSize = sizes[(i + 1) % sizes.length];
                final Response r = in(LUN0, rw(readSize, false, lba, 4, fua), data.length);
                assertGood(r, "READ(" + readSize + ")");
                assertResidual(r, 0, 0, "READ(" + readSize + ")");
                assertArrayEquals(data, got(data.length), "READ(" + readSize + ") returns what " + what + " wrote");
                assertGuardIntact(data.length, "READ(" + readSize + ")");
            }
        }
        final byte[] big = pattern(8 * 4096, 77);
        assertGood(out(LUN1, rw(10, true, 100, 8, false), big), "WRITE(10), 4096-byte blocks");
        assertArrayEquals(big, stored(backend1, 100 * 4096, big.length));
        assertGood(in(LUN1, rw(16, false, 100, 8, false), big.length), "READ(16), 4096-byte blocks");
        assertArrayEquals(big, got(big.length));
        assertCheckCondition(in(LUN0, rw(16, false, LUN0_BLOCKS - 2, 4, false), 2048), LBA_OUT_OF_RANGE, "a READ past the end");
    }

    @Test
    void verifyAndSynchronizeCache() {
        assertGood(ini.execute(LUN0, Cdb.of(10, ScsiOpcode.VERIFY_10).u32(2, 10).u16(7, 8).bytes(), 0, 0, 0, false), "VERIFY(10)");
        assertGood(ini.execute(LUN0, Cdb.of(16, ScsiOpcode.VERIFY_16).u64(2, 10).u32(10, 8).bytes(), 0, 0, 0, false), "VERIFY(16)");
        assertCheckCondition(ini.execute(LUN0, Cdb.of(16, ScsiOpcode.VERIFY_16).u64(2, LUN0_BLOCKS).u32(10, 1).bytes(), 0, 0, 0, false),
                LBA_OUT_OF_RANGE, "VERIFY(16) past the end");
        final long flushes = backend0.flushCount();
        assertGood(ini.execute(LUN0, Cdb.of(10, ScsiOpcode.SYNCHRONIZE_CACHE_10).bytes(), 0, 0, 0, false), "SYNCHRONIZE CACHE(10)");
        assertGood(ini.execute(LUN0, Cdb.of(16, ScsiOpcode.SYNCHRONIZE_CACHE_16).u64(2, 8).u32(10, 8).bytes(), 0, 0, 0, false),
                "SYNCHRONIZE CACHE(16)");
        assertEquals(flushes + 2, backend0.flushCount(), "each reached the backend as a flush");
    }

    @Test
    void writeSameWithAndWithoutUnmapAndUnmap() {
        final byte[] written = pattern(32 * 512, 3);
        assertGood(out(LUN0, rw(16, true, 200, 32, false), written), "WRITE(16) of the blocks to unmap");
        final long unmaps = backend0.unmapCount();

        assertGood(out(LUN0, Cdb.of(16, ScsiOpcode.WRITE_SAME_16).u8(1, 0x08).u64(2, 200).u32(10, 8).bytes(), new byte[512]),
                "WRITE SAME(16) UNMAP with a zero block");
        assertEquals(unmaps + 1, backend0.unmapCount(), "the zero pattern with UNMAP unmaps");
        assertArrayEquals(new byte[8 * 512], stored(backend0, 200 * 512, 8 * 512));
        assertArrayEquals(Arrays.copyOfRange(written, 8 * 512, 32 * 512), stored(backend0, 208 * 512, 24 * 512), "the rest stays");

        final byte[] block = pattern(512, 4);
        assertGood(out(LUN0, Cdb.of(10, ScsiOpcode.WRITE_SAME_10).u32(2, 300).u16(7, 5).bytes(), block), "WRITE SAME(10)");
        for (int i = 0; i < 5; i++) {
            assertArrayEquals(block, stored(backend0, (300L + i) * 512, 512), "WRITE SAME repeats the block at " + (300 + i));
        }
        assertCheckCondition(out(LUN1, Cdb.of(10, ScsiOpcode.WRITE_SAME_10).u8(1, 0x08).u32(2, 0).u16(7, 1).bytes(), new byte[4096]),
                INVALID_FIELD_IN_CDB, "UNMAP bit on a thick LUN");

        final byte[] list = ByteBuffer.allocate(24).putShort(0, (short) 22).putShort(2, (short) 16).putLong(8, 216).putInt(16, 16).array();
        final Response r = out(LUN0, Cdb.of(10, ScsiOpcode.UNMAP).u16(7, list.length).bytes(), list);
        assertGood(r, "UNMAP");
        assertEquals(unmaps + 2, backend0.unmapCount());
        assertArrayEquals(new byte[16 * 512], stored(backend0, 216 * 512, 16 * 512), "the unmapped blocks read zero");
        assertGood(in(LUN0, rw(16, false, 200, 32, false), 32 * 512), "READ of the unmapped range");
        final byte[] expected = new byte[32 * 512];
        System.arraycopy(written, 8 * 512, expected, 8 * 512, 8 * 512);
        assertArrayEquals(expected, got(expected.length), "zeros where unmapped, the data between");
    }

    @Test
    void modeSenseAndModeSelectChangeTheWriteCache() {
        final byte[] sense6 = Cdb.of(6, ScsiOpcode.MODE_SENSE_6).u8(2, 0x08).u8(4, 255).bytes();
        Response r = in(LUN0, sense6, 255);
        assertGood(r, "MODE SENSE(6) caching page");
        byte[] page = got(4 + 8 + 20);
        assertEquals(4 + 8 + 20 - 1, page[0], "mode data length");
        assertEquals(0x08, page[12], "caching page after the block descriptor");
        assertEquals(0x04, page[14] & 0x04, "WCE: the LUN is write-back");
        assertResidual(r, SrpResponse.FLAG_DIUNDER, 255 - 32, "32 bytes of 255");

        r = in(LUN0, Cdb.of(10, ScsiOpcode.MODE_SENSE_10).u8(1, 0x08).u8(2, 0x3F).u16(7, 255).bytes(), 255);
        assertGood(r, "MODE SENSE(10) all pages, DBD");
        final byte[] all = got(8 + 20 + 12);
        assertEquals(8 + 20 + 12 - 2, u16(all, 0), "header, caching and control pages");
        assertEquals(0x08, all[8]);
        assertEquals(0x0A, all[8 + 20]);

        // MODE SELECT(10) the current caching page with WCE cleared: the LUN becomes write-through
        final byte[] select = Arrays.copyOf(all, 8 + 20);
        select[0] = 0;
        select[1] = 0;
        select[8 + 2] &= ~0x04;
        assertGood(out(LUN0, Cdb.of(10, ScsiOpcode.MODE_SELECT_10).u8(1, 0x10).u16(7, select.length).bytes(), select), "MODE SELECT(10)");
        assertGood(in(LUN0, sense6, 255), "MODE SENSE(6) again");
        assertEquals(0, got(32)[14] & 0x04, "WCE cleared");
        final long forced = backend0.forcedWriteCount();
        assertGood(out(LUN0, rw(10, true, 5000, 1, false), pattern(512, 8)), "a WRITE without FUA");
        assertEquals(forced + 1, backend0.forcedWriteCount(), "write-through: every write is forced");

        final byte[] select6 = new byte[4 + 20];
        System.arraycopy(select, 8, select6, 4, 20);
        select6[4 + 2] |= 0x04;
        assertGood(out(LUN0, Cdb.of(6, ScsiOpcode.MODE_SELECT_6).u8(1, 0x10).u8(4, select6.length).bytes(), select6), "MODE SELECT(6)");
        assertGood(in(LUN0, sense6, 255), "MODE SENSE(6) once more");
        assertEquals(0x04, got(32)[14] & 0x04, "WCE set again");
        assertCheckCondition(in(LUN0, Cdb.of(6, ScsiOpcode.MODE_SENSE_6).u8(2, 0x19).u8(4, 255).bytes(), 255),
                INVALID_FIELD_IN_CDB, "a page the LUN does not have");
    }

    @Test
    void reportLunsListsBothUnitsFromAnyLun() {
        for (final long lun : new long[]{LUN0, LUN1, ABSENT_LUN}) {
            final Response r = in(lun, Cdb.of(12, ScsiOpcode.REPORT_LUNS).u32(6, 64).bytes(), 64);
            assertGood(r, "REPORT LUNS");
            final byte[] list = got(24);
            assertEquals(16, u32(list, 0), "two LUNs");
            assertEquals(LUN0, u64(list, 8));
            assertEquals(LUN1, u64(list, 16));
            assertResidual(r, SrpResponse.FLAG_DIUNDER, 64 - 24, "24 of 64 bytes");
        }
    }

    @Test
    void reportSupportedOperationCodes() {
        final byte[] one = Cdb.of(12, ScsiOpcode.MAINTENANCE_IN).u8(1, ScsiOpcode.SA_REPORT_SUPPORTED_OPERATION_CODES).u8(2, 1)
                .u8(3, ScsiOpcode.READ_16).u32(6, 64).bytes();
        assertGood(in(LUN0, one, 64), "one command: READ(16)");
        final byte[] read16 = got(20);
        assertEquals(0x03, read16[1] & 0x07, "supported");
        assertEquals(16, u16(read16, 2), "CDB size");
        assertEquals(ScsiOpcode.READ_16, read16[4] & 0xFF, "CDB usage data starts with the opcode");
        one[3] = (byte) 0xC5;
        assertGood(in(LUN0, one, 64), "one command: 0xC5");
        assertEquals(0x01, got(4)[1] & 0x07, "not supported");

        final byte[] all = Cdb.of(12, ScsiOpcode.MAINTENANCE_IN).u8(1, ScsiOpcode.SA_REPORT_SUPPORTED_OPERATION_CODES).u32(6, 1024).bytes();
        final Response r = in(LUN0, all, 1024);
        assertGood(r, "all commands");
        final byte[] table = got(1024);
        final int length = (int) u32(table, 0);
        assertEquals(1024 - 4 - length, r.dataInResidual(), "the residual is what the table left of the offer");
        boolean listsWriteSame16 = false;
        for (int at = 4; at < 4 + length; at += 8) {
            listsWriteSame16 |= (table[at] & 0xFF) == ScsiOpcode.WRITE_SAME_16;
        }
        assertTrue(listsWriteSame16, "WRITE SAME(16) is listed");
    }

    @Test
    void requestSenseReportsNoSenseInBothFormats() {
        assertGood(in(LUN0, Cdb.of(6, ScsiOpcode.REQUEST_SENSE).u8(4, 252).bytes(), 252), "REQUEST SENSE, fixed");
        assertEquals(0x70, got(18)[0] & 0x7F, "fixed format");
        assertEquals(0, got(18)[2] & 0x0F, "NO SENSE");
        assertGood(in(LUN0, Cdb.of(6, ScsiOpcode.REQUEST_SENSE).u8(1, 1).u8(4, 252).bytes(), 252), "REQUEST SENSE, descriptor");
        assertEquals(0x72, got(8)[0] & 0x7F, "descriptor format");
        assertEquals(0, got(8)[1] & 0x0F, "NO SENSE");
    }

    @Test
    void absentLunAndUnknownOpcode() {
        assertCheckCondition(ini.execute(ABSENT_LUN, Cdb.of(6, ScsiOpcode.TEST_UNIT_READY).bytes(), 0, 0, 0, false),
                LOGICAL_UNIT_NOT_SUPPORTED, "TEST UNIT READY on LUN 5");
        assertCheckCondition(in(ABSENT_LUN, rw(16, false, 0, 1, false), 512), LOGICAL_UNIT_NOT_SUPPORTED, "READ on LUN 5");
        final Response r = in(ABSENT_LUN, Cdb.of(6, ScsiOpcode.INQUIRY).u16(3, 36).bytes(), 36);
        assertGood(r, "INQUIRY on LUN 5");
        assertEquals(0x7F, got(1)[0] & 0xFF, "peripheral qualifier 3, no device type");
        assertCheckCondition(ini.execute(LUN0, Cdb.of(10, 0xC5).bytes(), 0, 0, 0, false), 0x2000, "INVALID COMMAND OPERATION CODE");
    }

    @Test
    void dataInResiduals() {
        Response r = in(LUN0, rw(10, false, 0, 1, false), 4096);
        assertGood(r, "READ of 1 block into 4096 bytes");
        assertResidual(r, SrpResponse.FLAG_DIUNDER, 4096 - 512, "DIUNDER");
        r = in(LUN0, rw(10, false, 0, 4, false), 1024);
        assertGood(r, "READ of 4 blocks into 1024 bytes");
        assertResidual(r, SrpResponse.FLAG_DIOVER, 3 * 512 - 512, "DIOVER");
        assertGuardIntact(1024, "an overflowing READ");
        r = in(LUN0, rw(10, false, 0, 2, false), 1024);
        assertResidual(r, 0, 0, "an exact offer");
    }

    @Test
    void dataOutResiduals() {
        final byte[] data = pattern(1024, 9);
        final long writes = backend0.writeCount();
        Response r = out(LUN0, rw(10, true, 7000, 1, false), data);
        assertGood(r, "WRITE of 1 block offering 1024 bytes");
        assertResidual(r, SrpResponse.FLAG_DOUNDER, 512, "DOUNDER");
        assertArrayEquals(Arrays.copyOf(data, 512), stored(backend0, 7000 * 512, 512), "the first block is written");
        assertArrayEquals(new byte[512], stored(backend0, 7001 * 512, 512), "not the second");
        r = out(LUN0, rw(10, true, 7100, 2, false), Arrays.copyOf(data, 512));
        assertCheckCondition(r, INVALID_FIELD_IN_CDB, "WRITE of 2 blocks offering 512 bytes");
        assertResidual(r, SrpResponse.FLAG_DOOVER, 512, "DOOVER");
        assertEquals(writes + 1, backend0.writeCount(), "the refused write wrote nothing");
        assertArrayEquals(new byte[1024], stored(backend0, 7100 * 512, 1024));
    }

    @Test
    void indirectDescriptorsScatterAndGather() {
        final Extent[] outExtents = {new Extent(0x1_0000, 4096), new Extent(0x3_0000, 512), new Extent(0x2_0000, 5120),
                new Extent(0x5_0000, 2560)};
        final byte[] data = pattern(12288, 10);
        int at = 0;
        for (final Extent e : outExtents) {
            fill(ini, e.offset(), Arrays.copyOfRange(data, at, at + e.length()));
            at += e.length();
        }
        ini.submitIndirect(0x11, LUN0, rw(16, true, 3000, 24, true), true, outExtents);
        Response r = ini.awaitResponse();
        assertGood(r, "WRITE(16) FUA gathered from 4 descriptors");
        assertResidual(r, 0, 0, "the descriptors add up to the transfer");
        assertArrayEquals(data, stored(backend0, 3000 * 512, data.length), "the LUN holds the descriptors' bytes in order");

        final Extent[] inExtents = {new Extent(0x8_0000, 1024), new Extent(0x9_0000, 8192), new Extent(0xA_0000, 3072)};
        for (final Extent e : inExtents) {
            ini.buffer().asSlice(e.offset(), e.length() + GUARD).fill(GUARD_BYTE);
        }
        ini.submitIndirect(0x12, LUN0, rw(16, false, 3000, 24, false), false, inExtents);
        r = ini.awaitResponse();
        assertGood(r, "READ(16) scattered to 3 descriptors");
        assertResidual(r, 0, 0, "the descriptors add up to the transfer");
        at = 0;
        final byte[] guard = new byte[GUARD];
        Arrays.fill(guard, GUARD_BYTE);
        for (final Extent e : inExtents) {
            assertArrayEquals(Arrays.copyOfRange(data, at, at + e.length()), bytesAt(ini, e.offset(), e.length()),
                    "descriptor at 0x" + Long.toHexString(e.offset()) + " gets its part");
            assertArrayEquals(guard, bytesAt(ini, e.offset() + e.length(), GUARD), "nothing past the descriptor");
            at += e.length();
        }

        // sixteen descriptors (the most the target serves), offering more than the READ returns
        final Extent[] sixteen = new Extent[16];
        for (int i = 0; i < sixteen.length; i++) {
            sixteen[i] = new Extent(0xC_0000 + i * 0x1000L, 1024);
            ini.buffer().asSlice(sixteen[i].offset(), 1024).fill(GUARD_BYTE);
        }
        ini.submitIndirect(0x13, LUN0, rw(16, false, 3000, 24, false), false, sixteen);
        r = ini.awaitResponse();
        assertGood(r, "READ(16) into 16 descriptors");
        assertResidual(r, SrpResponse.FLAG_DIUNDER, 16 * 1024 - data.length, "16 KiB offered, 12 KiB read");
        for (int i = 0; i < 12; i++) {
            assertArrayEquals(Arrays.copyOfRange(data, i * 1024, (i + 1) * 1024), bytesAt(ini, sixteen[i].offset(), 1024), "descriptor " + i);
        }
        final byte[] untouched = new byte[1024];
        Arrays.fill(untouched, GUARD_BYTE);
        for (int i = 12; i < 16; i++) {
            assertArrayEquals(untouched, bytesAt(ini, sixteen[i].offset(), 1024), "descriptor " + i + " is past the data");
        }
    }
}
