package org.rdmablock.protocol.nvme;

/**
 * The controller registers a Fabrics host reads and writes as properties ({@link NvmfPropertyCommand}): offsets and
 * the fields this target sets, from Linux {@code include/linux/nvme.h} ({@code NVME_REG_*}, {@code NVME_CC_*},
 * {@code NVME_CSTS_*}).
 */
public final class NvmeRegister {
    /** Controller Capabilities, 8 bytes. */
    public static final int CAP = 0x00;
    /** Version, 4 bytes. */
    public static final int VS = 0x08;
    /** Controller Configuration, 4 bytes. */
    public static final int CC = 0x14;
    /** Controller Status, 4 bytes. */
    public static final int CSTS = 0x1C;

    /** CC: enable. */
    public static final int CC_ENABLE = 1;
    /** CC: the shutdown notification bits (15:14). */
    public static final int CC_SHUTDOWN_MASK = 3 << 14;
    /** CC: normal shutdown notification (SHN 01b). */
    public static final int CC_SHUTDOWN_NORMAL = 1 << 14;
    /** CC: I/O submission queue entries of 64 bytes (IOSQES 6, bits 19:16), what an NVM controller requires. */
    public static final int CC_IOSQES_NVM = 6 << 16;
    /** CC: I/O completion queue entries of 16 bytes (IOCQES 4, bits 23:20). */
    public static final int CC_IOCQES_NVM = 4 << 20;
    /** CSTS: ready. */
    public static final int CSTS_READY = 1;
    /** CSTS: controller fatal status. */
    public static final int CSTS_FATAL = 1 << 1;
    /** CSTS: shutdown processing complete (SHST 10b). */
    public static final int CSTS_SHUTDOWN_COMPLETE = 2 << 2;

    /** CAP: the maximum queue entries field, 0's based (bits 15:0). */
    public static final long CAP_MQES_MASK = 0xFFFF;
    /** CAP: the timeout field's shift (bits 31:24, in 500 ms units). */
    public static final int CAP_TIMEOUT_SHIFT = 24;
    /** CAP: the memory page size minimum's shift (bits 51:48; the page is 2^(12 + MPSMIN) bytes). */
    public static final int CAP_MPSMIN_SHIFT = 48;
    /** CAP: command sets supported, the NVM command set (bit 37). */
    public static final long CAP_CSS_NVM = 1L << 37;

    private NvmeRegister() {
    }

    /** The Version register of NVMe {@code major}.{@code minor}.{@code tertiary} (Linux NVME_VS). */
    public static int version(final int major, final int minor, final int tertiary) {
        return major << 16 | minor << 8 | tertiary;
    }
}
