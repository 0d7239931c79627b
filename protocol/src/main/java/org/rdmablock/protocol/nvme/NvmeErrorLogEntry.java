package org.rdmablock.protocol.nvme;

/**
 * One entry of the Error Information log page (log {@link NvmeGetLogPage#LOG_ERROR}), 64 bytes: Linux
 * {@code struct nvme_error_slot}: which command failed, how, and where.
 */
public final class NvmeErrorLogEntry extends NvmeStructure<NvmeErrorLogEntry> {
    /** Size of an entry. */
    public static final int LENGTH = 64;
    /** Error count: unique, rising, 0 for an empty entry, 8 bytes. */
    public static final int ERROR_COUNT_OFFSET = 0;
    /** The submission queue, 2 bytes. */
    public static final int SQID_OFFSET = 8;
    /** The command's identifier, 2 bytes. */
    public static final int CMDID_OFFSET = 10;
    /** The status field, as the completion carried it (past the phase tag), 2 bytes. */
    public static final int STATUS_OFFSET = 12;
    /** Where in the command the error is (byte in bits 7:0, bit in 10:8), 2 bytes. */
    public static final int PARAMETER_LOCATION_OFFSET = 14;
    /** The first LBA in error, 8 bytes. */
    public static final int LBA_OFFSET = 16;
    /** The namespace, 4 bytes. */
    public static final int NSID_OFFSET = 24;

    /** Zeroes the entry, ready for the setters. */
    public NvmeErrorLogEntry reset() {
        clear(LENGTH);
        return this;
    }

    /** Error number {@code count}: command {@code commandId} on queue {@code sqid} ended with {@code status}. */
    public NvmeErrorLogEntry set(final long count, final int sqid, final int commandId, final int status) {
        put64(ERROR_COUNT_OFFSET, count);
        putU16(SQID_OFFSET, sqid);
        putU16(CMDID_OFFSET, commandId);
        putU16(STATUS_OFFSET, status << 1);
        return this;
    }

    /** Where: the command's byte and bit ({@code 0xFFFF}: not specific), the LBA and the namespace. */
    public NvmeErrorLogEntry setLocation(final int parameterLocation, final long lba, final long nsid) {
        putU16(PARAMETER_LOCATION_OFFSET, parameterLocation);
        put64(LBA_OFFSET, lba);
        put32(NSID_OFFSET, nsid);
        return this;
    }

    public long errorCount() {
        return u64(ERROR_COUNT_OFFSET);
    }

    public int commandId() {
        return u16(CMDID_OFFSET);
    }

    /** The status, as {@link NvmeStatus} names it. */
    public int status() {
        return u16(STATUS_OFFSET) >>> 1;
    }
}
