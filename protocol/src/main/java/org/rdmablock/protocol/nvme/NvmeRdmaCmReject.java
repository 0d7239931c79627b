package org.rdmablock.protocol.nvme;

/**
 * The private data of an NVMe/RDMA connect reject, 4 bytes: Linux {@code struct nvme_rdma_cm_rej}: why
 * ({@code enum nvme_rdma_cm_status}).
 */
public final class NvmeRdmaCmReject extends NvmeStructure<NvmeRdmaCmReject> {
    /** Size of the private data. */
    public static final int LENGTH = 4;
    /** The record format, 2 bytes. */
    public static final int RECFMT_OFFSET = 0;
    /** The status, 2 bytes. */
    public static final int STATUS_OFFSET = 2;

    /** The private data was shorter than a request (Linux NVME_RDMA_CM_INVALID_LEN). */
    public static final int INVALID_LENGTH = 0x01;
    /** A record format other than 1.0 (NVME_RDMA_CM_INVALID_RECFMT). */
    public static final int INVALID_RECORD_FORMAT = 0x02;
    /** No such queue (NVME_RDMA_CM_INVALID_QID). */
    public static final int INVALID_QUEUE_ID = 0x03;
    /** The host's send queue size is not one the controller takes (NVME_RDMA_CM_INVALID_HSQSIZE). */
    public static final int INVALID_HOST_SEND_QUEUE_SIZE = 0x04;
    /** The host's receive queue size is not one the controller takes (NVME_RDMA_CM_INVALID_HRQSIZE). */
    public static final int INVALID_HOST_RECEIVE_QUEUE_SIZE = 0x05;
    /** No resources for the queue (NVME_RDMA_CM_NO_RSC). */
    public static final int NO_RESOURCES = 0x06;
    /** Invalid IRD (NVME_RDMA_CM_INVALID_IRD). */
    public static final int INVALID_IRD = 0x07;
    /** Invalid ORD (NVME_RDMA_CM_INVALID_ORD). */
    public static final int INVALID_ORD = 0x08;
    /** Invalid controller id (NVME_RDMA_CM_INVALID_CNTLID). */
    public static final int INVALID_CONTROLLER_ID = 0x09;

    /** Zeroes the private data, record format 1.0, ready for the setters. */
    public NvmeRdmaCmReject reset() {
        clear(LENGTH);
        return this;
    }

    public int recordFormat() {
        return u16(RECFMT_OFFSET);
    }

    public int status() {
        return u16(STATUS_OFFSET);
    }

    public NvmeRdmaCmReject setStatus(final int status) {
        putU16(STATUS_OFFSET, status);
        return this;
    }
}
