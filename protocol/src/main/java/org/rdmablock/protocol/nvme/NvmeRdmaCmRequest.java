package org.rdmablock.protocol.nvme;

/**
 * The private data of an NVMe/RDMA connect request, 32 bytes: Linux {@code struct nvme_rdma_cm_req}: which queue the
 * RC queue pair is (0 the admin queue), and the host's receive and send queue sizes.
 */
public final class NvmeRdmaCmRequest extends NvmeStructure<NvmeRdmaCmRequest> {
    /** Size of the private data. */
    public static final int LENGTH = 32;
    /** The record format, 2 bytes: {@link NvmfConnectCommand#RECFMT_1_0}. */
    public static final int RECFMT_OFFSET = 0;
    /** The queue id, 2 bytes: 0 the admin queue. */
    public static final int QID_OFFSET = 2;
    /** The host's receive queue size (the completions it can take), 2 bytes. */
    public static final int HRQSIZE_OFFSET = 4;
    /** The host's send queue size, 0's based (the commands it may have outstanding), 2 bytes. */
    public static final int HSQSIZE_OFFSET = 6;
    /** The controller id (newer hosts, on I/O queues; 0 from older ones), 2 bytes. */
    public static final int CNTLID_OFFSET = 8;

    /** Zeroes the private data, ready for the setters. */
    public NvmeRdmaCmRequest reset() {
        clear(LENGTH);
        return this;
    }

    /**
     * Why a connect request of {@code length} bytes is refused ({@link NvmeRdmaCmReject}'s status), or 0 when it is
     * one: long enough, record format 1.0.
     */
    public int refusal(final long length) {
        if (length < LENGTH) {
            return NvmeRdmaCmReject.INVALID_LENGTH;
        }
        return recordFormat() != NvmfConnectCommand.RECFMT_1_0 ? NvmeRdmaCmReject.INVALID_RECORD_FORMAT : 0;
    }

    public int recordFormat() {
        return u16(RECFMT_OFFSET);
    }

    public NvmeRdmaCmRequest setRecordFormat(final int format) {
        putU16(RECFMT_OFFSET, format);
        return this;
    }

    public int queueId() {
        return u16(QID_OFFSET);
    }

    public NvmeRdmaCmRequest setQueueId(final int qid) {
        putU16(QID_OFFSET, qid);
        return this;
    }

    public int hostReceiveQueueSize() {
        return u16(HRQSIZE_OFFSET);
    }

    public NvmeRdmaCmRequest setHostReceiveQueueSize(final int size) {
        putU16(HRQSIZE_OFFSET, size);
        return this;
    }

    /** The host's send queue entries (the field plus one). */
    public int hostSendQueueSize() {
        return u16(HSQSIZE_OFFSET) + 1;
    }

    public NvmeRdmaCmRequest setHostSendQueueSize(final int entries) {
        putU16(HSQSIZE_OFFSET, entries - 1);
        return this;
    }

    public int controllerId() {
        return u16(CNTLID_OFFSET);
    }

    public NvmeRdmaCmRequest setControllerId(final int id) {
        putU16(CNTLID_OFFSET, id);
        return this;
    }
}
