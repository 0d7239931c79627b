package org.rdmablock.protocol.nvme;

/**
 * The Identify Controller data structure (CNS {@link NvmeIdentify#CNS_CONTROLLER}), 4096 bytes: Linux
 * {@code struct nvme_id_ctrl}, the fields a Fabrics target fills. Serial number, model and firmware revision are
 * space-padded ASCII; the subsystem NQN is NUL-padded.
 */
public final class NvmeIdentifyController extends NvmeStructure<NvmeIdentifyController> {
    /** Size of the structure (Linux NVME_IDENTIFY_DATA_SIZE). */
    public static final int LENGTH = 4096;
    /** PCI vendor id, 2 bytes. */
    public static final int VID_OFFSET = 0;
    /** PCI subsystem vendor id, 2 bytes. */
    public static final int SSVID_OFFSET = 2;
    /** Serial number, 20 bytes. */
    public static final int SN_OFFSET = 4;
    /** Model number, 40 bytes. */
    public static final int MN_OFFSET = 24;
    /** Firmware revision, 8 bytes. */
    public static final int FR_OFFSET = 64;
    /** Recommended arbitration burst, 1 byte. */
    public static final int RAB_OFFSET = 72;
    /** IEEE OUI, 3 bytes. */
    public static final int IEEE_OFFSET = 73;
    /** Multi-path I/O and namespace sharing capabilities, 1 byte. */
    public static final int CMIC_OFFSET = 76;
    /** Maximum data transfer size, a power of two in units of the minimum page size (0: none), 1 byte. */
    public static final int MDTS_OFFSET = 77;
    /** Controller id, 2 bytes. */
    public static final int CNTLID_OFFSET = 78;
    /** Version ({@link NvmeRegister#version}), 4 bytes. */
    public static final int VER_OFFSET = 80;
    /** Optional asynchronous events supported, 4 bytes. */
    public static final int OAES_OFFSET = 92;
    /** Controller attributes, 4 bytes. */
    public static final int CTRATT_OFFSET = 96;
    /** Controller type ({@link #TYPE_IO}), 1 byte. */
    public static final int CNTRLTYPE_OFFSET = 111;
    /** Abort command limit, 0's based, 1 byte. */
    public static final int ACL_OFFSET = 258;
    /** Asynchronous event request limit, 0's based, 1 byte. */
    public static final int AERL_OFFSET = 259;
    /** Log page attributes, 1 byte. */
    public static final int LPA_OFFSET = 261;
    /** Error log page entries, 0's based, 1 byte. */
    public static final int ELPE_OFFSET = 262;
    /** Keep alive support: the granularity in 100 ms units (0: none), 2 bytes. */
    public static final int KAS_OFFSET = 320;
    /** Submission queue entry size: required (bits 3:0) and maximum (7:4), log2, 1 byte. */
    public static final int SQES_OFFSET = 512;
    /** Completion queue entry size, as SQES, 1 byte. */
    public static final int CQES_OFFSET = 513;
    /** Maximum outstanding commands, 2 bytes. */
    public static final int MAXCMD_OFFSET = 514;
    /** Number of namespaces (the highest namespace id), 4 bytes. */
    public static final int NN_OFFSET = 516;
    /** Optional NVM command support ({@link #ONCS_DSM}, ...), 2 bytes. */
    public static final int ONCS_OFFSET = 520;
    /** Volatile write cache ({@link #VWC_PRESENT}), 1 byte. */
    public static final int VWC_OFFSET = 525;
    /** SGL support ({@link #SGLS_SUPPORTED}, ...), 4 bytes. */
    public static final int SGLS_OFFSET = 536;
    /** The NVM subsystem NQN, 256 bytes. */
    public static final int SUBNQN_OFFSET = 768;
    /** I/O queue command capsule size in 16-byte units, 4 bytes. */
    public static final int IOCCSZ_OFFSET = 1792;
    /** I/O queue response capsule size in 16-byte units, 4 bytes. */
    public static final int IORCSZ_OFFSET = 1796;
    /** In-capsule data offset in 16-byte units, 2 bytes. */
    public static final int ICDOFF_OFFSET = 1800;
    /** Fabrics controller attributes, 1 byte. */
    public static final int FCATT_OFFSET = 1802;
    /** Maximum SGL data block descriptors, 1 byte. */
    public static final int MSDBD_OFFSET = 1803;
    /** The first power state descriptor, 32 bytes. */
    public static final int PSD_OFFSET = 2048;
    /** The serial number's length. */
    public static final int SN_LENGTH = 20;
    /** The model number's length. */
    public static final int MN_LENGTH = 40;
    /** The firmware revision's length. */
    public static final int FR_LENGTH = 8;

