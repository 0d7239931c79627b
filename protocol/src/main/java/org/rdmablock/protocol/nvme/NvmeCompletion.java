package org.rdmablock.protocol.nvme;

/**
 * A completion queue entry, 16 bytes: Linux {@code struct nvme_completion}. The status field's bit 0 is the phase tag
 * (meaningless over Fabrics, sent 0); bits 15:1 are the status that {@link NvmeStatus} names, as Linux keeps it.
 */
public final class NvmeCompletion extends NvmeStructure<NvmeCompletion> {
    /** Size of an entry. */
    public static final int LENGTH = 16;
    /** The command-specific result, 8 bytes (dword 0, and dword 1 for a 64-bit one). */
    public static final int RESULT_OFFSET = 0;
    /** The submission queue head pointer, 2 bytes. */
    public static final int SQ_HEAD_OFFSET = 8;
    /** The submission queue the command came on, 2 bytes. */
    public static final int SQ_ID_OFFSET = 10;
    /** The command's identifier, 2 bytes. */
    public static final int COMMAND_ID_OFFSET = 12;
    /** Phase tag (bit 0) and status (bits 15:1), 2 bytes. */
    public static final int STATUS_OFFSET = 14;

    /** Zeroes the entry, ready for the setters. */
    public NvmeCompletion reset() {
        clear(LENGTH);
        return this;
    }

    /** The result's low 32 bits (dword 0), unsigned. */
    public long result32() {
        return u32(RESULT_OFFSET);
    }

    /** The whole 64-bit result (Property Get's value). */
    public long result64() {
        return u64(RESULT_OFFSET);
    }

    public NvmeCompletion setResult(final long result) {
        put64(RESULT_OFFSET, result);
        return this;
    }

    public int sqHead() {
        return u16(SQ_HEAD_OFFSET);
    }

    public NvmeCompletion setSqHead(final int head) {
        putU16(SQ_HEAD_OFFSET, head);
        return this;
    }

    public int sqId() {
        return u16(SQ_ID_OFFSET);
    }

    public NvmeCompletion setSqId(final int id) {
        putU16(SQ_ID_OFFSET, id);
        return this;
    }

    public int commandId() {
        return u16(COMMAND_ID_OFFSET);
    }

    public NvmeCompletion setCommandId(final int id) {
        putU16(COMMAND_ID_OFFSET, id);
        return this;
    }

    /** The status without the phase tag, as {@link NvmeStatus} names it (DNR and More included). */
    public int status() {
        return u16(STATUS_OFFSET) >>> 1;
    }

    /** The phase tag. */
    public int phase() {
        return u16(STATUS_OFFSET) & 1;
    }

    /** Sets the status ({@link NvmeStatus}, DNR and More included); the phase tag is left 0. */
    public NvmeCompletion setStatus(final int status) {
        putU16(STATUS_OFFSET, status << 1);
        return this;
    }
}
