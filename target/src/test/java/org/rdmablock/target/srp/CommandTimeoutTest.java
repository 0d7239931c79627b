package org.rdmablock.target.srp;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rdmablock.protocol.scsi.BackendCallback;
import org.rdmablock.protocol.scsi.ForwardingBackend;
import org.rdmablock.protocol.scsi.InMemoryBackend;
import org.rdmablock.protocol.scsi.LogicalUnit;
import org.rdmablock.protocol.scsi.LogicalUnitConfig;
import org.rdmablock.protocol.scsi.LogicalUnitTable;
import org.rdmablock.protocol.scsi.ScsiStatus;
import org.rdmablock.target.config.ChannelConfig;
import org.rdmablock.target.config.IdentityConfig;
import org.rdmablock.target.config.ListenConfig;
import org.rdmablock.target.config.PipelineConfig;
import org.rdmablock.target.config.TargetConfig;
import org.rdmablock.target.config.TimeoutConfig;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rdmablock.target.Waiting.waitUpTo;

/**
 * The command timeout: a command whose backend call does not return in time is answered CHECK CONDITION, ABORTED
 * COMMAND, COMMAND TIMEOUT DURING PROCESSING, once, with no data; its slot and buffer stay taken until the call returns,
 * and then come back; the channel goes on serving.
 */
class CommandTimeoutTest {
    static final Duration COMMAND_TIMEOUT = Duration.ofMillis(200);
    /** Reads of this block wait for {@link #release}. */
    static final long STUCK_LBA = 1000;
    final CountDownLatch release = new CountDownLatch(1);
    final CountDownLatch stuck = new CountDownLatch(1);
    SrpTarget target;

    @AfterEach
    void stop() {
        release.countDown();
        if (target != null) {
            target.close();
        }
    }

    /** An in-memory LUN whose reads of {@link #STUCK_LBA} hang until the test releases them (a hung disk). */
    final class HangingBackend extends ForwardingBackend {
        HangingBackend() {
            super(new InMemoryBackend(16L << 20));
        }

        @Override
        public void read(final long deviceOffset, final MemorySegment buffer, final long bufferOffset, final int length,
                         final BackendCallback callback) {
            if (deviceOffset == STUCK_LBA * 512) {
                stuck.countDown();
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                buffer.asSlice(bufferOffset, length).fill((byte) 0x77); // what a late answer would carry
            }
            super.read(deviceOffset, buffer, bufferOffset, length, callback);
        }
    }

    private void awaitFreeSlots(final int count) {
        waitUpTo(Duration.ofSeconds(5), count + " free slots").until(target::freeSlots, free -> free == count);
    }

    @Test
    void aCommandStuckInTheBackendIsAnsweredOnceAndItsSlotComesBackWhenTheCallReturns() throws Exception {
        final LogicalUnitTable units = new LogicalUnitTable();
        units.add(new LogicalUnit(0, LogicalUnitConfig.builder().serialNumber("hang").blockSize(512).build(), new HangingBackend()));
        final TargetConfig config = new TargetConfig("<test>", new ListenConfig(TestInitiator.PROVIDER, TestInitiator.ADDRESS, 0),
                new IdentityConfig(SrpTargetTest.ID_EXT, SrpTargetTest.IOC_GUID), new ChannelConfig(32, 8276, 1 << 20, true, 8192, 8),
                new PipelineConfig(4096, 256, 2, PipelineConfig.ReceiveQueueMode.PER_CHANNEL, PipelineConfig.CompletionMode.POLL),
                new TimeoutConfig(Duration.ZERO, COMMAND_TIMEOUT), List.of());
        target = SrpTarget.start(config, initiator -> units);
        try (TestInitiator ini = TestInitiator.login(target.localAddress(), SrpTargetTest.ID_EXT, SrpTargetTest.IOC_GUID, 0x71, 1 << 20)) {
            assertEquals(ScsiStatus.GOOD, ini.execute(0, new byte[6], 0, 0, 0, false).status(), "the LUN serves");
            final int allSlots = 256; // the ring size configured below
            awaitFreeSlots(allSlots); // the TEST UNIT READY's slot comes back once its send completes
            ini.buffer().asSlice(0, 4096).fill((byte) 0x5A);

            final long started = System.nanoTime();
            ini.submit(7, 0, TestInitiator.read16(STUCK_LBA, 8), 0, 4096, 0, false);
            final TestInitiator.Response timedOut = ini.awaitResponse();
            final long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
            assertTrue(stuck.await(10, TimeUnit.SECONDS), "the read reached the backend");
            assertEquals(7, timedOut.tag());
            assertEquals(ScsiStatus.CHECK_CONDITION, timedOut.status());
            assertEquals(0x0B, timedOut.sense()[2] & 0x0F, "ABORTED COMMAND");
            assertEquals(0x2E, Byte.toUnsignedInt(timedOut.sense()[12]), "COMMAND TIMEOUT DURING PROCESSING");
            assertEquals(0x02, Byte.toUnsignedInt(timedOut.sense()[13]));
            assertTrue(tookMillis >= COMMAND_TIMEOUT.toMillis(), "not before the timeout: " + tookMillis + " ms");
            assertEquals(allSlots - 1, target.freeSlots(), "the slot stays taken while the backend call runs");
            assertTrue(target.dataChunksInUse() > 0, "and so does its buffer");

            release.countDown(); // the backend call returns: its late result must go nowhere
            awaitFreeSlots(allSlots);
            assertEquals(allSlots, target.freeSlots(), "the slot came back once the call returned");
            assertEquals(0, target.dataChunksInUse(), "and its buffer");

            ini.submit(8, 0, new byte[6], 0, 0, 0, false);
            final TestInitiator.Response next = ini.awaitResponse();
            assertEquals(8, next.tag(), "no second response for the timed-out command came before this one");
            assertEquals(ScsiStatus.GOOD, next.status());
            final byte[] data = new byte[4096];
            MemorySegment.copy(ini.buffer(), java.lang.foreign.ValueLayout.JAVA_BYTE, 0, data, 0, data.length);
            for (final byte b : data) {
                assertEquals(0x5A, b, "no data-in was written for the answered command");
            }
            assertEquals(ScsiStatus.GOOD, ini.execute(0, TestInitiator.read16(0, 8), 0, 4096, 0, false).status(),
                    "the channel goes on");
        }
    }
}
