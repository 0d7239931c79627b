package org.rdmablock.target.srp;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rdmablock.protocol.scsi.InMemoryBackend;
import org.rdmablock.protocol.scsi.LogicalUnit;
import org.rdmablock.protocol.scsi.LogicalUnitConfig;
import org.rdmablock.protocol.scsi.LogicalUnitTable;
import org.rdmablock.protocol.scsi.ScsiStatus;
import org.rdmablock.protocol.srp.SrpLoginReject;
import org.rdmablock.protocol.srp.SrpLoginRequest;
import org.rdmablock.target.config.ChannelConfig;
import org.rdmablock.target.config.IdentityConfig;
import org.rdmablock.target.config.ListenConfig;
import org.rdmablock.target.config.PipelineConfig;
import org.rdmablock.target.config.TargetConfig;
import org.rdmablock.target.config.TimeoutConfig;
import org.rdmablock.verbs.ConnectionRejectedException;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@code max_channels_per_initiator}: one initiator port holds at most that many channels (a login beyond them is
 * rejected with RDMA CHANNEL LIMIT REACHED, the others serving on), while other initiators still log in; a SINGLE
 * login, which ends the port's channels, is not counted against them.
 */
class ChannelsPerInitiatorTest {
    private static final long ID_EXT = 0x0272_0000_0000_0C01L;
    private static final int PER_INITIATOR = 2;
    private final List<TestInitiator> open = new ArrayList<>();
    private SrpTarget target;

    @AfterEach
    void close() {
        open.forEach(TestInitiator::close);
        if (target != null) {
            target.close();
        }
    }

    private TestInitiator login(final long initiator, final int multichannel) {
        final TestInitiator ini = new TestInitiator(address(), TestInitiator.loginPrivateData(ID_EXT, ID_EXT, initiator,
                TestInitiator.IU_LENGTH, multichannel, 0), 4096, 4);
        open.add(ini);
        return ini;
    }

    private InetSocketAddress address() {
        return target.localAddress();
    }

    @Test
    void anInitiatorPortHoldsAtMostItsShareOfTheChannels() {
        final LogicalUnitTable units = new LogicalUnitTable();
        units.add(new LogicalUnit(0, LogicalUnitConfig.builder().serialNumber("cap").blockSize(512).build(),
                new InMemoryBackend(1L << 20)));
        target = SrpTarget.start(new TargetConfig("<test>", new ListenConfig(TestInitiator.PROVIDER, TestInitiator.ADDRESS, 0),
                new IdentityConfig(ID_EXT, ID_EXT), new ChannelConfig(16, 8276, 1 << 20, true, 8192, 8, PER_INITIATOR),
                new PipelineConfig(4096, 64, 0, PipelineConfig.ReceiveQueueMode.PER_CHANNEL, PipelineConfig.CompletionMode.POLL),
                new TimeoutConfig(Duration.ZERO, Duration.ofSeconds(30)), List.of()), initiator -> units);

        final List<TestInitiator> first = List.of(login(0xA1, SrpLoginRequest.MULTICHANNEL_MULTI),
                login(0xA1, SrpLoginRequest.MULTICHANNEL_MULTI));
        final ConnectionRejectedException e = assertThrows(ConnectionRejectedException.class,
                () -> login(0xA1, SrpLoginRequest.MULTICHANNEL_MULTI));
        assertEquals(SrpLoginReject.REASON_CHANNEL_LIMIT_REACHED, TestInitiator.loginReject(e).reason());
        for (final TestInitiator ini : first) {
            assertEquals(ScsiStatus.GOOD, ini.execute(0, new byte[6], 0, 0, 0, false).status(), "the port's channels serve on");
        }
        // another initiator port is not held to the first one's count
        login(0xA2, SrpLoginRequest.MULTICHANNEL_MULTI);
        login(0xA2, SrpLoginRequest.MULTICHANNEL_MULTI);
        assertEquals(4, target.channelCount());
        // SINGLE ends the port's channels: it is let in, and then the port holds one
        login(0xA1, SrpLoginRequest.MULTICHANNEL_SINGLE);
    }
}
