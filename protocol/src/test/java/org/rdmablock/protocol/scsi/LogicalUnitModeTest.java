package org.rdmablock.protocol.scsi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rdmablock.protocol.scsi.LunHarness.assertCheckCondition;
import static org.rdmablock.protocol.scsi.LunHarness.assertGood;

/** MODE SENSE/SELECT (6)/(10), REQUEST SENSE, and fixed versus descriptor sense (SPC-4 4.5, 6.11, 6.13, 7.5). */
class LogicalUnitModeTest {

    @ParameterizedTest
    @ValueSource(ints = {512, 4096})
    void modeSense6CachingPageWithBlockDescriptor(int blockSize) {
        LunHarness h = LunHarness.of(blockSize);
        ScsiCommand c = h.run(Cdbs.modeSense6(false, 0, 0x08, 0, 255), 255);
        assertGood(c);
        byte[] d = h.dataIn();
        assertEquals(4 + 8 + 20, d.length);
        assertEquals(d.length - 1, d[0], "mode data length");
        assertEquals(0x10, d[2], "DPOFUA, not write protected");
        assertEquals(8, d[3], "block descriptor length");
        ByteBuffer b = ByteBuffer.wrap(d);
        assertEquals(h.unit.blockCount(), Integer.toUnsignedLong(b.getInt(4)));
        assertEquals(blockSize, b.getInt(8) & 0xFFFFFF);
        assertEquals(0x08, d[12], "caching page");
        assertEquals(0x12, d[13]);
        assertEquals(0x04, d[14] & 0x05, "WCE set, RCD clear");
    }

    @Test
    void linuxAsksForFourBytesFirst() {
        LunHarness h = LunHarness.of(512);
        ScsiCommand c = h.run(Cdbs.modeSense6(false, 0, 0x3F, 0, 4), 4);
        assertGood(c);
        byte[] d = h.dataIn();
        assertEquals(4, d.length);
        assertEquals(4 + 8 + 20 + 12 - 1, d[0], "the header tells the full length of all pages");
        assertEquals(0, d[2] & 0x80, "write protect off");
        h.unit.writeProtect(true);
        assertGood(h.run(Cdbs.modeSense6(false, 0, 0x3F, 0, 4), 4));
        assertEquals(0x80, h.dataIn()[2] & 0x80, "write protect on, once the unit is made read-only while it serves");
    }

    @Test
    void modeSense10AllPagesLongLbaAndDbd() {
        LunHarness h = LunHarness.of(4096);
        assertGood(h.run(Cdbs.modeSense10(true, false, 0, 0x3F, 0, 512), 512));
        byte[] d = h.dataIn();
        ByteBuffer b = ByteBuffer.wrap(d);
        assertEquals(8 + 16 + 20 + 12, d.length);
        assertEquals(d.length - 2, b.getShort(0));
        assertEquals(1, d[4] & 1, "LONGLBA");
        assertEquals(16, b.getShort(6));
        assertEquals(h.unit.blockCount(), b.getLong(8));
        assertEquals(4096, b.getInt(20));
        assertEquals(0x08, d[24]);
        assertEquals(0x0A, d[44], "control page after the caching page");
        assertEquals(0x0A, d[45]);
        assertEquals(0, d[46] & 0x04, "D_SENSE off by default");

        assertGood(h.run(Cdbs.modeSense10(false, true, 0, 0x0A, 0, 512), 512));
        d = h.dataIn();
        assertEquals(8 + 12, d.length);
        assertEquals(0, ByteBuffer.wrap(d).getShort(6), "DBD: no block descriptor");
        assertEquals(0x0A, d[8]);
    }

    @Test
    void changeableDefaultAndSavedValues() {
        LunHarness h = new LunHarness(LunHarness.config(512).writeCacheEnabled(false).build(), 1 << 22);
        assertGood(h.run(Cdbs.modeSense6(true, 1, 0x3F, 0, 255), 255));
        byte[] d = h.dataIn();
        assertEquals(0x04, d[4 + 2], "WCE is changeable");
        assertEquals(0x04, d[4 + 20 + 2], "D_SENSE is changeable");
        assertEquals(0, d[4 + 20 + 3], "nothing else in the control page is");
        assertGood(h.run(Cdbs.modeSense6(true, 2, 0x08, 0, 255), 255));
        assertEquals(0, h.dataIn()[4 + 2] & 0x04, "default WCE is the configured one");
        assertCheckCondition(h.run(Cdbs.modeSense6(true, 3, 0x08, 0, 255), 255), SenseCode.SAVING_PARAMETERS_NOT_SUPPORTED);
    }

    @Test
    void unsupportedPagesAndSubpages() {
        LunHarness h = LunHarness.of(512);
        assertCheckCondition(h.run(Cdbs.modeSense6(false, 0, 0x1C, 0, 255), 255), SenseCode.INVALID_FIELD_IN_CDB);
        // sd_read_io_hints asks for the IO advice hints subpage 0x0A/0x05 and accepts this answer.
        ScsiCommand c = h.run(Cdbs.modeSense10(false, true, 0, 0x0A, 0x05, 512), 512);
        assertCheckCondition(c, SenseCode.INVALID_FIELD_IN_CDB);
        assertEquals(3, LunHarness.fieldPointer(c));
        assertGood(h.run(Cdbs.modeSense6(false, 0, 0x3F, 0xFF, 255), 255));
    }

