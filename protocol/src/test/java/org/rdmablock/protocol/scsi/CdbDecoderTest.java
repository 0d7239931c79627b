package org.rdmablock.protocol.scsi;

import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Field extraction and refusal of every CDB form (SBC-3, SPC-4 4.2.5). */
class CdbDecoderTest {
    private final CdbDecoder d = new CdbDecoder();

    private boolean decode(byte[] cdb) {
        return d.decode(MemorySegment.ofArray(cdb), 0, cdb.length);
    }

    @Test
    void readWriteFieldsInEverySize() {
        assertTrue(decode(Cdbs.rw6(false, 0x1F_FFFF, 7)));
        assertEquals(CommandKind.READ, d.kind());
        assertEquals(0x1F_FFFF, d.lba());
        assertEquals(7, d.transferLength());
        assertTrue(decode(Cdbs.rw10(true, 0xFFFF_FFFFL, 0xFFFF, true)));
        assertEquals(CommandKind.WRITE, d.kind());
        assertEquals(0xFFFF_FFFFL, d.lba());
        assertEquals(0xFFFF, d.transferLength());
        assertTrue(d.has(CdbDecoder.FUA));
        assertTrue(decode(Cdbs.rw12(false, 5, -1, false)));
        assertEquals(0xFFFF_FFFFL, d.transferLength());
        assertFalse(d.has(CdbDecoder.FUA));
        assertTrue(decode(Cdbs.rw16(false, 0x8000_0000_0000_0001L, 3, true)));
        assertEquals(0x8000_0000_0000_0001L, d.lba(), "64-bit LBA, unsigned");
        assertEquals(16, d.cdbLength());
    }

    @Test
    void refusals() {
        assertFalse(decode(new byte[]{0x7F, 0, 0, 0, 0, 0, 0, 0, 0, 0}));    // variable-length group
        assertEquals(SenseCode.INVALID_COMMAND_OPERATION_CODE, d.error());
        assertNull(d.kind());
        assertFalse(decode(new byte[]{(byte) 0xE0, 0, 0, 0, 0, 0}));          // vendor-specific group
        assertEquals(SenseCode.INVALID_COMMAND_OPERATION_CODE, d.error());
        assertFalse(decode(new byte[]{0x28, 0, 0}));                           // truncated READ(10)
        assertEquals(SenseCode.INVALID_FIELD_IN_CDB, d.error());
        byte[] naca = Cdbs.testUnitReady();
        naca[5] = 0x04;
        assertFalse(decode(naca));
        assertEquals(5, d.errorField());
        assertEquals(2, d.errorBit());
        assertFalse(d.decode(MemorySegment.ofArray(new byte[4]), 0, 0));
        assertFalse(d.decode(MemorySegment.ofArray(new byte[4]), 2, 4), "outside the segment");
    }

    @Test
    void readCapacity10WithoutPmiNeedsLbaZero() {
        byte[] cdb = Cdbs.readCapacity10();
        assertTrue(decode(cdb));
        cdb[5] = 1;
        assertFalse(decode(cdb));
        assertEquals(2, d.errorField());
        cdb[8] = 1;
        assertTrue(decode(cdb));
        assertTrue(d.has(CdbDecoder.PMI));
    }

    @Test
    void serviceActionsAndOptions() {
        byte[] rc16 = Cdbs.readCapacity16(32);
        assertTrue(decode(rc16));
        assertEquals(CommandKind.READ_CAPACITY_16, d.kind());
        assertEquals(32, d.allocationLength());
        rc16[1] = 0x12;                                                         // GET LBA STATUS
        assertTrue(decode(rc16));
        assertEquals(CommandKind.GET_LBA_STATUS, d.kind());
        rc16[1] = 0x13;                                                         // no such service action
        assertFalse(decode(rc16));
        assertEquals(1, d.errorField());
        assertTrue(decode(Cdbs.reportOpcodes(2, true, 0x9E, 0x10, 100)));
        assertEquals(0x9E, d.requestedOpcode());
        assertEquals(0x10, d.requestedServiceAction());
        assertTrue(d.has(CdbDecoder.RCTD));
        byte[] badLuns = Cdbs.reportLuns(100);
        badLuns[2] = 3;
        assertFalse(decode(badLuns));
    }

    @Test
    void writeSameAndModeFlags() {
        assertTrue(decode(Cdbs.writeSame16(1, 2, true, true)));
        assertTrue(d.has(CdbDecoder.UNMAP_BIT));
        assertTrue(d.has(CdbDecoder.NDOB));
        assertTrue(decode(Cdbs.writeSame10(1, 2, true)));
        assertFalse(d.has(CdbDecoder.NDOB));
        assertTrue(decode(Cdbs.modeSense10(true, true, 1, 0x3F, 0xFF, 300)));
        assertTrue(d.has(CdbDecoder.LLBAA));
        assertTrue(d.has(CdbDecoder.DBD));
        assertEquals(1, d.pageControl());
        assertEquals(0x3F, d.pageCode());
        assertEquals(0xFF, d.subpageCode());
        assertEquals(300, d.allocationLength());
        byte[] noPf = Cdbs.modeSelect6(10);
        noPf[1] = 0;
        assertFalse(decode(noPf));
    }
}
