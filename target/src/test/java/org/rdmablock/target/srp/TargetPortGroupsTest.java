package org.rdmablock.target.srp;

import org.junit.jupiter.api.Test;
import org.rdmablock.protocol.scsi.ScsiStatus;
import org.rdmablock.protocol.scsi.TargetPortGroups.AccessState;
import org.rdmablock.target.config.PortsConfig;
import org.rdmablock.target.config.TargetConfig;

import java.nio.ByteBuffer;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rdmablock.target.Waiting.waitUpTo;

/**
 * Two target ports in two target port groups (implicit ALUA): the target listens on both, each login is an I_T nexus of
 * its port (a SINGLE login through one port leaves the initiator's path through the other), each path's Device
 * Identification page names its port and group, a standby port answers NOT READY where SPC-4 says, and a change of
 * the groups' states reaches every logged-in nexus as ASYMMETRIC ACCESS STATE CHANGED.
 */
class TargetPortGroupsTest extends TargetTestBase {
    private static final int NOT_READY = 0x2;
    private static final int UNIT_ATTENTION = 0x6;
    private static final int STANDBY = 0x040B;
    private static final int STATE_CHANGED = 0x2A06;
    private static final long IN = 0x10_0000;

    private static PortsConfig ports(final AccessState first, final AccessState second) {
        return new PortsConfig(1, List.of(new PortsConfig.Port(2, TestInitiator.ADDRESS, 0, 2)),
                List.of(new PortsConfig.Group(1, first), new PortsConfig.Group(2, second)));
    }

    @Override
    TargetConfig targetConfig() {
        return super.targetConfig().withPorts(ports(AccessState.ACTIVE_OPTIMIZED, AccessState.STANDBY));
    }

    private static byte[] inquiry83() {
        return ByteBuffer.allocate(6).put(0, (byte) 0x12).put(1, (byte) 1).put(2, (byte) 0x83).putShort(3, (short) 255).array();
    }

    /** The relative target port and target port group the path's VPD 83h names, as "port/group". */
    private static String portAndGroup(final TestInitiator path) {
        assertEquals(ScsiStatus.GOOD, path.execute(LUN0, inquiry83(), 0, 255, IN, false).status());
        final ByteBuffer page = ByteBuffer.wrap(bytesAt(path, IN, 255));
        int port = -1;
        int group = -1;
        for (int at = 4; at < 4 + page.getShort(2); at += 4 + page.get(at + 3)) {
            if ((page.get(at + 1) & 0x30) == 0x10) {
                if ((page.get(at + 1) & 0x0F) == 4) {
                    port = page.getShort(at + 6);
                } else if ((page.get(at + 1) & 0x0F) == 5) {
                    group = page.getShort(at + 6);
                }
            }
        }
        return port + "/" + group;
    }

    private static TestInitiator.Response testUnitReady(final TestInitiator path) {
        return path.execute(LUN0, new byte[6], 0, 0, IN, false);
    }

    @Test
    void eachPortIsANexusOfItsOwnInItsGroupAndAStandbyPortRefusesIo() {
        assertNotEquals(target.localAddress(), target.localAddress(2), "a second listener");
        final TestInitiator first = login(target.localAddress(), singleChannelLogin(0xA));
        final TestInitiator second = login(target.localAddress(2), singleChannelLogin(0xA)); // SINGLE, the same initiator
        assertEquals(2, target.channelCount(), "the login through port 2 left the path through port 1");
        assertEquals("1/1", portAndGroup(first));
        assertEquals("2/2", portAndGroup(second));

        assertEquals(ScsiStatus.GOOD, testUnitReady(first).status());
        final TestInitiator.Response refused = testUnitReady(second);
        assertEquals(ScsiStatus.CHECK_CONDITION, refused.status());
        assertEquals(NOT_READY, refused.senseKey());
        assertEquals(STANDBY, refused.ascAndQualifier(), "LOGICAL UNIT NOT ACCESSIBLE, TARGET PORT IN STANDBY STATE");
        assertEquals(ScsiStatus.CHECK_CONDITION, second.execute(LUN0, TestInitiator.read16(0, 1), 0, 512, IN, false).status());

        final byte[] rtpg = ByteBuffer.allocate(12).put(0, (byte) 0xA3).put(1, (byte) 0x0A).putInt(6, 64).array();
        assertEquals(ScsiStatus.GOOD, second.execute(LUN0, rtpg, 0, 64, IN, false).status(), "REPORT TARGET PORT GROUPS in standby");
        assertArrayEquals(new byte[]{0x00, 0x0F, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0x02, 0x0F, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2},
                java.util.Arrays.copyOfRange(bytesAt(second, IN, 28), 4, 28), "group 1 active/optimized with port 1, 2 standby with 2");
    }

