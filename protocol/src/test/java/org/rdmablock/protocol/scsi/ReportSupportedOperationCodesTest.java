package org.rdmablock.protocol.scsi;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rdmablock.protocol.scsi.LunHarness.assertCheckCondition;
import static org.rdmablock.protocol.scsi.LunHarness.assertGood;

/** REPORT SUPPORTED OPERATION CODES in all formats (SPC-4 6.35), as sd uses it to decide on WRITE SAME. */
class ReportSupportedOperationCodesTest {
    private final LunHarness h = LunHarness.of(512);

    @Test
    void allCommandsListsEveryImplementedCommand() {
        assertGood(h.run(Cdbs.reportOpcodes(0, false, 0, 0, 4096), 4096));
        ByteBuffer b = ByteBuffer.wrap(h.dataIn());
        int length = b.getInt(0);
        assertEquals(b.capacity() - 4, length);
        assertEquals(0, length % 8);
        Set<Integer> opcodes = new HashSet<>();
        for (int at = 4; at < b.capacity(); at += 8) {
            int opcode = b.get(at) & 0xFF;
            opcodes.add(opcode);
            int cdbLength = b.getShort(at + 6);
            assertEquals(CdbDecoder.groupLength(opcode), cdbLength, "CDB length of 0x" + Integer.toHexString(opcode));
            if (opcode == 0x9E) {
                assertTrue(Set.of(0x10, 0x12).contains((int) b.getShort(at + 2)), "READ CAPACITY(16) or GET LBA STATUS");
                assertEquals(1, b.get(at + 5) & 1, "SERVACTV");
            }
        }
        for (int opcode : new int[]{0x00, 0x03, 0x08, 0x0A, 0x12, 0x15, 0x16, 0x17, 0x1A, 0x25, 0x28, 0x2A, 0x35, 0x41, 0x42,
                0x55, 0x5A, 0x5E, 0x5F, 0x88, 0x8A, 0x91, 0x93, 0x9E, 0xA0, 0xA3}) {
            assertTrue(opcodes.contains(opcode), "lists 0x" + Integer.toHexString(opcode));
        }
    }

    @Test
    void persistentReserveOutIsReportedByServiceAction() {
        assertGood(h.run(Cdbs.reportOpcodes(2, false, 0x5F, 0x07, 512), 512)); // REGISTER AND MOVE
        byte[] d = h.dataIn();
        assertEquals(3, d[1] & 0x07, "supported");
        assertEquals((byte) 0x5F, d[4]);
        assertEquals((byte) 0xFF, d[6], "scope and type are used");
        assertGood(h.run(Cdbs.reportOpcodes(2, false, 0x5E, 0x04, 512), 512)); // no PRIN service action 04h
        assertEquals(1, h.dataIn()[1] & 0x07, "not supported");
        assertCheckCondition(h.run(Cdbs.reportOpcodes(1, false, 0x5E, 0, 512), 512), SenseCode.INVALID_FIELD_IN_CDB);
    }

    @Test
    void allCommandsWithTimeoutsDescriptors() {
        assertGood(h.run(Cdbs.reportOpcodes(0, true, 0, 0, 4096), 4096));
        ByteBuffer b = ByteBuffer.wrap(h.dataIn());
        assertEquals(0, (b.capacity() - 4) % 20);
        assertEquals(0x02, b.get(4 + 5) & 0x02, "CTDP");
        assertEquals(0x0A, b.getShort(4 + 8), "timeouts descriptor length");
    }

    @Test
    void oneCommandAsLinuxAsksForWriteSame() {
        assertGood(h.run(Cdbs.reportOpcodes(1, false, 0x93, 0, 512), 512));
        byte[] d = h.dataIn();
        assertEquals(3, d[1] & 0x07, "supported");
        assertEquals(16, ByteBuffer.wrap(d).getShort(2));
        assertEquals(4 + 16, d.length);
        assertEquals((byte) 0x93, d[4], "usage data starts with the opcode");
        assertEquals(0x09, d[5], "UNMAP and NDOB are used");

        assertGood(h.run(Cdbs.reportOpcodes(1, false, 0x41, 0, 512), 512));
        assertEquals(3, h.dataIn()[1] & 0x03);
        assertGood(h.run(Cdbs.reportOpcodes(1, false, 0x12, 0, 512), 512));
        assertEquals(3, h.dataIn()[1] & 0x03, "INQUIRY: RSOC itself works");
    }

    @Test
    void unsupportedCommandsAreReportedAsSuch() {
        assertGood(h.run(Cdbs.reportOpcodes(1, false, 0xA2, 0, 512), 512));   // SECURITY PROTOCOL IN
        byte[] d = h.dataIn();
        assertEquals(4, d.length);
        assertEquals(1, d[1] & 0x07, "not supported");
        assertGood(h.run(Cdbs.reportOpcodes(3, false, 0x9E, 0x13, 512), 512));  // no SERVICE ACTION IN 13h
        assertEquals(1, h.dataIn()[1] & 0x07);
    }

    @Test
    void serviceActionFormats() {
        assertGood(h.run(Cdbs.reportOpcodes(2, true, 0x9E, 0x10, 512), 512));
        byte[] d = h.dataIn();
        assertEquals((byte) 0x80, d[0], "CTDP");
        assertEquals(3, d[1] & 0x07);
        assertEquals(4 + 16 + 12, d.length);
        assertGood(h.run(Cdbs.reportOpcodes(3, false, 0xA3, 0x0C, 512), 512));
        assertEquals(3, h.dataIn()[1] & 0x07);
        assertGood(h.run(Cdbs.reportOpcodes(2, false, 0x9E, 0x12, 512), 512));  // GET LBA STATUS
        assertEquals(3, h.dataIn()[1] & 0x07);
        assertGood(h.run(Cdbs.reportOpcodes(3, false, 0x28, 0, 512), 512));
        assertEquals(3, h.dataIn()[1] & 0x07, "option 3 on a command without service actions");

        assertCheckCondition(h.run(Cdbs.reportOpcodes(1, false, 0x9E, 0, 512), 512), SenseCode.INVALID_FIELD_IN_CDB);
        assertCheckCondition(h.run(Cdbs.reportOpcodes(2, false, 0x28, 0, 512), 512), SenseCode.INVALID_FIELD_IN_CDB);
        assertCheckCondition(h.run(Cdbs.reportOpcodes(5, false, 0x28, 0, 512), 512), SenseCode.INVALID_FIELD_IN_CDB);
    }
}
