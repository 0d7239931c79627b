package org.rdmablock.protocol.nvme;

import java.lang.foreign.MemorySegment;

/**
 * Checks a received command capsule (a submission entry, and in-capsule data after it) before the target reads any of
 * it, as Linux's nvmet-rdma does ({@code nvmet_req_init}, {@code nvmet_rdma_map_sgl}): at least an entry's 64 bytes,
 * SGLs for the data (PSDT 01b), no fused command, and a data pointer the target can serve: a keyed data block within
 * the largest transfer (RDMA READ or WRITE, the null one for no data), or an in-capsule data block of a command that
 * writes, lying within the bytes received and the in-capsule room. Anything else is the status the command is
 * answered with (Do Not Retry set): a bad capsule never reaches a read outside what arrived.
 *
 * <p>Allocates nothing; one decoder per thread that receives (its flyweights are reused).
 */
public final class NvmeCapsuleDecoder {
    /** {@link #decode}'s answer for a capsule shorter than an entry: no command to answer, the queue is broken. */
    public static final int TOO_SHORT = -1;

    private final NvmeSubmission entry = new NvmeSubmission();
    private final NvmeSglDescriptor sgl = new NvmeSglDescriptor();
    private int dataLength;
    private boolean dataInCapsule;

    /**
     * Decodes the capsule of {@code length} bytes at {@code offset} in {@code segment}.
     *
     * @param maxInCapsule  the in-capsule data this queue takes (0 on an admin queue)
     * @param maxTransfer   the largest transfer a command may ask for, in bytes
     * @return {@link NvmeStatus#SUCCESS}; an error status (with {@link NvmeStatus#DO_NOT_RETRY}) to answer the command
     *         with, {@link #entry()} readable for its command id; or {@link #TOO_SHORT}
     */
    public int decode(final MemorySegment segment, final long offset, final long length, final int maxInCapsule,
                      final int maxTransfer) {
        dataLength = 0;
        dataInCapsule = false;
        if (length < NvmeSubmission.LENGTH || offset < 0 || offset + length > segment.byteSize()) {
            return TOO_SHORT;
        }
        entry.wrap(segment, offset);
        entry.sgl(sgl);
        final int flags = entry.flags();
        if ((flags & NvmeSubmission.FLAGS_FUSE_MASK) != 0
                || (flags & NvmeSubmission.FLAGS_PSDT_MASK) != NvmeSubmission.FLAGS_SGL_METABUF) {
            return NvmeStatus.INVALID_FIELD | NvmeStatus.DO_NOT_RETRY;
        }
        return switch (sgl.type()) {
            case NvmeSglDescriptor.TYPE_KEYED_DATA_BLOCK -> keyed(maxTransfer);
            case NvmeSglDescriptor.TYPE_DATA_BLOCK -> inCapsule(length, maxInCapsule);
            default -> NvmeStatus.SGL_INVALID_TYPE | NvmeStatus.DO_NOT_RETRY;
        };
    }

    private int keyed(final int maxTransfer) {
        final int subtype = sgl.subtype();
        if (subtype != NvmeSglDescriptor.SUBTYPE_ADDRESS && subtype != NvmeSglDescriptor.SUBTYPE_INVALIDATE) {
            return NvmeStatus.SGL_INVALID_TYPE | NvmeStatus.DO_NOT_RETRY;
        }
        final int keyedLength = sgl.keyedLength();
        if (keyedLength > maxTransfer) {
            return NvmeStatus.SGL_INVALID_DATA | NvmeStatus.DO_NOT_RETRY;
        }
        dataLength = keyedLength;
        return NvmeStatus.SUCCESS;
    }

    private int inCapsule(final long length, final int maxInCapsule) {
        if (sgl.subtype() != NvmeSglDescriptor.SUBTYPE_OFFSET || !hostToController()) {
            return NvmeStatus.INVALID_FIELD | NvmeStatus.DO_NOT_RETRY;
        }
        final long received = Math.min(length - NvmeSubmission.LENGTH, maxInCapsule);
        final long at = sgl.address();
        final long bytes = sgl.length();
        if (at < 0 || bytes > received || at > received - bytes) {
            return NvmeStatus.SGL_INVALID_OFFSET | NvmeStatus.DO_NOT_RETRY;
        }
        dataLength = (int) bytes;
        dataInCapsule = true;
        return NvmeStatus.SUCCESS;
    }

    /** Whether the command moves data to the controller: its opcode's bit 0, a Fabrics command's type's. */
    private boolean hostToController() {
        final int opcode = entry.opcode();
        return NvmeOpcode.hostToController(opcode == NvmeOpcode.FABRICS ? entry.fabricsType() : opcode);
    }

    /** The entry decoded (after any answer but {@link #TOO_SHORT}). */
    public NvmeSubmission entry() {
        return entry;
    }

    /** Its data pointer. */
    public NvmeSglDescriptor sgl() {
        return sgl;
    }

    /** The bytes of data the command moves (0: none). */
    public int dataLength() {
        return dataLength;
    }

    /** Whether the data is in the capsule, at {@link #inCapsuleDataOffset()} after the entry. */
    public boolean dataInCapsule() {
        return dataInCapsule;
    }

    /** Where in-capsule data starts, counted from the entry's end. */
    public long inCapsuleDataOffset() {
        return sgl.address();
    }
}