    @Test
    void aChangeOfStatesIsAUnitAttentionOnEveryPathAndThenHolds() {
        final TestInitiator first = login(target.localAddress(), singleChannelLogin(0xA));
        final TestInitiator second = login(target.localAddress(2), singleChannelLogin(0xA));
        target.portStatesChanged(ports(AccessState.STANDBY, AccessState.ACTIVE_OPTIMIZED));
        for (final TestInitiator path : List.of(first, second)) {
            final TestInitiator.Response told = testUnitReady(path);
            assertEquals(UNIT_ATTENTION, told.senseKey());
            assertEquals(STATE_CHANGED, told.ascAndQualifier(), "ASYMMETRIC ACCESS STATE CHANGED");
        }
        assertEquals(ScsiStatus.GOOD, testUnitReady(second).status(), "port 2 now active/optimized");
        assertEquals(STANDBY, testUnitReady(first).ascAndQualifier(), "port 1 now standby");
    }

    @Test
    void aPortTakenDownDisconnectsItsPathsAndListensAgainWhenBroughtUp() {
        final java.net.InetSocketAddress port2 = target.localAddress(2);
        final TestInitiator first = login(target.localAddress(), singleChannelLogin(0xA));
        login(port2, singleChannelLogin(0xA));
        assertEquals(1, target.portDown(2), "its one channel disconnected");
        waitUpTo(SETTLE, "the path through port 2 gone").until(target::channelCount, n -> n == 1);
        assertFalse(target.ports().get(1).listening());
        assertThrows(RuntimeException.class, () -> login(port2, singleChannelLogin(0xB)), "nothing listens on port 2");
        assertEquals(ScsiStatus.GOOD, testUnitReady(first).status(), "the path through port 1 serves on");
        assertThrows(IllegalArgumentException.class, () -> target.portDown(2), "down already");
        assertThrows(IllegalArgumentException.class, () -> target.portDown(3), "no port 3");

        target.portUp(2);
        assertTrue(target.ports().get(1).listening());
        final TestInitiator again = login(port2, singleChannelLogin(0xA));
        assertEquals("2/2", portAndGroup(again), "the path is back, at the same address");
        assertEquals(2, target.ports().stream().mapToInt(SrpTarget.PortStatus::channels).sum());
    }

    /**
     * A port taken down while its channel has writes and reads in flight: every slot, data chunk and the channel come
     * back (the commands end as a lost connection ends them).
     */
    @Test
    void aPortTakenDownUnderLoadGivesEverySlotAndTheChannelBack() {
        final TestInitiator loaded = login(target.localAddress(), singleChannelLogin(0xC));
        lun0Gate.hold(); // the commands wait in the backend when the port goes
        for (int tag = 1; tag <= 24; tag++) {
            final boolean write = tag % 2 == 0;
            final byte[] cdb = write ? TestInitiator.write16(tag * 256L, 128) : TestInitiator.read16(tag * 256L, 128);
            loaded.submit(tag, LUN0, cdb, write ? 128 * 512 : 0, write ? 0 : 128 * 512, (long) tag * 128 * 512, false);
        }
        waitUpTo(SETTLE, "commands in the backend").until(lun0Gate::heldCount, held -> held > 0);
        target.portDown(1);
        lun0Gate.release();
        awaitTargetIdle(0);
    }
}
