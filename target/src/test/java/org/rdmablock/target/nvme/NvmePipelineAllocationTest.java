package org.rdmablock.target.nvme;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.rdmablock.protocol.nvme.NvmeCompletion;
import org.rdmablock.protocol.nvme.NvmeOpcode;
import org.rdmablock.protocol.nvme.NvmeRegister;
import org.rdmablock.protocol.nvme.NvmeSglDescriptor;
import org.rdmablock.protocol.nvme.NvmeStatus;
import org.rdmablock.protocol.nvme.NvmeSubmission;
import org.rdmablock.protocol.scsi.LogicalUnitTable;
import org.rdmablock.target.config.NvmeConfig;
import org.rdmablock.target.core.Channel;
import org.rdmablock.target.core.FrontEnd;
import org.rdmablock.target.core.TargetDevice;
import org.rdmablock.target.fakes.FakeVerbs;
import org.rdmablock.target.metrics.TargetStatistics;
import org.rdmablock.target.srp.DiscardingBackend;
import org.rdmablock.target.srp.PipelineAllocationTest;
import org.rdmablock.target.srp.PipelineHarness;
import org.rdmablock.verbs.QueuePair;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The NVMe front end allocates nothing per command either: a million 4 KiB Reads and Writes (keyed SGL, or the data in
 * the capsule) of each mix through the pipeline, on two I/O queues of one enabled controller, as
 * {@link PipelineAllocationTest} measures SRP's: every thread a command runs on, after a warm-up, every command
 * recorded into its namespace's LUN and its session.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class NvmePipelineAllocationTest {
    @ParameterizedTest
    @EnumSource(PipelineHarness.Mix.class)
    void aMillionPollerRunCommandsAllocateNothing(final PipelineHarness.Mix mix) {
        try (PipelineHarness harness = new PipelineHarness(new Nvme(), 2, 32, 0,
                new DiscardingBackend(PipelineHarness.DEVICE_BYTES), false)) {
            harness.burst(16);
            PipelineAllocationTest.measure(harness, mix);
        }
    }

    @ParameterizedTest
    @EnumSource(value = PipelineHarness.Mix.class, names = {"READ", "WRITE"})
    void aMillionRingRunCommandsAllocateNothing(final PipelineHarness.Mix mix) {
        try (PipelineHarness harness = new PipelineHarness(new Nvme(), 2, 32, 2,
                new DiscardingBackend(PipelineHarness.DEVICE_BYTES), false)) {
            assertEquals(3, harness.pipelineThreads().size(), "intake and two backend threads");
            PipelineAllocationTest.measure(harness, mix);
        }
    }

    /** NVMe for the harness: I/O queues 1 and 2 of controller 1, enabled; capsules with a keyed SGL or in-capsule data. */
    static final class Nvme implements PipelineHarness.Protocol {
        private static final NvmeConfig.Subsystem SUBSYSTEM = new NvmeConfig.Subsystem("nqn.2026-12.org.rdmablock:bench",
                "bench", "bench", List.of(), Set.of());
        private final NvmeSubmission entry = new NvmeSubmission();
        private final NvmeSglDescriptor sgl = new NvmeSglDescriptor();
        private NvmeController controller;

        @Override
        public FrontEnd.Factory frontEnds() {
            return core -> new NvmeFrontEnd(core, new NvmeTarget.Listening(List.of(SUBSYSTEM), "127.0.0.1", 4420, 1), 32);
        }

        @Override
        public int receiveCount(final int queueDepth) {
            return queueDepth;
        }

        @Override
        public int receiveLength() {
            return NvmeSubmission.LENGTH + NvmeAdminPages.IN_CAPSULE_BYTES;
        }

        @Override
        public Channel channel(final int c, final QueuePair queuePair, final LogicalUnitTable units, final int queueDepth,
                               final TargetStatistics statistics) {
            final NvmeQueue queue = new NvmeQueue(c, null, queuePair, NvmeTarget.NVME_HOSTS, units, c + 1, queueDepth,
                    NvmeAdminPages.IN_CAPSULE_BYTES, TargetDevice.MAX_READ_DEPTH, statistics.channelJoined(NvmeTarget.NVME_HOSTS), null);
            if (controller == null) {
                // the admin queue is the first I/O queue's stand-in: the harness publishes no tick that would look at it
                controller = new NvmeController(1, SUBSYSTEM, "nqn.2026-12.org.rdmablock:host", new byte[16], queue, 0,
                        System.nanoTime());
                controller.configuration = NvmeRegister.CC_ENABLE;
                controller.status = NvmeRegister.CSTS_READY;
            }
            queue.controller = controller;
            return queue;
        }

        @Override
        public int template(final PipelineHarness.Command command, final MemorySegment out) {
            entry.wrap(out, 0).reset().setOpcode(command == PipelineHarness.Command.READ ? NvmeOpcode.READ : NvmeOpcode.WRITE)
                    .setFlags(NvmeSubmission.FLAGS_SGL_METABUF).setNsid(1)
                    .setBlocks(PipelineHarness.IO_BYTES / PipelineHarness.BLOCK_SIZE);
            if (command == PipelineHarness.Command.WRITE_IMMEDIATE) {
                entry.sgl(sgl).setInCapsule(0, PipelineHarness.IO_BYTES);
                return NvmeSubmission.LENGTH + PipelineHarness.IO_BYTES;
            }
            entry.sgl(sgl).setKeyed(0x7f00_0000_0000L, PipelineHarness.IO_BYTES, 0x1234, false);
            return NvmeSubmission.LENGTH;
        }

        @Override
        public void aim(final MemorySegment buffer, final long at, final int tag, final long lba) {
            entry.wrap(buffer, at).setCommandId(tag).setStartingLba(lba);
        }

        @Override
        public FakeVerbs.Responses responses() {
            return new FakeVerbs.Responses() {
                /** One flyweight per posting thread (the backend threads post at once); made once per thread. */
                private final ThreadLocal<NvmeCompletion> read = ThreadLocal.withInitial(NvmeCompletion::new);

                @Override
                public long tag(final MemorySegment segment, final long at) {
                    return read.get().wrap(segment, at).commandId();
                }

                @Override
                public boolean good(final MemorySegment segment, final long at) {
                    return read.get().wrap(segment, at).status() == NvmeStatus.SUCCESS;
                }
            };
        }
    }
}
