package org.rdmablock.protocol.scsi;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.rdmablock.protocol.scsi.LunHarness.assertCheckCondition;
import static org.rdmablock.protocol.scsi.LunHarness.assertGood;
import static org.rdmablock.protocol.scsi.TargetPortGroups.AccessState.ACTIVE_NON_OPTIMIZED;
import static org.rdmablock.protocol.scsi.TargetPortGroups.AccessState.ACTIVE_OPTIMIZED;
import static org.rdmablock.protocol.scsi.TargetPortGroups.AccessState.STANDBY;
import static org.rdmablock.protocol.scsi.TargetPortGroups.AccessState.UNAVAILABLE;

/**
 * Implicit ALUA (SPC-4 5.16) in the engine: INQUIRY's TPGS, the Device Identification page naming the command's target
 * port and its group (what Linux's scsi_dh_alua reads), REPORT TARGET PORT GROUPS in both formats, and the commands a
 * port in the standby or unavailable state refuses with NOT READY. Byte layouts are SPC-4's, written here as literals.
 */
class LogicalUnitAluaTest {
    private final LunHarness h = LunHarness.of(512);
    private final NexusRegistry nexuses = new NexusRegistry();
    private final Nexus viaPort1 = nexuses.ofSrp(0x1L, 1, 1);
    private final Nexus viaPort2 = nexuses.ofSrp(0x1L, 1, 2);
    private final Nexus viaPort3 = nexuses.ofSrp(0x1L, 1, 3);

    private void groups(final TargetPortGroups.Group... groups) {
        nexuses.portGroups(new TargetPortGroups(List.of(groups)));
    }

    private ScsiCommand as(final Nexus n, final byte[] cdb, final int expectedIn) {
        h.cmd.setNexus(n);
        return h.run(cdb, expectedIn);
    }

    private static byte[] rtpg(final boolean extended, final int allocation) {
        return ByteBuffer.allocate(12).put(0, (byte) 0xA3).put(1, (byte) ((extended ? 0x20 : 0) | 0x0A)).putInt(6, allocation)
                .array();
    }

    @Test
    void inquirySaysImplicitAlua() {
        assertGood(as(viaPort1, Cdbs.inquiry(96), 96));
        assertEquals(0x10, h.dataInByte(5) & 0x30, "TPGS 01b: implicit");
    }

    @Test
    void deviceIdentificationNamesTheCommandsTargetPortAndItsGroup() {
        groups(new TargetPortGroups.Group(7, ACTIVE_OPTIMIZED, List.of(1)), new TargetPortGroups.Group(9, STANDBY, List.of(2)));
        assertGood(as(viaPort2, Cdbs.inquiryVpd(0x83, 255), 255));
        final byte[] page = h.dataIn();
        final int length = ByteBuffer.wrap(page).getShort(2);
        int relativePort = -1;
        int group = -1;
        for (int at = 4; at < 4 + length; at += 4 + page[at + 3]) {
            final int type = page[at + 1] & 0x0F;
            final int association = (page[at + 1] >>> 4) & 0x03;
            if (association == 1) {
                assertEquals(0x80, page[at + 1] & 0x80, "PIV");
                assertEquals(0x41, page[at] & 0xFF, "SRP, binary");
                assertEquals(4, page[at + 3]);
                final int value = ByteBuffer.wrap(page).getShort(at + 6);
                if (type == 4) {
                    relativePort = value;
                } else if (type == 5) {
                    group = value;
                }
            }
        }
        assertEquals(2, relativePort, "relative target port designator");
        assertEquals(9, group, "target port group designator");

        h.cmd.setNexus(null); // a caller with no nexus: the logical unit's designators only
        assertGood(h.run(Cdbs.inquiryVpd(0x83, 255), 255));
        assertEquals(length - 16, ByteBuffer.wrap(h.dataIn()).getShort(2));
    }

