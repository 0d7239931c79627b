package org.rdmablock.protocol.nvme;

/**
 * The Discovery log page (log {@link NvmeGetLogPage#LOG_DISCOVERY}): its 1024-byte header (Linux
 * {@code struct nvmf_disc_rsp_page_hdr}) and, from byte 1024, one 1024-byte entry per subsystem port
 * ({@code struct nvmf_disc_rsp_page_entry}), which {@link #entry} wraps.
 */
public final class NvmfDiscoveryLog extends NvmeStructure<NvmfDiscoveryLog> {
    /** The header's size, and each entry's. */
    public static final int RECORD_LENGTH = 1024;
    /** Generation counter, 8 bytes: changes whenever the log does. */
    public static final int GENCTR_OFFSET = 0;
    /** Number of records, 8 bytes. */
    public static final int NUMREC_OFFSET = 8;
    /** Record format, 2 bytes: 0. */
    public static final int RECFMT_OFFSET = 16;
    /** An entry: transport type ({@link #TRANSPORT_RDMA}), 1 byte. */
    public static final int TRTYPE_OFFSET = 0;
    /** An entry: address family ({@link #ADDRESS_FAMILY_IPV4}), 1 byte. */
    public static final int ADRFAM_OFFSET = 1;
    /** An entry: subsystem type ({@link #SUBSYSTEM_NVME}), 1 byte. */
    public static final int SUBTYPE_OFFSET = 2;
    /** An entry: transport requirements, 1 byte. */
    public static final int TREQ_OFFSET = 3;
    /** An entry: port id, 2 bytes. */
    public static final int PORTID_OFFSET = 4;
    /** An entry: controller id ({@link NvmfConnectData#CNTLID_DYNAMIC}), 2 bytes. */
    public static final int CNTLID_OFFSET = 6;
    /** An entry: the admin queue's largest size, 2 bytes. */
    public static final int ASQSZ_OFFSET = 8;
    /** An entry: transport service id (the port, as text), 32 bytes. */
    public static final int TRSVCID_OFFSET = 32;
    /** An entry: the subsystem's NQN, 256 bytes. */
    public static final int SUBNQN_OFFSET = 256;
    /** An entry: transport address (an IP address, as text), 256 bytes. */
    public static final int TRADDR_OFFSET = 512;
    /** An entry's RDMA transport specific attributes: queue pair type, 1 byte. */
    public static final int RDMA_QPTYPE_OFFSET = 768;
    /** RDMA: provider type, 1 byte. */
    public static final int RDMA_PRTYPE_OFFSET = 769;
    /** RDMA: connection management service, 1 byte. */
    public static final int RDMA_CMS_OFFSET = 770;
    /** RDMA: partition key, 2 bytes. */
    public static final int RDMA_PKEY_OFFSET = 776;
    /** The transport service id's length (NVMF_TRSVCID_SIZE). */
    public static final int TRSVCID_LENGTH = 32;
    /** The transport address's length (NVMF_TRADDR_SIZE). */
    public static final int TRADDR_LENGTH = 256;

    /** Transport type RDMA (NVMF_TRTYPE_RDMA). */
    public static final int TRANSPORT_RDMA = 1;
    /** Address family IPv4 (NVMF_ADDR_FAMILY_IP4). */
    public static final int ADDRESS_FAMILY_IPV4 = 1;
    /** Address family IPv6 (NVMF_ADDR_FAMILY_IP6). */
    public static final int ADDRESS_FAMILY_IPV6 = 2;
    /** Subsystem type: a referral to another discovery subsystem (NVME_NQN_DISC). */
    public static final int SUBSYSTEM_DISCOVERY = 1;
    /** Subsystem type: an NVM subsystem (NVME_NQN_NVME). */
    public static final int SUBSYSTEM_NVME = 2;
    /** Subsystem type: this discovery subsystem (NVME_NQN_CURR). */
    public static final int SUBSYSTEM_CURRENT_DISCOVERY = 3;
    /** Transport requirements: secure channel not required (NVMF_TREQ_NOT_REQUIRED). */
    public static final int TREQ_NOT_REQUIRED = 2;
    /** RDMA queue pair type: reliable connected (NVMF_RDMA_QPTYPE_CONNECTED). */
    public static final int RDMA_QPTYPE_CONNECTED = 1;
    /** RDMA provider type: not specified (NVMF_RDMA_PRTYPE_NOT_SPECIFIED). */
    public static final int RDMA_PRTYPE_NOT_SPECIFIED = 1;
    /** RDMA connection management: the RDMA CM (NVMF_RDMA_CMS_RDMA_CM). */
    public static final int RDMA_CMS_RDMA_CM = 1;

