package org.rdmablock.initiator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Our initiator speaking NVMe over Fabrics to a target set up by the QEMU harness ({@code deploy/qemu/plans/nvme-rdma.sh}):
 * Linux's own {@code nvmet-rdma} on a 64 MiB ramdisk, and our daemon's NVMe side, over Soft-RoCE with the native
 * provider. Connects (admin queue, controller, two I/O queues), finds namespace 1, runs {@link InteropWorkload} on it
 * (64 MiB written and read back, sequential and random, verified), flushes, and disconnects.
 *
 * <p>Runs only where the harness names the target: {@code -Drdmablock.nvme.address=host:port} and
 * {@code -Drdmablock.nvme.nqn}; {@code -Drdmablock.nvme.label} names it in the report lines.
 */
@EnabledIfSystemProperty(named = TestConfiguration.NVME_ADDRESS_PROP_NAME, matches = ".+:\\d+")
class NvmeInteropTest {
    @Test
    void writesReadsAndVerifies64MiBOverNvme() throws Exception {
        final String[] address = TestConfiguration.nvmeAddress().split(":");
        final InitiatorConfig config = InitiatorConfig.of(TestConfiguration.lioProvider(), address[0],
                        Integer.parseInt(address[1]))
                .withQueueDepth(InteropWorkload.DEPTH + 2)
                .withChannels(2, InitiatorConfig.ChannelPolicy.ROUND_ROBIN)
                .withNvme(TestConfiguration.nvmeNqn());
        final String label = TestConfiguration.nvmeLabel();
        try (SrpInitiator initiator = SrpInitiator.connect(config)) {
            assertFalse(initiator.luns().isEmpty(), "the subsystem reports a namespace");
            final Lun lun = initiator.lun(1);
            System.out.println(label + ": " + lun + ", model '" + lun.product() + "', firmware '" + lun.revision()
                    + "', serial '" + lun.serial() + "', max transfer " + lun.maxTransferBytes());
            assertTrue(lun.sizeBytes() >= 64L * InteropWorkload.MIB, "a namespace of at least 64 MiB: " + lun);
            InteropWorkload.run(label, initiator, lun);
            lun.flushBlocking();
        }
    }
}