    @Test
    void reportTargetPortGroupsListsEachGroupWithItsStateAndPorts() {
        groups(new TargetPortGroups.Group(7, ACTIVE_OPTIMIZED, List.of(1, 3)), new TargetPortGroups.Group(9, STANDBY, List.of(2)));
        assertGood(as(viaPort1, rtpg(false, 256), 256));
        assertArrayEquals(new byte[]{
            0, 0, 0, 28,
            0x00, 0x0F, 0, 7, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 3,
            0x02, 0x0F, 0, 9, 0, 0, 0, 1, 0, 0, 0, 2}, h.dataIn());
        assertGood(as(viaPort1, rtpg(true, 256), 256));
        final byte[] extended = h.dataIn();
        assertEquals(36, extended.length);
        assertEquals(32, ByteBuffer.wrap(extended).getInt(0), "RETURN DATA LENGTH");
        assertEquals(0x10, extended[4] & 0x70, "FORMAT TYPE 001b: extended header");
        assertEquals(7, ByteBuffer.wrap(extended).getShort(8 + 2));
        assertGood(as(viaPort1, rtpg(true, 4), 4));
        assertEquals(4, h.dataIn().length, "cut to the allocation length");

        nexuses.portGroups(nexuses.portGroups().changedTo(List.of(new TargetPortGroups.Group(7, STANDBY, List.of(1, 3)),
                new TargetPortGroups.Group(9, ACTIVE_OPTIMIZED, List.of(2)))));
        assertGood(as(viaPort2, rtpg(false, 256), 256));
        final byte[] after = h.dataIn();
        assertEquals(0x02, after[4], "group 7 now standby");
        assertEquals(0x02, after[4 + 5], "STATUS CODE: changed by implicit behaviour");
        assertEquals(0x00, after[20], "group 9 now active/optimized");

        final byte[] badFormat = rtpg(false, 256);
        badFormat[1] = (byte) 0x4A;
        assertCheckCondition(as(viaPort1, badFormat, 256), SenseCode.INVALID_FIELD_IN_CDB);
    }

    @Test
    void aStandbyOrUnavailablePortRefusesWhatSpc4SaysAndAnActiveOneNothing() {
        groups(new TargetPortGroups.Group(1, ACTIVE_NON_OPTIMIZED, List.of(1)), new TargetPortGroups.Group(2, STANDBY, List.of(2)),
                new TargetPortGroups.Group(3, UNAVAILABLE, List.of(3)));
        assertGood(as(viaPort1, Cdbs.testUnitReady(), 0));
        assertGood(as(viaPort1, Cdbs.rw16(false, 0, 1, false), 512));

        assertCheckCondition(as(viaPort2, Cdbs.testUnitReady(), 0), SenseCode.LOGICAL_UNIT_NOT_ACCESSIBLE_TARGET_PORT_IN_STANDBY_STATE);
        assertEquals(SenseKey.NOT_READY, LunHarness.senseKey(h.cmd));
        assertCheckCondition(as(viaPort2, Cdbs.rw16(false, 0, 1, false), 512),
                SenseCode.LOGICAL_UNIT_NOT_ACCESSIBLE_TARGET_PORT_IN_STANDBY_STATE);
        assertGood(as(viaPort2, Cdbs.inquiry(96), 96));
        assertGood(as(viaPort2, Cdbs.readCapacity16(32), 32));
        assertGood(as(viaPort2, rtpg(false, 256), 256));

        assertCheckCondition(as(viaPort3, Cdbs.readCapacity16(32), 32),
                SenseCode.LOGICAL_UNIT_NOT_ACCESSIBLE_TARGET_PORT_IN_UNAVAILABLE_STATE);
        assertCheckCondition(as(viaPort3, Cdbs.modeSense6(false, 0, 0x3F, 0, 255), 255),
                SenseCode.LOGICAL_UNIT_NOT_ACCESSIBLE_TARGET_PORT_IN_UNAVAILABLE_STATE);
        assertGood(as(viaPort3, Cdbs.inquiryVpd(0x83, 255), 255));
        assertGood(as(viaPort3, rtpg(true, 256), 256));
        assertGood(as(viaPort3, Cdbs.reportLuns(64), 64));

        h.cmd.setNexus(null); // no nexus (an NVMe host, a tool): no port, nothing refused
        assertGood(h.run(Cdbs.rw16(false, 0, 1, false), 512));
    }

    @Test
    void groupsMustBeWellFormed() {
        assertThrows(IllegalArgumentException.class, () -> new TargetPortGroups(List.of(
                new TargetPortGroups.Group(1, STANDBY, List.of(1)), new TargetPortGroups.Group(2, STANDBY, List.of(1)))));
        assertThrows(IllegalArgumentException.class, () -> new TargetPortGroups(List.of(
                new TargetPortGroups.Group(1, STANDBY, List.of(1)), new TargetPortGroups.Group(1, STANDBY, List.of(2)))));
        assertThrows(IllegalArgumentException.class, () -> new TargetPortGroups.Group(0, STANDBY, List.of(1)));
        assertEquals(STANDBY, TargetPortGroups.AccessState.ofConfigName("Standby"));
        assertEquals(null, TargetPortGroups.AccessState.ofConfigName("asleep"));
    }
}