    /** Zeroes the header, ready for the setters. */
    public NvmfDiscoveryLog reset() {
        clear(RECORD_LENGTH);
        return this;
    }

    public long generation() {
        return u64(GENCTR_OFFSET);
    }

    public long records() {
        return u64(NUMREC_OFFSET);
    }

    public NvmfDiscoveryLog setHeader(final long generation, final long records) {
        put64(GENCTR_OFFSET, generation);
        put64(NUMREC_OFFSET, records);
        putU16(RECFMT_OFFSET, 0);
        return this;
    }

    /** Wraps {@code entry} over record {@code index} (0 the first after the header) and returns it. */
    public Entry entry(final Entry entry, final int index) {
        return entry.wrap(segment, offset + (long) RECORD_LENGTH * (index + 1));
    }

    /** One discovery log entry: a subsystem reachable at a transport address. */
    public static final class Entry extends NvmeStructure<Entry> {
        /** Zeroes the entry, ready for the setters. */
        public Entry reset() {
            clear(RECORD_LENGTH);
            return this;
        }

        /**
         * An NVM subsystem {@code nqn} on RDMA at {@code address}:{@code port} (IPv6 when the address has a colon),
         * port id {@code portId}, any controller, admin queues up to {@code adminQueueSize} entries.
         */
        public Entry setRdmaSubsystem(final String nqn, final String address, final int port, final int portId,
                                      final int adminQueueSize) {
            putU8(TRTYPE_OFFSET, TRANSPORT_RDMA);
            putU8(ADRFAM_OFFSET, address.indexOf(':') >= 0 ? ADDRESS_FAMILY_IPV6 : ADDRESS_FAMILY_IPV4);
            putU8(SUBTYPE_OFFSET, SUBSYSTEM_NVME);
            putU8(TREQ_OFFSET, TREQ_NOT_REQUIRED);
            putU16(PORTID_OFFSET, portId);
            putU16(CNTLID_OFFSET, NvmfConnectData.CNTLID_DYNAMIC);
            putU16(ASQSZ_OFFSET, adminQueueSize);
            putSpacePadded(TRSVCID_OFFSET, TRSVCID_LENGTH, Integer.toString(port));
            putText(SUBNQN_OFFSET, NvmfConnectData.NQN_FIELD_LENGTH, nqn);
            putSpacePadded(TRADDR_OFFSET, TRADDR_LENGTH, address);
            putU8(RDMA_QPTYPE_OFFSET, RDMA_QPTYPE_CONNECTED);
            putU8(RDMA_PRTYPE_OFFSET, RDMA_PRTYPE_NOT_SPECIFIED);
            putU8(RDMA_CMS_OFFSET, RDMA_CMS_RDMA_CM);
            return this;
        }

        public int transportType() {
            return u8(TRTYPE_OFFSET);
        }

        public int subsystemType() {
            return u8(SUBTYPE_OFFSET);
        }

        public String subsystemNqn() {
            return text(SUBNQN_OFFSET, NvmfConnectData.NQN_FIELD_LENGTH);
        }

        public String address() {
            return spacePadded(TRADDR_OFFSET, TRADDR_LENGTH);
        }

        public String serviceId() {
            return spacePadded(TRSVCID_OFFSET, TRSVCID_LENGTH);
        }
    }
}