    @Test
    void modeSelectTurnsTheWriteCacheOffAndDescriptorSenseOn() {
        LunHarness h = LunHarness.of(512);
        assertGood(h.run(Cdbs.modeSense6(true, 0, 0x3F, 0, 255), 255));
        byte[] pages = h.dataIn();
        pages[0] = 0;                         // mode data length is reserved in MODE SELECT
        pages[4 + 2] &= ~0x04;                // WCE off
        pages[4 + 20 + 2] |= 0x04;            // D_SENSE on
        assertGood(h.run(Cdbs.modeSelect6(pages.length), pages, 0));
        assertFalse(h.unit.writeCacheEnabled());
        assertTrue(h.unit.descriptorSense());

        assertGood(h.run(Cdbs.rw10(true, 0, 1, false), new byte[512], 0));
        assertEquals(1, h.backend.forcedWriteCount(), "write-through after MODE SELECT");
        ScsiCommand error = h.run(Cdbs.rw10(false, h.unit.blockCount(), 1, false), 512);
        assertCheckCondition(error, SenseCode.LBA_OUT_OF_RANGE);
        assertEquals(0x72, error.senseData().get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0), "descriptor format");
    }

    @Test
    void modeSelect10WithBlockDescriptor() {
        LunHarness h = LunHarness.of(4096);
        assertGood(h.run(Cdbs.modeSense10(false, false, 0, 0x08, 0, 512), 512));
        byte[] list = h.dataIn();
        list[0] = 0;
        list[1] = 0;
        list[8 + 8 + 2] &= ~0x04;
        assertGood(h.run(Cdbs.modeSelect10(list.length), list, 0));
        assertFalse(h.unit.writeCacheEnabled());

        byte[] wrongBlockSize = list.clone();
        wrongBlockSize[8 + 6] = 0x02;         // block length 512 instead of 4096
        assertCheckCondition(h.run(Cdbs.modeSelect10(list.length), wrongBlockSize, 0), SenseCode.INVALID_FIELD_IN_PARAMETER_LIST);
    }

    @Test
    void modeSelectRefusesChangesToFixedFieldsAndUnknownPages() {
        LunHarness h = LunHarness.of(512);
        assertGood(h.run(Cdbs.modeSense6(true, 0, 0x0A, 0, 255), 255));
        byte[] list = h.dataIn();
        list[0] = 0;
        list[4 + 3] = 0;                      // queue algorithm modifier is not changeable
        ScsiCommand c = h.run(Cdbs.modeSelect6(list.length), list, 0);
        assertCheckCondition(c, SenseCode.INVALID_FIELD_IN_PARAMETER_LIST);
        assertEquals(4 + 3, LunHarness.fieldPointer(c));
        assertFalse(SenseData.fieldPointerInCdb(c.senseData(), 0, c.senseLength()), "points into the parameter list");

        byte[] unknownPage = {0, 0, 0, 0, 0x1C, 0x0A, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
        assertCheckCondition(h.run(Cdbs.modeSelect6(unknownPage.length), unknownPage, 0), SenseCode.INVALID_FIELD_IN_PARAMETER_LIST);
        byte[] truncated = {0, 0, 0, 0, 0x08, 0x12, 0, 0};
        assertCheckCondition(h.run(Cdbs.modeSelect6(truncated.length), truncated, 0), SenseCode.PARAMETER_LIST_LENGTH_ERROR);
        assertCheckCondition(h.run(Cdbs.modeSelect6(12), new byte[4], 0), SenseCode.INVALID_FIELD_IN_CDB);  // overflow
        byte[] savePages = Cdbs.modeSelect6(0);
        savePages[1] |= 0x01;
        assertCheckCondition(h.run(savePages, 0), SenseCode.INVALID_FIELD_IN_CDB);
        assertTrue(h.unit.writeCacheEnabled(), "nothing changed");
    }

    @Test
    void requestSenseInBothFormats() {
        LunHarness h = LunHarness.of(512);
        assertGood(h.run(Cdbs.requestSense(false, 252), 252));
        byte[] fixed = h.dataIn();
        assertEquals(18, fixed.length);
        assertEquals(0x70, fixed[0]);
        assertEquals(0, fixed[2] & 0x0F, "NO SENSE");
        assertEquals(10, fixed[7]);
        assertGood(h.run(Cdbs.requestSense(true, 252), 252));
        byte[] descriptor = h.dataIn();
        assertEquals(8, descriptor.length);
        assertEquals(0x72, descriptor[0]);
        assertEquals(0, descriptor[7]);
    }

    @Test
    void unknownOpcodeAndInvalidFieldSenseInBothFormats() {
        LunHarness fixed = LunHarness.of(512);
        byte[] unknown = new byte[10];
        unknown[0] = (byte) 0xC0;                      // vendor specific: not ours
        ScsiCommand c = fixed.run(unknown, 0);
        assertCheckCondition(c, SenseCode.INVALID_COMMAND_OPERATION_CODE);
        assertEquals(0x70, c.senseData().get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0));
        assertEquals(0, LunHarness.fieldPointer(c));

        LunHarness descriptor = new LunHarness(LunHarness.config(512).descriptorSense(true).build(), 1 << 22);
        byte[] protect = Cdbs.rw10(false, 0, 1, false);
        protect[1] = (byte) 0x20;                      // RDPROTECT=1 on a unit without protection information
        c = descriptor.run(protect, 512);
        assertCheckCondition(c, SenseCode.INVALID_FIELD_IN_CDB);
        assertEquals(0x72, c.senseData().get(java.lang.foreign.ValueLayout.JAVA_BYTE, 0));
        assertEquals(1, LunHarness.fieldPointer(c));
        assertTrue(SenseData.fieldPointerInCdb(c.senseData(), 0, c.senseLength()));
        assertEquals(16, c.senseLength(), "8-byte header + sense-key-specific descriptor");
        byte[] sks = Arrays.copyOfRange(c.senseData().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), 8, 16);
        assertEquals(0x02, sks[0]);
        assertEquals(0x06, sks[1]);
        assertEquals((byte) 0xCF, sks[4], "SKSV, C/D, BPV, bit 7");
    }
}
