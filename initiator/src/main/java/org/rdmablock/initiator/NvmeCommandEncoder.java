package org.rdmablock.initiator;

import org.rdmablock.protocol.nvme.NvmeDsmRange;
import org.rdmablock.protocol.nvme.NvmeFeature;
import org.rdmablock.protocol.nvme.NvmeOpcode;
import org.rdmablock.protocol.nvme.NvmeSglDescriptor;
import org.rdmablock.protocol.nvme.NvmeSubmission;

/**
 * Builds a command's NVMe submission entry in its slot's IU buffer, on the agent thread, as Linux's nvme-rdma does
 * for an I/O queue: the command identifier is the slot, the namespace id is the LUN field, and the data is in the capsule
 * (a write that fits the controller's IOCCSZ: {@code nvme_rdma_map_sg_inline}) or one keyed SGL data block (the
 * caller's registered buffer, or the slot's bounce buffer, into which a write's data is gathered first;
 * {@code nvme_rdma_map_sg_single}). Read and Write carry FUA; an unmap is Dataset Management with one deallocate range,
 * itself data in the capsule or through the bounce buffer.
 */
final class NvmeCommandEncoder extends CommandEncoder {
    private final NvmeSubmission entry = new NvmeSubmission();
    private final NvmeSglDescriptor sgl = new NvmeSglDescriptor();
    private final NvmeDsmRange range = new NvmeDsmRange();

    /** Room for data after the entry in each IU buffer (sized at the session's start). */
    private final int capsuleRoom;
    /** Largest write carried in the capsule (the controller's IOCCSZ, at most a page and the room), or 0. */
    private int inCapsuleLimit;

    NvmeCommandEncoder(final ChannelMemory memory, final int inCapsuleLimit) {
        super(memory);
        this.capsuleRoom = memory.iuLength() - NvmeSubmission.LENGTH;
        this.inCapsuleLimit = Math.min(inCapsuleLimit, capsuleRoom);
    }

    /** At most what one keyed SGL data block describes (24 bits of length). */
    @Override
    int maxCommandBytes(final IoRequest request) {
        return Math.min(super.maxCommandBytes(request), NvmeSglDescriptor.MAX_KEYED_LENGTH + 1 - request.blockSize);
    }

    @Override
    int controlDataLength(final IoRequest request) {
        return switch (request.op) {
            case IoRequest.UNMAP -> NvmeDsmRange.LENGTH;
            case IoRequest.FLUSH -> 0;
            default -> throw new IllegalStateException("an NVMe queue carries no SCSI command ("
                    + request.describe() + ")");
        };
    }

    /** One keyed SGL per command: merged requests must share the bounce buffer. */
    @Override
    boolean carriesSeveralBuffers() {
        return false;
    }

    /** What the association found: the write data a capsule carries (IOCCSZ less the entry). */
    @Override
    void immediateLimit(final int bytes) {
        inCapsuleLimit = Math.min(bytes, capsuleRoom); // a new association's, within the buffers made for the first
    }

    @Override
    int encode(final IoRequest request, final OutstandingCommand c) {
        entry.wrap(ius().segment(), iuOffset(c)).reset().setFlags(NvmeSubmission.FLAGS_SGL_METABUF)
                .setCommandId(c.index).setNsid(request.lunField);
        c.bounced = false;
        int length = NvmeSubmission.LENGTH;
        switch (request.op) {
            case IoRequest.READ, IoRequest.WRITE -> {
                final boolean write = request.op == IoRequest.WRITE;
                entry.setOpcode(write ? NvmeOpcode.WRITE : NvmeOpcode.READ)
                        .setStartingLba(request.lba + c.partOffset[0] / request.blockSize)
                        .setBlocks(c.length / request.blockSize)
                        .setControl(request.fua ? NvmeSubmission.CONTROL_FUA : 0);
                c.dataIn = !write;
                length = data(request, c, write);
            }
            case IoRequest.FLUSH -> {
                entry.setOpcode(NvmeOpcode.FLUSH);
                entry.sgl(sgl).setKeyed(0, 0, 0, false); // no data: nvme-rdma's null keyed SGL
                c.dataIn = false;
            }
            case IoRequest.UNMAP -> {
                entry.setOpcode(NvmeOpcode.DATASET_MANAGEMENT).setCdw(10, 0).setCdw(11, NvmeFeature.DSM_DEALLOCATE);
                range.wrap(request.inline, 0).set(request.lba, request.blocks);
                c.dataIn = false;
                length = data(request, c, true);
            }
            default -> throw new IllegalStateException("an NVMe queue carries no SCSI command (" + request.describe() + ")");
        }
        return length;
    }

    /**
     * The data: a write that fits the capsule right after the entry (an in-capsule data block: the controller reads
     * nothing, as Linux's nvme-rdma sends small writes), else one keyed SGL, the caller's registered buffer or the
     * slot's bounce buffer (a write's gathered in). Returns the capsule's length.
     */
    private int data(final IoRequest request, final OutstandingCommand c, final boolean out) {
        if (out && c.length <= inCapsuleLimit) {
            gather(c, ius().segment(), iuOffset(c) + NvmeSubmission.LENGTH);
            entry.sgl(sgl).setInCapsule(0, c.length);
            return NvmeSubmission.LENGTH + c.length;
        }
        entry.sgl(sgl).setKeyed(singleBuffer(request, c, out), c.length, Integer.toUnsignedLong(singleBufferKey(request)),
                false);
        return NvmeSubmission.LENGTH;
    }
}
