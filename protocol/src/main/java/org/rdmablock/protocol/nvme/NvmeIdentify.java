package org.rdmablock.protocol.nvme;

/**
 * The Identify command's fields over a 64-byte entry (Linux {@code struct nvme_identify}) and what it asks for: the
 * CNS values ({@code enum nvme_id_cns}) and the namespace identification descriptors' types
 * ({@code NVME_NIDT_*}).
 */
public final class NvmeIdentify extends NvmeStructure<NvmeIdentify> {
    /** Controller or namespace structure, 1 byte. */
    public static final int CNS_OFFSET = 40;
    /** Controller id, 2 bytes. */
    public static final int CNTID_OFFSET = 42;
    /** Command set identifier, 1 byte. */
    public static final int CSI_OFFSET = 47;
    /** Every Identify data structure's size (Linux NVME_IDENTIFY_DATA_SIZE). */
    public static final int DATA_LENGTH = 4096;

    /** CNS: the namespace (NVME_ID_CNS_NS). */
    public static final int CNS_NAMESPACE = 0x00;
    /** CNS: the controller (NVME_ID_CNS_CTRL). */
    public static final int CNS_CONTROLLER = 0x01;
    /** CNS: the active namespace ids above the command's nsid (NVME_ID_CNS_NS_ACTIVE_LIST). */
    public static final int CNS_ACTIVE_NAMESPACES = 0x02;
    /** CNS: the namespace identification descriptors (NVME_ID_CNS_NS_DESC_LIST). */
    public static final int CNS_NAMESPACE_DESCRIPTORS = 0x03;
    /** Every namespace, in a command's nsid (Linux NVME_NSID_ALL). */
    public static final long NSID_ALL = 0xFFFF_FFFFL;

    /** Namespace identification descriptor: IEEE EUI-64, 8 bytes (NVME_NIDT_EUI64). */
    public static final int NIDT_EUI64 = 0x01;
    /** Namespace identification descriptor: NGUID, 16 bytes (NVME_NIDT_NGUID). */
    public static final int NIDT_NGUID = 0x02;
    /** Namespace identification descriptor: UUID, 16 bytes (NVME_NIDT_UUID). */
    public static final int NIDT_UUID = 0x03;
    /** Namespace identification descriptor: command set identifier, 1 byte (NVME_NIDT_CSI). */
    public static final int NIDT_CSI = 0x04;
    /** A namespace identification descriptor's header: type, length, 2 reserved bytes (struct nvme_ns_id_desc). */
    public static final int DESCRIPTOR_HEADER_LENGTH = 4;

    public int cns() {
        return u8(CNS_OFFSET);
    }

    public NvmeIdentify setCns(final int cns) {
        putU8(CNS_OFFSET, cns);
        return this;
    }

    public int controllerId() {
        return u16(CNTID_OFFSET);
    }

    public int commandSet() {
        return u8(CSI_OFFSET);
    }
}