    /** Controller type: I/O controller (Linux NVME_CTRL_IO). */
    public static final int TYPE_IO = 1;
    /** Controller type: discovery controller (NVME_CTRL_DISC). */
    public static final int TYPE_DISCOVERY = 2;
    /** ONCS: Compare (NVME_CTRL_ONCS_COMPARE). */
    public static final int ONCS_COMPARE = 1 << 0;
    /** ONCS: Dataset Management (NVME_CTRL_ONCS_DSM). */
    public static final int ONCS_DSM = 1 << 2;
    /** ONCS: Write Zeroes (NVME_CTRL_ONCS_WRITE_ZEROES). */
    public static final int ONCS_WRITE_ZEROES = 1 << 3;
    /** VWC: a volatile write cache is present (NVME_CTRL_VWC_PRESENT). */
    public static final int VWC_PRESENT = 1 << 0;
    /** SGLS: SGLs supported, byte aligned (NVME_CTRL_SGLS_BYTE_ALIGNED). */
    public static final int SGLS_SUPPORTED = 1 << 0;
    /** SGLS: keyed SGL data block descriptors (NVME_CTRL_SGLS_KSDBDS). */
    public static final int SGLS_KEYED = 1 << 2;
    /** SGLS: the offset subtype, in-capsule data (NVME_CTRL_SGLS_SAOS). */
    public static final int SGLS_IN_CAPSULE = 1 << 20;
    /** CMIC: may have several controllers (NVME_CTRL_CMIC_MULTI_CTRL). */
    public static final int CMIC_MULTI_CONTROLLER = 1 << 1;
    /** OAES: namespace attribute notices (NVME_AEN_CFG_NS_ATTR). */
    public static final int OAES_NAMESPACE_ATTRIBUTES = 1 << 8;
    /** CTRATT: 128-bit host identifier (NVME_CTRL_ATTR_HID_128_BIT). */
    public static final int CTRATT_HOST_ID_128 = 1 << 0;

    /** Zeroes the structure, ready for the setters. */
    public NvmeIdentifyController reset() {
        clear(LENGTH);
        return this;
    }

    public NvmeIdentifyController setVendorIds(final int vid, final int ssvid) {
        putU16(VID_OFFSET, vid);
        putU16(SSVID_OFFSET, ssvid);
        return this;
    }

    /** Serial number, model and firmware revision, space-padded (each cut to its field). */
    public NvmeIdentifyController setIdentity(final String serial, final String model, final String firmware) {
        putSpacePadded(SN_OFFSET, SN_LENGTH, serial);
        putSpacePadded(MN_OFFSET, MN_LENGTH, model);
        putSpacePadded(FR_OFFSET, FR_LENGTH, firmware);
        return this;
    }

    public String serialNumber() {
        return spacePadded(SN_OFFSET, SN_LENGTH);
    }

    public String modelNumber() {
        return spacePadded(MN_OFFSET, MN_LENGTH);
    }

    public String firmwareRevision() {
        return spacePadded(FR_OFFSET, FR_LENGTH);
    }

    public NvmeIdentifyController setIeeeOui(final int oui) {
        putU24(IEEE_OFFSET, oui);
        return this;
    }

    public int ieeeOui() {
        return u24(IEEE_OFFSET);
    }

    public NvmeIdentifyController setMultiPath(final int cmic) {
        putU8(CMIC_OFFSET, cmic);
        return this;
    }

    public int maxDataTransferSize() {
        return u8(MDTS_OFFSET);
    }

    public NvmeIdentifyController setMaxDataTransferSize(final int mdts) {
        putU8(MDTS_OFFSET, mdts);
        return this;
    }

    public int controllerId() {
        return u16(CNTLID_OFFSET);
    }

    public NvmeIdentifyController setControllerId(final int id) {
        putU16(CNTLID_OFFSET, id);
        return this;
    }

    public long version() {
        return u32(VER_OFFSET);
    }

    public NvmeIdentifyController setVersion(final int version) {
        put32(VER_OFFSET, version);
        return this;
    }

