package org.rdmablock.protocol.nvme;

/**
 * The Fabrics Connect command's own fields over a 64-byte entry: Linux {@code struct nvmf_connect_command} (opcode
 * {@link NvmeOpcode#FABRICS}, type {@link NvmfCommandType#CONNECT}); its data pointer names the 1 KiB
 * {@link NvmfConnectData}. The common header is {@link NvmeSubmission}'s.
 */
public final class NvmfConnectCommand extends NvmeStructure<NvmfConnectCommand> {
    /** The record format, 2 bytes: 0. */
    public static final int RECFMT_OFFSET = 40;
    /** The queue: 0 the admin queue, 2 bytes. */
    public static final int QID_OFFSET = 42;
    /** The submission queue's size, 0's based, 2 bytes. */
    public static final int SQSIZE_OFFSET = 44;
    /** Connect attributes, 1 byte ({@link #CATTR_DISABLE_SQ_FLOW_CONTROL}). */
    public static final int CATTR_OFFSET = 46;
    /** Keep Alive Timeout in milliseconds, 4 bytes (0: none). */
    public static final int KATO_OFFSET = 48;
    /** Connect attributes: the host asks for no SQ flow control (Linux NVME_CONNECT_DISABLE_SQFLOW). */
    public static final int CATTR_DISABLE_SQ_FLOW_CONTROL = 1 << 2;
    /** The only record format. */
    public static final int RECFMT_1_0 = 0;

    public int recordFormat() {
        return u16(RECFMT_OFFSET);
    }

    public NvmfConnectCommand setRecordFormat(final int format) {
        putU16(RECFMT_OFFSET, format);
        return this;
    }

    public int queueId() {
        return u16(QID_OFFSET);
    }

    public NvmfConnectCommand setQueueId(final int qid) {
        putU16(QID_OFFSET, qid);
        return this;
    }

    /** The submission queue's entries (the field plus one). */
    public int queueSize() {
        return u16(SQSIZE_OFFSET) + 1;
    }

    /** The raw 0's based field (0 is refused: a queue of one entry). */
    public int queueSizeField() {
        return u16(SQSIZE_OFFSET);
    }

    public NvmfConnectCommand setQueueSize(final int entries) {
        putU16(SQSIZE_OFFSET, entries - 1);
        return this;
    }

    public int attributes() {
        return u8(CATTR_OFFSET);
    }

    public NvmfConnectCommand setAttributes(final int attributes) {
        putU8(CATTR_OFFSET, attributes);
        return this;
    }

    /** Keep Alive Timeout in milliseconds, unsigned. */
    public long keepAliveTimeoutMillis() {
        return u32(KATO_OFFSET);
    }

    public NvmfConnectCommand setKeepAliveTimeoutMillis(final long millis) {
        put32(KATO_OFFSET, millis);
        return this;
    }
}
