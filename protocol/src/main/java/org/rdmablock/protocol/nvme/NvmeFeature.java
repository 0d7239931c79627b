package org.rdmablock.protocol.nvme;

/**
 * Feature identifiers of Get / Set Features (CDW10 bits 7:0) the target keeps, and the Asynchronous Event the
 * controller completes an outstanding Asynchronous Event Request with when its namespaces change (Linux
 * {@code include/linux/nvme.h}).
 */
public final class NvmeFeature {
    /** CDW10's feature identifier bits. */
    public static final int FID_MASK = 0xFF;
    /** Volatile Write Cache: CDW11 bit 0, the cache enabled. */
    public static final int VOLATILE_WRITE_CACHE = 0x06;
    /** Number of Queues: CDW11 holds the I/O submission (15:0) and completion (31:16) queues asked for, 0's based. */
    public static final int NUMBER_OF_QUEUES = 0x07;
    /** Asynchronous Event Configuration: which notices the host wants. */
    public static final int ASYNC_EVENT_CONFIGURATION = 0x0B;
    /** Keep Alive Timer: CDW11 is the timeout in milliseconds. */
    public static final int KEEP_ALIVE_TIMER = 0x0F;
    /** Asynchronous Event Configuration's Namespace Attribute Notices bit. */
    public static final int NAMESPACE_ATTRIBUTE_NOTICES = 1 << 8;
    /**
     * The result of the Asynchronous Event Request that reports a changed namespace list: type Notice, information
     * Namespace Attribute Changed, log page Changed Namespace List.
     */
    public static final int EVENT_NAMESPACE_ATTRIBUTE_CHANGED = 0x02 | 0x00 << 8 | NvmeGetLogPage.LOG_CHANGED_NAMESPACES << 16;
    /** Dataset Management: CDW10 bits 7:0 are the ranges, 0's based; CDW11's Attribute - Deallocate bit. */
    public static final int DSM_RANGES_MASK = 0xFF;
    public static final int DSM_DEALLOCATE = 1 << 2;
    /** Most ranges of one Dataset Management command. */
    public static final int DSM_MAX_RANGES = 256;

    private NvmeFeature() {
    }
}
