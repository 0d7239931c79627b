package org.rdmablock.protocol.scsi;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Byte images of fixed (0x70) and descriptor (0x72) sense data, SPC-4 4.5. */
class SenseDataTest {
    private final MemorySegment buffer = MemorySegment.ofArray(new byte[SenseData.MAX_LENGTH]);

    @Test
    void fixedFormatWithFieldPointer() {
        buffer.fill((byte) 0xEE);
        int length = SenseData.write(buffer, 0, SenseFormat.FIXED, SenseCode.INVALID_FIELD_IN_CDB, -1, 7, true, -1);
        assertEquals(18, length);
        assertEquals("700005000000000a00000000240000c00007", hex(length));
        assertEquals(7, SenseData.fieldPointer(buffer, 0, length));
        assertTrue(SenseData.fieldPointerInCdb(buffer, 0, length));
    }

    @Test
    void fixedFormatWithInformationAndBitPointer() {
        int length = SenseData.write(buffer, 0, SenseFormat.FIXED, SenseCode.UNRECOVERED_READ_ERROR, 0x1234, 2, false, 5);
        assertEquals("f00003000012340a00000000110000 8d0002".replace(" ", ""), hex(length));
        assertEquals(SenseKey.MEDIUM_ERROR, SenseData.senseKey(buffer, 0, length));
        assertEquals(0x11, SenseData.asc(buffer, 0, length));
        assertFalse(SenseData.fieldPointerInCdb(buffer, 0, length));
    }

    @Test
    void fixedFormatLeavesInformationInvalidWhenItDoesNotFit() {
        int length = SenseData.write(buffer, 0, SenseFormat.FIXED, SenseCode.WRITE_ERROR, 0x1_0000_0000L, -1, false, -1);
        assertEquals(0x70, buffer.get(ValueLayout.JAVA_BYTE, 0));
        assertEquals(-1, SenseData.fieldPointer(buffer, 0, length));
    }

    @Test
    void descriptorFormatWithInformationAndSenseKeySpecific() {
        int length = SenseData.write(buffer, 0, SenseFormat.DESCRIPTOR, SenseCode.LBA_OUT_OF_RANGE, 0x1_0000_0001L, 10, true, -1);
        assertEquals(8 + 12 + 8, length);
        assertEquals("7205210000000014" + "000a800000000001000000 01".replace(" ", "") + "02060000c0000a00", hex(length));
        assertTrue(SenseData.isDescriptorFormat(buffer, 0, length));
        assertEquals(SenseKey.ILLEGAL_REQUEST, SenseData.senseKey(buffer, 0, length));
        assertEquals(0x21, SenseData.asc(buffer, 0, length));
        assertEquals(0, SenseData.ascq(buffer, 0, length));
        assertEquals(10, SenseData.fieldPointer(buffer, 0, length));
    }

    @Test
    void descriptorFormatBare() {
        int length = SenseData.write(buffer, 0, SenseFormat.DESCRIPTOR, SenseCode.SPACE_ALLOCATION_FAILED_WRITE_PROTECT);
        assertEquals("7207270700000000", hex(length));
        assertEquals(7, SenseData.ascq(buffer, 0, length));
        assertEquals(-1, SenseData.fieldPointer(buffer, 0, length));
    }

    @Test
    void readersToleratesShortData() {
        assertEquals(-1, SenseData.senseKey(buffer, 0, 0));
        assertEquals(-1, SenseData.asc(buffer, 0, 5));
        assertEquals(-1, SenseData.fieldPointer(buffer, 0, 3));
    }

    private String hex(int length) {
        return HexFormat.of().formatHex(buffer.asSlice(0, length).toArray(ValueLayout.JAVA_BYTE));
    }
}
