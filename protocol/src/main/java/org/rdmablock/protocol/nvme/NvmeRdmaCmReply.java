package org.rdmablock.protocol.nvme;

/**
 * The private data of an NVMe/RDMA connect accept, 32 bytes: Linux {@code struct nvme_rdma_cm_rep}: the controller's
 * receive queue size (the commands it will take at once on this queue).
 */
public final class NvmeRdmaCmReply extends NvmeStructure<NvmeRdmaCmReply> {
    /** Size of the private data. */
    public static final int LENGTH = 32;
    /** The record format, 2 bytes. */
    public static final int RECFMT_OFFSET = 0;
    /** The controller's receive queue size, 2 bytes. */
    public static final int CRQSIZE_OFFSET = 2;

    /** Zeroes the private data, record format 1.0, ready for the setters. */
    public NvmeRdmaCmReply reset() {
        clear(LENGTH);
        return this;
    }

    public int recordFormat() {
        return u16(RECFMT_OFFSET);
    }

    public int controllerReceiveQueueSize() {
        return u16(CRQSIZE_OFFSET);
    }

    public NvmeRdmaCmReply setControllerReceiveQueueSize(final int size) {
        putU16(CRQSIZE_OFFSET, size);
        return this;
    }
}
