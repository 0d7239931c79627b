package org.rdmablock.protocol.scsi;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.rdmablock.protocol.scsi.LunHarness.assertCheckCondition;
import static org.rdmablock.protocol.scsi.LunHarness.assertGood;

/** LUN routing, REPORT LUNS (SPC-4 6.33) and answers for LUNs with no unit. */
class LogicalUnitTableTest {
    private final LogicalUnitTable table = new LogicalUnitTable();
    private final MemorySegment buffer = Arena.ofAuto().allocate(4096);
    private final ScsiCommand cmd = new ScsiCommand();
    private int completions;

    LogicalUnitTableTest() {
        for (int lun : new int[]{0, 7, 300}) {
            table.add(new LogicalUnit(lun, LunHarness.config(512).serialNumber("S" + lun).build(), new InMemoryBackend(1 << 20)));
        }
        cmd.setCompletion(c -> completions++);
    }

    private ScsiCommand run(int lun, byte[] cdb, int expectedIn) {
        int before = completions;
        cmd.setCdb(cdb).setDataBuffer(buffer, 0, 4096).setExpectedLengths(0, expectedIn);
        table.execute(LunAddress.encode(lun), cmd);
        assertEquals(before + 1, completions);
        return cmd;
    }

    @Test
    void reportLunsListsEveryUnitFromAnyLun() {
        for (int lun : new int[]{0, 300}) {
            assertGood(run(lun, Cdbs.reportLuns(4096), 4096));
            ByteBuffer b = ByteBuffer.wrap(buffer.asSlice(0, cmd.dataInLength()).toArray(ValueLayout.JAVA_BYTE));
            assertEquals(32, b.capacity());
            assertEquals(24, b.getInt(0));
            assertEquals(0x0000_0000_0000_0000L, b.getLong(8));
            assertEquals(0x0007_0000_0000_0000L, b.getLong(16));
            assertEquals(0x412C_0000_0000_0000L, b.getLong(24), "flat space addressing above 255");
        }
        assertCheckCondition(run(0, Cdbs.reportLuns(15), 15), SenseCode.INVALID_FIELD_IN_CDB);
    }

    @Test
    void routesByLun() {
        assertGood(run(7, Cdbs.inquiryVpd(0x80, 255), 255));
        assertEquals("S7", new String(buffer.asSlice(4, 2).toArray(ValueLayout.JAVA_BYTE)));
        assertGood(run(300, Cdbs.inquiryVpd(0x80, 255), 255));
        assertEquals("S300", new String(buffer.asSlice(4, 4).toArray(ValueLayout.JAVA_BYTE)));
    }

    @Test
    void absentLunAnswers() {
        assertGood(run(5, Cdbs.inquiry(36), 36));
        assertEquals(0x7F, buffer.get(ValueLayout.JAVA_BYTE, 0), "peripheral qualifier 3, no device type");
        assertCheckCondition(run(5, Cdbs.testUnitReady(), 0), SenseCode.LOGICAL_UNIT_NOT_SUPPORTED);
        assertCheckCondition(run(5, Cdbs.rw10(false, 0, 1, false), 512), SenseCode.LOGICAL_UNIT_NOT_SUPPORTED);
        assertGood(run(5, Cdbs.requestSense(false, 18), 18));
        assertEquals(0x25, buffer.get(ValueLayout.JAVA_BYTE, 12), "LOGICAL UNIT NOT SUPPORTED as sense data");
        assertGood(run(5, Cdbs.reportLuns(4096), 4096));
        assertEquals(24, buffer.get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 0));
        cmd.setCdb(Cdbs.testUnitReady()).setExpectedLengths(0, 0);
        table.execute(0xC000_0000_0000_0000L, cmd);      // extended addressing: not ours
        assertCheckCondition(cmd, SenseCode.LOGICAL_UNIT_NOT_SUPPORTED);
    }

    @Test
    void addAndRemove() {
        assertThrows(IllegalStateException.class,
                () -> table.add(new LogicalUnit(7, LunHarness.config(512).build(), new InMemoryBackend(1 << 20))));
        LogicalUnit seven = table.get(7);
        assertSame(seven, table.remove(7));
        assertNull(table.get(7));
        assertNull(table.remove(7));
        assertEquals(2, table.size());
    }

    @Test
    void standaloneUnitReportsItsOwnLun() {
        LunHarness h = LunHarness.of(512);
        assertGood(h.run(Cdbs.reportLuns(64), 64));
        assertEquals(16, h.dataIn().length);
        assertEquals(8, ByteBuffer.wrap(h.dataIn()).getInt(0));
    }
}