    public NvmeIdentifyController setAsyncEventsSupported(final long oaes) {
        put32(OAES_OFFSET, oaes);
        return this;
    }

    public NvmeIdentifyController setAttributes(final long ctratt) {
        put32(CTRATT_OFFSET, ctratt);
        return this;
    }

    public int controllerType() {
        return u8(CNTRLTYPE_OFFSET);
    }

    public NvmeIdentifyController setControllerType(final int type) {
        putU8(CNTRLTYPE_OFFSET, type);
        return this;
    }

    /** Abort limit and asynchronous event request limit, both 0's based; log page attributes; error log entries. */
    public NvmeIdentifyController setLimits(final int abortLimit, final int asyncEventLimit, final int logPageAttributes,
                                            final int errorLogEntries) {
        putU8(ACL_OFFSET, abortLimit);
        putU8(AERL_OFFSET, asyncEventLimit);
        putU8(LPA_OFFSET, logPageAttributes);
        putU8(ELPE_OFFSET, errorLogEntries);
        return this;
    }

    public int keepAliveGranularity() {
        return u16(KAS_OFFSET);
    }

    public NvmeIdentifyController setKeepAliveGranularity(final int hundredsOfMillis) {
        putU16(KAS_OFFSET, hundredsOfMillis);
        return this;
    }

    /** Queue entry sizes (each: required in bits 3:0, maximum in 7:4, log2) and the most commands outstanding. */
    public NvmeIdentifyController setQueueEntries(final int sqes, final int cqes, final int maxCommands) {
        putU8(SQES_OFFSET, sqes);
        putU8(CQES_OFFSET, cqes);
        putU16(MAXCMD_OFFSET, maxCommands);
        return this;
    }

    public int submissionEntrySizes() {
        return u8(SQES_OFFSET);
    }

    public int completionEntrySizes() {
        return u8(CQES_OFFSET);
    }

    public int maxCommands() {
        return u16(MAXCMD_OFFSET);
    }

    public long namespaces() {
        return u32(NN_OFFSET);
    }

    public NvmeIdentifyController setNamespaces(final long count) {
        put32(NN_OFFSET, count);
        return this;
    }

    public int optionalCommands() {
        return u16(ONCS_OFFSET);
    }

    public NvmeIdentifyController setOptionalCommands(final int oncs) {
        putU16(ONCS_OFFSET, oncs);
        return this;
    }

    public int volatileWriteCache() {
        return u8(VWC_OFFSET);
    }

    public NvmeIdentifyController setVolatileWriteCache(final int vwc) {
        putU8(VWC_OFFSET, vwc);
        return this;
    }

    public long sglSupport() {
        return u32(SGLS_OFFSET);
    }

    public NvmeIdentifyController setSglSupport(final long sgls) {
        put32(SGLS_OFFSET, sgls);
        return this;
    }

    public String subsystemNqn() {
        return text(SUBNQN_OFFSET, NvmfConnectData.NQN_FIELD_LENGTH);
    }

    public NvmeIdentifyController setSubsystemNqn(final String nqn) {
        putText(SUBNQN_OFFSET, NvmfConnectData.NQN_FIELD_LENGTH, nqn);
        return this;
    }

    /**
     * The Fabrics capsule fields: command and response capsule sizes in 16-byte units (a command capsule of 64 + 4096
     * bytes is 260), the in-capsule data's offset in 16-byte units, the attributes, and the most SGL data block
     * descriptors a command may carry.
     */
    public NvmeIdentifyController setCapsules(final long ioccsz, final long iorcsz, final int icdoff, final int fcatt,
                                              final int msdbd) {
        put32(IOCCSZ_OFFSET, ioccsz);
        put32(IORCSZ_OFFSET, iorcsz);
        putU16(ICDOFF_OFFSET, icdoff);
        putU8(FCATT_OFFSET, fcatt);
        putU8(MSDBD_OFFSET, msdbd);
        return this;
    }

    public long commandCapsuleSize() {
        return u32(IOCCSZ_OFFSET);
    }

    public long responseCapsuleSize() {
        return u32(IORCSZ_OFFSET);
    }

    public int inCapsuleDataOffset() {
        return u16(ICDOFF_OFFSET);
    }

    public int maxSglDescriptors() {
        return u8(MSDBD_OFFSET);
    }
}
