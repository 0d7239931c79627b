package org.rdmablock.initiator;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.rdmablock.protocol.scsi.InMemoryBackend;
import org.rdmablock.protocol.scsi.LogicalUnit;
import org.rdmablock.protocol.scsi.LogicalUnitConfig;
import org.rdmablock.protocol.scsi.LogicalUnitTable;
import org.rdmablock.target.config.NvmeConfig;
import org.rdmablock.target.metrics.TargetStatistics;
import org.rdmablock.target.nvme.NvmeTarget;
import org.rdmablock.target.srp.SrpTarget;

import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * No allocation per I/O on the steady path, over SRP and over NVMe: 1 M operations (4 KiB reads into a registered
 * buffer, 4 KiB writes, 64 KiB reads through the bounce buffers, in turn) at queue depth 16, with the callback API, counting
 * the bytes the submitting thread and the channel's agent thread allocate ({@link TestConfiguration#ALLOCATION_OPS_PROP_NAME}).
 */
class InitiatorAllocationTest {
    static final int OPERATIONS = TestConfiguration.allocationOperations();
    static final int WARM_UP = 100_000;
    static final int DEPTH = 16;
    /** Bytes per operation the two threads may allocate: JIT and class loading leave a few kilobytes in all. */
    static final double BOUND = 0.05;

    /** Over SRP (4 KiB writes as immediate data), and over NVMe (every write's data read by the controller). */
    @ParameterizedTest
    @ValueSource(strings = {"srp", "nvme"})
    void millionOperationsAllocateNothingPerOperation(final String protocol) throws Exception {
        final LogicalUnitTable units = new LogicalUnitTable();
        units.add(new LogicalUnit(0, LogicalUnitConfig.builder().serialNumber("alloc").blockSize(512).build(),
                new InMemoryBackend(64L << 20)));
        final boolean nvme = protocol.equals("nvme");
        try (AutoCloseable target = nvme ? NvmeTarget.start(InitiatorTest.targetConfig(), new NvmeConfig(0, List.of(
                        new NvmeConfig.Subsystem(NvmeInitiatorTest.NQN, "SN-ALLOC", "alloc", List.of(), Set.of()))), units,
                        new TargetStatistics())
                     : SrpTarget.start(InitiatorTest.targetConfig(), initiator -> units);
             SrpInitiator initiator = SrpInitiator.connect(nvme
                     ? InitiatorConfig.of(InitiatorTest.PROVIDER, InitiatorTest.ADDRESS,
                             ((NvmeTarget) target).localAddress().getPort()).withQueueDepth(32)
                             .withNvme(NvmeInitiatorTest.NQN, NvmeInitiatorTest.HOST)
                     : InitiatorConfig.of(InitiatorTest.PROVIDER, InitiatorTest.ADDRESS,
                             ((SrpTarget) target).localAddress().getPort()).withTargetPortId(InitiatorTest.ID_EXT,
                             InitiatorTest.IOC_GUID).withInitiatorPortId(0x201, 1).withQueueDepth(32))) {
            final Lun lun = initiator.luns().get(0);
            final MemorySegment registered = initiator.allocateBuffer((long) DEPTH * 65536);
            final MemorySegment unregistered = java.lang.foreign.Arena.ofAuto().allocate((long) DEPTH * 65536, 4096);
            final AtomicInteger inFlight = new AtomicInteger();
            final AtomicReference<SrpIoException> failure = new AtomicReference<>();
            final IoCallback done = (attachment, bytes, error) -> {
                if (error != null) {
                    failure.compareAndSet(null, error);
                }
                inFlight.decrementAndGet();
            };
            final long warmStart = System.nanoTime();
            run(lun, registered, unregistered, inFlight, done, WARM_UP);
            System.out.printf("warm-up: %d operations at %.0f per second%n", WARM_UP, WARM_UP * 1e9 / (System.nanoTime() - warmStart));
            final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            final Thread agent = Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals(protocol + "-initiator-0")).findFirst()
                    .orElseThrow();
            final long self = Thread.currentThread().threadId();
            final long selfBefore = threads.getThreadAllocatedBytes(self);
            final long agentBefore = threads.getThreadAllocatedBytes(agent.threadId());
            final long commandsBefore = initiator.commandsIssued();
            run(lun, registered, unregistered, inFlight, done, OPERATIONS);
            final long selfBytes = threads.getThreadAllocatedBytes(self) - selfBefore;
            final long agentBytes = threads.getThreadAllocatedBytes(agent.threadId()) - agentBefore;
            assertNull(failure.get());
            assertEquals(OPERATIONS, initiator.commandsIssued() - commandsBefore, "one command per operation");
            final double perOp = (double) (selfBytes + agentBytes) / OPERATIONS;
            System.out.printf("InitiatorAllocationTest (" + protocol + "): %d operations; submitting thread %d B, agent %d B: %.4f B per operation%n",
                    OPERATIONS, selfBytes, agentBytes, perOp);
            assertTrue(perOp < BOUND, "bytes allocated per operation: " + perOp + " (submitter " + selfBytes + ", agent "
                    + agentBytes + ")");
        }
    }

    private static void run(final Lun lun, final MemorySegment registered, final MemorySegment unregistered,
                            final AtomicInteger inFlight, final IoCallback done, final int operations) {
        final long blocks = lun.blockCount() - 128;
        long lba = 0;
        for (int i = 0; i < operations; i++) {
            while (inFlight.get() >= DEPTH) {
                Thread.yield(); // two cores here: leave them to the channel and the target
            }
            inFlight.incrementAndGet();
            final int slot = i % DEPTH;
            lba = (lba + 977) % blocks;
            switch (i % 3) {
                case 0 -> lun.read(lba, 8, registered, slot * 65536L, null, done);
                case 1 -> lun.write(lba, 8, registered, slot * 65536L, false, null, done);
                default -> lun.read(lba, 128, unregistered, slot * 65536L, null, done);
            }
        }
        while (inFlight.get() > 0) {
            Thread.yield();
        }
    }
}
