package org.rdmablock.initiator;

/**
 * The {@code rdmablock.*} system properties the initiator's tests read (the library itself reads none): for each, its
 * name, its default and an accessor that reads it. Set them on the Maven command line ({@code -Dname=value}), as the
 * QEMU plans in {@code deploy/qemu/plans/} do to point the tests at a native device or at LIO.
 */
final class TestConfiguration {
    /** Verbs provider of the tests' target and initiator: {@code soft}, {@code native} or {@code auto}. */
    static final String PROVIDER_PROP_NAME = "rdmablock.target.provider";
    /** Default {@link #PROVIDER_PROP_NAME} against our own in-process target: the soft provider on loopback. */
    static final String PROVIDER_DEFAULT = "soft";
    /** Default {@link #PROVIDER_PROP_NAME} against LIO ({@link LioInteropTest}): reached over Soft-RoCE, a native device. */
    static final String LIO_PROVIDER_DEFAULT = "native";

    /** Address the tests' in-process target listens on and the initiator connects to. */
    static final String ADDRESS_PROP_NAME = "rdmablock.target.address";
    static final String ADDRESS_DEFAULT = "127.0.0.1";

    /** Operations {@link InitiatorAllocationTest} counts the allocation of (after its warm-up). */
    static final String ALLOCATION_OPS_PROP_NAME = "rdmablock.initiator.allocationOps";
    static final int ALLOCATION_OPS_DEFAULT = 1_000_000;

    /** {@code host:port} of a LIO {@code ib_srpt} target; {@link LioInteropTest} runs only when it is set. */
    static final String LIO_ADDRESS_PROP_NAME = "rdmablock.lio.address";
    /** LIO's target port id: id_ext and ioc_guid, hex (a leading {@code 0x} allowed). */
    static final String LIO_ID_EXT_PROP_NAME = "rdmablock.lio.idExt";
    static final String LIO_IOC_GUID_PROP_NAME = "rdmablock.lio.iocGuid";
    /** The IU length LIO takes ({@code srp_max_req_size}); default the initiator's own. */
    static final String LIO_IU_LENGTH_PROP_NAME = "rdmablock.lio.iuLength";
    static final int LIO_IU_LENGTH_DEFAULT = InitiatorConfig.DEFAULT_IU_LENGTH;

    private TestConfiguration() {
    }

    static String provider() {
        return System.getProperty(PROVIDER_PROP_NAME, PROVIDER_DEFAULT);
    }

    static String lioProvider() {
        return System.getProperty(PROVIDER_PROP_NAME, LIO_PROVIDER_DEFAULT);
    }

    static String address() {
        return System.getProperty(ADDRESS_PROP_NAME, ADDRESS_DEFAULT);
    }

    static int allocationOperations() {
        return Integer.getInteger(ALLOCATION_OPS_PROP_NAME, ALLOCATION_OPS_DEFAULT);
    }

    /** {@code host:port} of a second NVMe over Fabrics target (Linux nvmet-rdma); {@link NvmeInteropTest} runs only when it is set. */
    static final String NVME_ADDRESS_PROP_NAME = "rdmablock.nvme.address";
    /** The subsystem NQN to connect to there. */
    static final String NVME_NQN_PROP_NAME = "rdmablock.nvme.nqn";
    /** A label for its report lines (default "NVMe"). */
    static final String NVME_LABEL_PROP_NAME = "rdmablock.nvme.label";

    static String nvmeAddress() {
        return System.getProperty(NVME_ADDRESS_PROP_NAME);
    }

    static String nvmeNqn() {
        return System.getProperty(NVME_NQN_PROP_NAME);
    }

    static String nvmeLabel() {
        return System.getProperty(NVME_LABEL_PROP_NAME, "NVMe");
    }

    /** {@link #LIO_ADDRESS_PROP_NAME}, or null when it is not set. */
    static String lioAddress() {
        return System.getProperty(LIO_ADDRESS_PROP_NAME);
    }

    static long lioIdExt() {
        return hex(LIO_ID_EXT_PROP_NAME);
    }

    static long lioIocGuid() {
        return hex(LIO_IOC_GUID_PROP_NAME);
    }

    static int lioIuLength() {
        return Integer.getInteger(LIO_IU_LENGTH_PROP_NAME, LIO_IU_LENGTH_DEFAULT);
    }

    private static long hex(final String name) {
        final String value = System.getProperty(name);
        if (value == null) {
            throw new IllegalStateException("-D" + name + " is not set");
        }
        return Long.parseUnsignedLong(value.startsWith("0x") ? value.substring(2) : value, 16);
    }
}
