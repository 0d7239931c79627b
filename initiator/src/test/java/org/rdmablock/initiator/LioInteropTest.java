package org.rdmablock.initiator;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Our initiator against a second target: Linux LIO's {@code ib_srpt}, set up by the QEMU harness
 * ({@code deploy/qemu/plans/lio-initiator.sh}) on a 64 MiB ramdisk, over Soft-RoCE with the native provider. Logs in,
 * discovers the LUN, runs {@link InteropWorkload} on it (64 MiB written and read back, sequential and random,
 * verified), and logs out.
 *
 * <p>Runs only where the harness names the target: {@code -Drdmablock.lio.address=host:port}, {@code
 * -Drdmablock.lio.idExt} and {@code -Drdmablock.lio.iocGuid} (hex), {@code -Drdmablock.lio.iuLength} (LIO's
 * {@code srp_max_req_size}).
 */
@EnabledIfSystemProperty(named = TestConfiguration.LIO_ADDRESS_PROP_NAME, matches = ".+:\\d+")
class LioInteropTest {
    static final int MIB = InteropWorkload.MIB;
    static final int DEPTH = InteropWorkload.DEPTH;

    @Test
    void writesReadsAndVerifies64MiBOnLio() throws Exception {
        final String[] address = TestConfiguration.lioAddress().split(":");
        final InitiatorConfig config = InitiatorConfig.of(TestConfiguration.lioProvider(), address[0],
                        Integer.parseInt(address[1]))
                .withTargetPortId(TestConfiguration.lioIdExt(), TestConfiguration.lioIocGuid())
                .withIuLength(TestConfiguration.lioIuLength())
                .withQueueDepth(DEPTH);
        try (SrpInitiator initiator = SrpInitiator.connect(config)) {
            assertTrue(!initiator.luns().isEmpty(), "LIO reports a LUN");
            final Lun lun = initiator.lun(0);
            System.out.println("LIO: " + lun + ", vendor '" + lun.vendor() + "', product '" + lun.product() + "', serial '"
                    + lun.serial() + "', max transfer " + lun.maxTransferBytes());
            assertEquals(64L * MIB, lun.sizeBytes(), "the 64 MiB ramdisk");
            InteropWorkload.run("LIO", initiator, lun);
        }
    }
}
