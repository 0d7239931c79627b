package org.rdmablock.protocol.nvme;

/**
 * Completion statuses as Linux keeps them ({@code NVME_SC_*}, {@code NVME_STATUS_*} in {@code include/linux/nvme.h}):
 * the status code in bits 7:0, its type in bits 10:8, More in 13, Do Not Retry in 14; the completion entry carries
 * them shifted left by one, past the phase tag ({@link NvmeCompletion#setStatus}).
 */
public final class NvmeStatus {
    /** Success. */
    public static final int SUCCESS = 0x000;
    /** Generic: invalid command opcode. */
    public static final int INVALID_OPCODE = 0x001;
    /** Generic: invalid field in command. */
    public static final int INVALID_FIELD = 0x002;
    /** Generic: command id conflict. */
    public static final int COMMAND_ID_CONFLICT = 0x003;
    /** Generic: data transfer error. */
    public static final int DATA_TRANSFER_ERROR = 0x004;
    /** Generic: internal error. */
    public static final int INTERNAL = 0x006;
    /** Generic: command abort requested. */
    public static final int ABORT_REQUESTED = 0x007;
    /** Generic: invalid namespace or format. */
    public static final int INVALID_NAMESPACE = 0x00B;
    /** Generic: command sequence error. */
    public static final int COMMAND_SEQUENCE_ERROR = 0x00C;
    /** Generic: invalid SGL last segment descriptor. */
    public static final int SGL_INVALID_LAST = 0x00D;
    /** Generic: invalid number of SGL descriptors. */
    public static final int SGL_INVALID_COUNT = 0x00E;
    /** Generic: data SGL length invalid. */
    public static final int SGL_INVALID_DATA = 0x00F;
    /** Generic: metadata SGL length invalid. */
    public static final int SGL_INVALID_METADATA = 0x010;
    /** Generic: SGL descriptor type invalid. */
    public static final int SGL_INVALID_TYPE = 0x011;
    /** Generic: SGL offset invalid. */
    public static final int SGL_INVALID_OFFSET = 0x016;
    /** Generic: keep alive timer expired. */
    public static final int KEEP_ALIVE_TIMEOUT_EXPIRED = 0x019;
    /** Generic: namespace is write protected. */
    public static final int NAMESPACE_WRITE_PROTECTED = 0x020;
    /** Generic (NVM command set): LBA out of range. */
    public static final int LBA_RANGE = 0x080;
    /** Generic (NVM command set): capacity exceeded. */
    public static final int CAPACITY_EXCEEDED = 0x081;
    /** Generic (NVM command set): namespace not ready. */
    public static final int NAMESPACE_NOT_READY = 0x082;
    /** The namespace is reserved by another host: a SCSI reservation conflict, as nvmet answers its own reservations. */
    public static final int RESERVATION_CONFLICT = 0x083;
    /** Command specific: invalid queue identifier. */
    public static final int QUEUE_ID_INVALID = 0x101;
    /** Command specific: invalid queue size. */
    public static final int QUEUE_SIZE_INVALID = 0x102;
    /** Command specific: asynchronous event request limit exceeded. */
    public static final int ASYNC_EVENT_LIMIT = 0x105;
    /** Command specific: invalid log page. */
    public static final int INVALID_LOG_PAGE = 0x109;
    /** Command specific: feature identifier not saveable. */
    public static final int FEATURE_NOT_SAVEABLE = 0x10D;
    /** Fabrics Connect: incompatible format. */
    public static final int CONNECT_FORMAT = 0x180;
    /** Fabrics Connect: controller busy. */
    public static final int CONNECT_CONTROLLER_BUSY = 0x181;
    /** Fabrics Connect: invalid parameters (the result names the field: {@link #connectDataField}). */
    public static final int CONNECT_INVALID_PARAMETER = 0x182;
    /** Fabrics Connect: restart discovery. */
    public static final int CONNECT_RESTART_DISCOVERY = 0x183;
    /** Fabrics Connect: invalid host. */
    public static final int CONNECT_INVALID_HOST = 0x184;
    /** Media: write fault. */
    public static final int WRITE_FAULT = 0x280;
    /** Media: unrecovered read error. */
    public static final int READ_ERROR = 0x281;
    /** Media: compare failure. */
    public static final int COMPARE_FAILED = 0x285;
    /** Media: access denied. */
    public static final int ACCESS_DENIED = 0x286;

    /** Status code type: generic (bits 10:8). */
    public static final int TYPE_GENERIC = 0x000;
    /** Status code type: command specific. */
    public static final int TYPE_COMMAND_SPECIFIC = 0x100;
    /** Status code type: media and data integrity errors. */
    public static final int TYPE_MEDIA = 0x200;
    /** Status code type: path related. */
    public static final int TYPE_PATH = 0x300;
    /** The status code type bits. */
    public static final int TYPE_MASK = 0x700;
    /** More: the error log page has more (Linux NVME_STATUS_MORE). */
    public static final int MORE = 0x2000;
    /** Do Not Retry: the same command would fail again (Linux NVME_STATUS_DNR). */
    public static final int DO_NOT_RETRY = 0x4000;

    /** A Connect's CONNECT_INVALID_PARAMETER result naming the Connect data's field at {@code offset} (Linux IPO_IATTR_CONNECT_DATA). */
    public static final int CONNECT_DATA_FIELD = 1 << 16;

    private NvmeStatus() {
    }

    /** The result of a Connect refused for the field at {@code dataOffset} of its data (nvmet's IPO_IATTR_CONNECT_DATA). */
    public static long connectDataField(final int dataOffset) {
        return CONNECT_DATA_FIELD | dataOffset;
    }
}
