package org.rdmablock.target.srp;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.rdmablock.protocol.scsi.InMemoryBackend;
import org.rdmablock.protocol.scsi.LogicalUnit;
import org.rdmablock.protocol.scsi.LogicalUnitConfig;
import org.rdmablock.protocol.scsi.LogicalUnitTable;
import org.rdmablock.protocol.scsi.ScsiStatus;
import org.rdmablock.protocol.srp.SrpResponse;
import org.rdmablock.target.config.ChannelConfig;
import org.rdmablock.target.config.IdentityConfig;
import org.rdmablock.target.config.ListenConfig;
import org.rdmablock.target.config.PipelineConfig;
import org.rdmablock.target.config.TargetConfig;
import org.rdmablock.target.config.TimeoutConfig;

import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** End to end over the soft provider on loopback: login, WRITE by RDMA READ and by immediate data, READ by RDMA WRITE. */
class SrpTargetTest {
    static final long ID_EXT = 0x0002c903000ab1e0L;
    static final long IOC_GUID = 0x0002c903000ab1e1L;
    SrpTarget target;
    LogicalUnitTable units;

    static TargetConfig config(final int port) {
        return config(port, PipelineConfig.ReceiveQueueMode.PER_CHANNEL, PipelineConfig.CompletionMode.POLL);
    }

    static TargetConfig config(final int port, final PipelineConfig.ReceiveQueueMode receives,
                               final PipelineConfig.CompletionMode completions) {
        return new TargetConfig("<test>", new ListenConfig(TestInitiator.PROVIDER, TestInitiator.ADDRESS, port), new IdentityConfig(ID_EXT, IOC_GUID),
                new ChannelConfig(32, 8276, 1 << 20, true, 8192, 8),
                new PipelineConfig(4096, 256, 2, receives, completions),
                new TimeoutConfig(Duration.ZERO, Duration.ofSeconds(30)), List.of());
    }

    static Stream<Arguments> modes() {
        return Stream.of(PipelineConfig.ReceiveQueueMode.values()).flatMap(r ->
                Stream.of(PipelineConfig.CompletionMode.values()).map(c -> Arguments.of(r, c)));
    }

    void start(final PipelineConfig.ReceiveQueueMode receives, final PipelineConfig.CompletionMode completions) {
        units = new LogicalUnitTable();
        units.add(new LogicalUnit(0, LogicalUnitConfig.builder().serialNumber("lun0").blockSize(512)
                .maxTransferBytes(1 << 20).build(), new InMemoryBackend(64L << 20)));
        target = SrpTarget.start(config(0, receives, completions), initiator -> units);
    }

    @AfterEach
    void stop() {
        if (target != null) {
            target.close();
        }
    }

    /** Each receive mode (own receive queue, SRQ) with each completion mode (busy poll, completion channel). */
    @ParameterizedTest
    @MethodSource("modes")
    void writesByReadAndImmediateDataThenReadsThemBack(final PipelineConfig.ReceiveQueueMode receives,
                                                       final PipelineConfig.CompletionMode completions) {
        start(receives, completions);
        try (TestInitiator ini = TestInitiator.login(target.localAddress(), ID_EXT, IOC_GUID, 0x11, 1 << 20)) {
            assertEquals(32, ini.credits, "the login grants the configured credits");
            assertEquals(68, ini.immediateDataOffset, "immediate data is granted at the offset asked");
            final byte[] pattern = new byte[65536];
            for (int i = 0; i < pattern.length; i++) {
                pattern[i] = (byte) (i * 31 + 7);
            }
            ini.buffer().asSlice(0, pattern.length).copyFrom(java.lang.foreign.MemorySegment.ofArray(pattern));
            TestInitiator.Response w = ini.execute(0, TestInitiator.write16(8, 128), 65536, 0, 0, false);
            assertEquals(ScsiStatus.GOOD, w.status(), "WRITE(16) by RDMA READ");
            assertEquals(1, w.requestLimitDelta());
            w = ini.execute(0, TestInitiator.write16(1000, 8), 4096, 0, 0, true);
            assertEquals(ScsiStatus.GOOD, w.status(), "WRITE(16) with immediate data");

            ini.buffer().asSlice(0, 1 << 20).fill((byte) 0);
            final TestInitiator.Response r = ini.execute(0, TestInitiator.read16(8, 128), 0, 65536, 65536, false);
            assertEquals(ScsiStatus.GOOD, r.status());
            assertArrayEquals(pattern, ini.buffer().asSlice(65536, 65536).toArray(ValueLayout.JAVA_BYTE), "READ returns what was written");
            final TestInitiator.Response imm = ini.execute(0, TestInitiator.read16(1000, 8), 0, 4096, 0, false);
            assertEquals(ScsiStatus.GOOD, imm.status());
            assertArrayEquals(java.util.Arrays.copyOf(pattern, 4096), ini.buffer().asSlice(0, 4096).toArray(ValueLayout.JAVA_BYTE));

            final TestInitiator.Response under = ini.execute(0, TestInitiator.read16(0, 1), 0, 4096, 0, false);
            assertEquals(SrpResponse.FLAG_DIUNDER, under.flags() & SrpResponse.FLAG_DIUNDER, "a 512-byte read into 4096 offered");
            assertEquals(4096 - 512, under.dataInResidual());

            final TestInitiator.Response past = ini.execute(0, TestInitiator.read16((64L << 20) / 512, 1), 0, 512, 0, false);
            assertEquals(ScsiStatus.CHECK_CONDITION, past.status(), "LBA past the end");
            assertEquals(0x21, Byte.toUnsignedInt(past.sense()[12]), "LBA OUT OF RANGE");
        }
    }

    /**
     * An initiator that keeps every credit in use, sending the next command as soon as a response gives a credit back,
     * is never answered BUSY: the target counts the credit returned when it posts the response, not when the
     * provider reports the response's send complete (which may come after the initiator already used the credit).
     */
    @Test
    void everyCreditInUseNeverMeetsBusy() {
        start(PipelineConfig.ReceiveQueueMode.PER_CHANNEL, PipelineConfig.CompletionMode.POLL);
        try (TestInitiator ini = TestInitiator.login(target.localAddress(), ID_EXT, IOC_GUID, 0x33, 1 << 20)) {
            final int window = ini.credits;
            long tag = 0;
            for (; tag < window; tag++) {
                ini.submit(tag, 0, TestInitiator.read16(tag * 8, 8), 0, 4096, (tag % 64) * 4096, false);
            }
            int busy = 0;
            for (int done = 0; done < 2_000; done++) {
                final TestInitiator.Response r = ini.awaitResponse();
                busy += r.status() == ScsiStatus.BUSY ? 1 : 0;
                ini.submit(tag, 0, TestInitiator.read16((tag % 1000) * 8, 8), 0, 4096, (tag % 64) * 4096, false);
                tag++;
            }
            for (int i = 0; i < window; i++) {
                busy += ini.awaitResponse().status() == ScsiStatus.BUSY ? 1 : 0;
            }
            assertEquals(0, busy, "commands answered BUSY while the initiator stayed inside its " + window + " credits");
        }
    }
}
