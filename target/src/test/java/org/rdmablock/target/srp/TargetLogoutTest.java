package org.rdmablock.target.srp;

import org.junit.jupiter.api.Test;
import org.rdmablock.protocol.scsi.InMemoryBackend;
import org.rdmablock.protocol.scsi.LogicalUnit;
import org.rdmablock.protocol.scsi.LogicalUnitConfig;
import org.rdmablock.protocol.scsi.LogicalUnitTable;
import org.rdmablock.protocol.scsi.ScsiStatus;
import org.rdmablock.protocol.srp.SrpOpcode;
import org.rdmablock.protocol.srp.SrpTargetLogout;
import org.rdmablock.target.config.TargetConfig;
import org.rdmablock.target.config.TimeoutConfig;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.rdmablock.target.Waiting.waitUpTo;

/** The target ends channels itself: an idle one after the configured time, every one when it stops (SRP_T_LOGOUT). */
class TargetLogoutTest {
    private static SrpTarget start(final Duration idle) {
        final LogicalUnitTable units = new LogicalUnitTable();
        units.add(new LogicalUnit(0, LogicalUnitConfig.builder().serialNumber("lo").build(), new InMemoryBackend(1 << 20)));
        final TargetConfig base = SrpTargetTest.config(0);
        return SrpTarget.start(new TargetConfig(base.source(), base.listen(), base.identity(), base.channel(), base.pipeline(),
                new TimeoutConfig(idle, Duration.ofSeconds(30)), base.luns()), initiator -> units);
    }

    @Test
    void anIdleChannelIsLoggedOutWithInactiveChannel() {
        try (SrpTarget target = start(Duration.ofMillis(500));
             TestInitiator ini = TestInitiator.login(target.localAddress(), SrpTargetTest.ID_EXT, SrpTargetTest.IOC_GUID, 0x1D, 4096)) {
            final long before = System.nanoTime(); // before the command: its arrival is the channel's last activity
            assertEquals(ScsiStatus.GOOD, ini.execute(0, new byte[6], 0, 0, 0, false).status(), "served while active");
            final TestInitiator.Response logout = ini.awaitResponse();
            assertEquals(SrpOpcode.T_LOGOUT, logout.opcode());
            assertEquals(SrpTargetLogout.REASON_INACTIVE_CHANNEL, logout.logoutReason());
            final long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - before);
            assertEquals(true, waited >= 500, "not before the idle time (" + waited + " ms)");
            waitUpTo(TargetTestBase.SETTLE, "the idle channel ends").until(target::channelCount, channels -> channels == 0);
        }
    }

    @Test
    void aStoppingTargetLogsEveryChannelOut() throws Exception {
        final SrpTarget target = start(Duration.ZERO);
        try (TestInitiator first = TestInitiator.login(target.localAddress(), SrpTargetTest.ID_EXT, SrpTargetTest.IOC_GUID, 0x51, 4096);
             TestInitiator second = TestInitiator.login(target.localAddress(), SrpTargetTest.ID_EXT, SrpTargetTest.IOC_GUID, 0x52, 4096)) {
            assertEquals(ScsiStatus.GOOD, first.execute(0, new byte[6], 0, 0, 0, false).status());
            final CompletableFuture<Void> closing = CompletableFuture.runAsync(target::close);
            for (final TestInitiator ini : new TestInitiator[]{first, second}) {
                final TestInitiator.Response logout = ini.awaitResponse();
                assertEquals(SrpOpcode.T_LOGOUT, logout.opcode());
                assertEquals(SrpTargetLogout.REASON_NONE, logout.logoutReason());
            }
            closing.get(20, TimeUnit.SECONDS);
        }
    }
}
