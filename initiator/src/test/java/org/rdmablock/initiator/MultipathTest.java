package org.rdmablock.initiator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmablock.protocol.scsi.InMemoryBackend;
import org.rdmablock.protocol.scsi.LogicalUnit;
import org.rdmablock.protocol.scsi.LogicalUnitConfig;
import org.rdmablock.protocol.scsi.LogicalUnitTable;
import org.rdmablock.protocol.scsi.TargetPortGroups.AccessState;
import org.rdmablock.target.config.PortsConfig;
import org.rdmablock.target.srp.SrpTarget;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Several paths to one target ({@link InitiatorConfig#withPaths}: our daemon's [listen] and a [[port]]): a session whose
 * path is pulled while it writes goes on through the other with no request failing and no write lost, and a session
 * whose first path does not answer at connect logs in through the next.
 */
class MultipathTest {
    private static final int BLOCK = 4096;
    private static final int BLOCKS = 64;

    private static SrpTarget twoPortTarget(final LogicalUnitTable units) {
        return twoPortTarget(units, new PortsConfig(1, List.of(new PortsConfig.Port(2, InitiatorTest.ADDRESS, 0, 1)), List.of()));
    }

    /** A target whose port 1 is in group 1 and port 2 in group 2, each in the state given. */
    private static PortsConfig groups(final AccessState first, final AccessState second) {
        return new PortsConfig(1, List.of(new PortsConfig.Port(2, InitiatorTest.ADDRESS, 0, 2)),
                List.of(new PortsConfig.Group(1, first), new PortsConfig.Group(2, second)));
    }

    private static SrpTarget twoPortTarget(final LogicalUnitTable units, final PortsConfig ports) {
        units.add(new LogicalUnit(0, LogicalUnitConfig.builder().serialNumber("paths").blockSize(BLOCK).build(),
                new InMemoryBackend(16L << 20)));
        return SrpTarget.start(InitiatorTest.targetConfig().withPorts(ports), initiator -> units);
    }

    private static InitiatorConfig config(final SrpTarget target, final long initiatorId) {
        return InitiatorConfig.of(InitiatorTest.PROVIDER, InitiatorTest.ADDRESS, target.localAddress().getPort())
                .withTargetPortId(InitiatorTest.ID_EXT, InitiatorTest.IOC_GUID).withInitiatorPortId(0x500, initiatorId)
                .withPaths(target.localAddress(2));
    }

    @Test
    @Timeout(60)
    void aPathPulledUnderWritesFailsOverWithNothingFailedOrLost() throws Exception {
        final LogicalUnitTable units = new LogicalUnitTable();
        try (SrpTarget target = twoPortTarget(units); SrpInitiator initiator = SrpInitiator.connect(config(target, 1))) {
            writeAcross(initiator, () -> assertEquals(1, target.portDown(1), "the session's one channel was on port 1"));
            assertTrue(target.ports().get(1).channels() == 1 && target.ports().get(0).channels() == 0, "through port 2 now");
        }
    }

    @Test
    @Timeout(60)
    void aChangeOfGroupStatesMovesTheSessionToTheActivePortWithNothingFailed() throws Exception {
        final LogicalUnitTable units = new LogicalUnitTable();
        try (SrpTarget target = twoPortTarget(units, groups(AccessState.ACTIVE_OPTIMIZED, AccessState.STANDBY));
             SrpInitiator initiator = SrpInitiator.connect(config(target, 3))) {
            assertEquals(1, target.ports().get(0).channels());
            writeAcross(initiator, () -> target.portStatesChanged(groups(AccessState.STANDBY, AccessState.ACTIVE_OPTIMIZED)));
            assertTrue(target.ports().get(1).channels() == 1 && target.ports().get(0).channels() == 0, "through port 2 now");
        }
    }

    @Test
    @Timeout(60)
    void aFirstPathInAStandbyGroupIsLeftForTheActiveOne() throws Exception {
        final LogicalUnitTable units = new LogicalUnitTable();
        try (SrpTarget target = twoPortTarget(units, groups(AccessState.STANDBY, AccessState.ACTIVE_OPTIMIZED));
             SrpInitiator initiator = SrpInitiator.connect(config(target, 4))) {
            final MemorySegment buffer = initiator.allocateBuffer(BLOCK);
            buffer.fill((byte) 0x6D);
            initiator.lun(0).writeBlocking(5, 1, buffer, 0, false);
            assertEquals(1, target.ports().get(1).channels(), "the session went on through port 2");
            assertEquals(0, target.ports().get(0).channels());
        }
    }

    /**
     * Writes block after block while {@code event} happens to the session's path; asserts that no write failed, that
     * the channel logged in again, and that the last writes read back.
     */
    private static void writeAcross(final SrpInitiator initiator, final Runnable event) throws Exception {
        final Lun lun = initiator.lun(0);
        final MemorySegment buffer = initiator.allocateBuffer((long) BLOCKS * BLOCK);
        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicLong written = new AtomicLong();
        final AtomicReference<Throwable> failed = new AtomicReference<>();
        final Thread writer = Thread.ofPlatform().start(() -> {
            try {
                for (long round = 1; !stop.get(); round++) {
                    final int block = (int) (round % BLOCKS);
                    buffer.asSlice((long) block * BLOCK, BLOCK).fill((byte) round);
                    lun.writeBlocking(block, 1, buffer, (long) block * BLOCK, false);
                    written.set(round);
                }
            } catch (Throwable t) {
                failed.set(t);
            }
        });
        await("writes before the event").atMost(Duration.ofSeconds(10)).until(() -> written.get() > 50 || failed.get() != null);
        final long before = written.get();
        event.run();
        await("writes after the event, through port 2").atMost(Duration.ofSeconds(20))
                .until(() -> written.get() > before + 50 || failed.get() != null);
        stop.set(true);
        writer.join(10_000);
        assertNull(failed.get(), () -> "a write failed across the event: " + failed.get());
        assertTrue(initiator.reconnects() > 0, "it logged in again");

        final MemorySegment back = initiator.allocateBuffer(BLOCK);
        final long last = written.get();
        for (long round = last; round > last - BLOCKS && round > 0; round--) {
            final int block = (int) (round % BLOCKS);
            lun.readBlocking(block, 1, back, 0);
            assertEquals((byte) round, back.get(ValueLayout.JAVA_BYTE, BLOCK - 1), "block " + block + " holds write " + round);
        }
    }

    @Test
    @Timeout(60)
    void aFirstPathThatDoesNotAnswerIsPassedOverAtConnect() throws Exception {
        final LogicalUnitTable units = new LogicalUnitTable();
        try (SrpTarget target = twoPortTarget(units)) {
            target.portDown(1);
            try (SrpInitiator initiator = SrpInitiator.connect(config(target, 2))) {
                final MemorySegment buffer = initiator.allocateBuffer(BLOCK);
                buffer.fill((byte) 0x5C);
                initiator.lun(0).writeBlocking(3, 1, buffer, 0, false);
                assertEquals(1, target.ports().get(1).channels(), "logged in through port 2");
            }
        }
    }
}
