package org.rdmablock.protocol.nvme;

/**
 * Get Log Page's fields over a 64-byte entry (Linux {@code struct nvme_get_log_page_command}) and the log pages it
 * names ({@code NVME_LOG_*}). The length asked for is a 0's based dword count split in two halves ({@link #bytes()}).
 */
public final class NvmeGetLogPage extends NvmeStructure<NvmeGetLogPage> {
    /** Log page identifier, 1 byte. */
    public static final int LID_OFFSET = 40;
    /** Log specific field (bits 3:0 used), 1 byte. */
    public static final int LSP_OFFSET = 41;
    /** Number of dwords, lower 16 bits, 0's based, 2 bytes. */
    public static final int NUMDL_OFFSET = 42;
    /** Number of dwords, upper 16 bits, 2 bytes. */
    public static final int NUMDU_OFFSET = 44;
    /** Log page offset in bytes, 8 bytes. */
    public static final int LPO_OFFSET = 48;

    /** The Error Information log (NVME_LOG_ERROR). */
    public static final int LOG_ERROR = 0x01;
    /** The SMART / Health Information log (NVME_LOG_SMART). */
    public static final int LOG_SMART = 0x02;
    /** The Changed Namespace List log (NVME_LOG_CHANGED_NS). */
    public static final int LOG_CHANGED_NAMESPACES = 0x04;
    /** The Discovery log (NVME_LOG_DISC). */
    public static final int LOG_DISCOVERY = 0x70;
    /** Entries of a Changed Namespace List (NVME_MAX_CHANGED_NAMESPACES), 4 bytes each. */
    public static final int CHANGED_NAMESPACES_MAX = 1024;
    /** A Changed Namespace List whose first entry is this has overflowed: more changed than it holds. */
    public static final long CHANGED_NAMESPACES_OVERFLOW = 0xFFFF_FFFFL;

    public int logId() {
        return u8(LID_OFFSET);
    }

    public int logSpecific() {
        return u8(LSP_OFFSET) & 0xF;
    }

    /** The bytes asked for: (NUMDU:NUMDL + 1) dwords. */
    public long bytes() {
        return ((long) u16(NUMDU_OFFSET) << 16 | u16(NUMDL_OFFSET)) + 1 << 2;
    }

    /** The byte offset into the log. */
    public long logOffset() {
        return u64(LPO_OFFSET);
    }

    /** Asks for {@code bytes} (a multiple of 4, at least 4) of log {@code lid} from {@code logOffset}. */
    public NvmeGetLogPage set(final int lid, final long bytes, final long logOffset) {
        if (bytes < 4 || (bytes & 3) != 0) {
            throw new IllegalArgumentException("a log page is asked for in dwords, not " + bytes + " bytes");
        }
        final long dwords = (bytes >>> 2) - 1;
        putU8(LID_OFFSET, lid);
        putU16(NUMDL_OFFSET, (int) dwords);
        putU16(NUMDU_OFFSET, (int) (dwords >>> 16));
        put64(LPO_OFFSET, logOffset);
        return this;
    }
}
