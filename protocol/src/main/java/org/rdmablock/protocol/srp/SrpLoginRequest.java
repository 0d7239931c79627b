package org.rdmablock.protocol.srp;

/**
 * SRP_LOGIN_REQ in its 64-byte IU form: Linux {@code struct srp_login_req} in {@code include/scsi/srp.h}
 * (T10 SRP r16a 6.2, with the SRP-2 immediate-data offset). Over rdma_cm the same information travels in
 * the 56-byte {@link SrpLoginRequestRdmaCm} form; {@link SrpLoginRequestRdmaCm#copyTo} converts.
 */
public final class SrpLoginRequest extends SrpInformationUnit<SrpLoginRequest> {
    /** Size of the IU. */
    public static final int LENGTH = 64;
    /** Requested maximum initiator-to-target IU length, 4 bytes. */
    public static final int REQ_IT_IU_LEN_OFFSET = 16;
    /** Required buffer formats ({@link SrpBufferFormat#SUPPORTS_DIRECT} etc.), 2 bytes. */
    public static final int REQ_BUF_FMT_OFFSET = 24;
    /** Flags: multi-channel action in bits 1:0, {@link #IMMEDIATE_DATA_REQUESTED}. */
    public static final int REQ_FLAGS_OFFSET = 26;
    /** Offset of immediate data inside SRP_CMD that the initiator wants, 2 bytes. */
    public static final int IMM_DATA_OFFSET_OFFSET = 28;
    /** Initiator port identifier, 16 bytes. */
    public static final int INITIATOR_PORT_ID_OFFSET = 32;
    /** Target port identifier, 16 bytes. */
    public static final int TARGET_PORT_ID_OFFSET = 48;
    /** Length of a port identifier. */
    public static final int PORT_ID_LENGTH = 16;

    /** Multi-channel action: log out every other channel of this I_T nexus. */
    public static final int MULTICHANNEL_SINGLE = 0;
    /** Multi-channel action: keep the other channels of this I_T nexus. */
    public static final int MULTICHANNEL_MULTI = 1;
    /** {@code req_flags} bit: the initiator wants to send immediate data (SRP-2). */
    public static final int IMMEDIATE_DATA_REQUESTED = 0x80;

    /** Checks that {@code length} bytes hold a complete SRP_LOGIN_REQ. */
    public SrpDecodeError validate(long length) {
        return checkFixed(length, LENGTH, SrpOpcode.LOGIN_REQ);
    }

    /** Zeroes the IU and sets its opcode, ready for the setters. */
    public SrpLoginRequest reset() {
        clear(LENGTH);
        putU8(OPCODE_OFFSET, SrpOpcode.LOGIN_REQ);
        return this;
    }

    /** Requested maximum initiator-to-target IU length in bytes (unsigned 32-bit). */
    public long requestedMaxInitiatorToTargetIuLength() {
        return u32(REQ_IT_IU_LEN_OFFSET);
    }

    public SrpLoginRequest setRequestedMaxInitiatorToTargetIuLength(long length) {
        put32(REQ_IT_IU_LEN_OFFSET, length);
        return this;
    }

    /** The buffer formats the initiator requires, a mask of {@code SrpBufferFormat.SUPPORTS_*}. */
    public int requiredBufferFormats() {
        return u16(REQ_BUF_FMT_OFFSET);
    }

    public SrpLoginRequest setRequiredBufferFormats(int formats) {
        putU16(REQ_BUF_FMT_OFFSET, formats);
        return this;
    }

    /** The raw {@code req_flags} byte. */
    public int flags() {
        return u8(REQ_FLAGS_OFFSET);
    }

    public SrpLoginRequest setFlags(int flags) {
        putU8(REQ_FLAGS_OFFSET, flags);
        return this;
    }

    /** The multi-channel action, {@link #MULTICHANNEL_SINGLE} or {@link #MULTICHANNEL_MULTI}. */
    public int multichannelAction() {
        return flags() & 0x03;
    }

    /** Whether the initiator asks to send immediate data. */
    public boolean immediateDataRequested() {
        return (flags() & IMMEDIATE_DATA_REQUESTED) != 0;
    }

    /** Where immediate data starts inside an SRP_CMD, if requested. */
    public int immediateDataOffset() {
        return u16(IMM_DATA_OFFSET_OFFSET);
    }

    public SrpLoginRequest setImmediateDataOffset(int offset) {
        putU16(IMM_DATA_OFFSET_OFFSET, offset);
        return this;
    }

    /** Copies the 16-byte initiator port identifier into {@code dst}. */
    public void getInitiatorPortId(byte[] dst) {
        getBytes(INITIATOR_PORT_ID_OFFSET, checkPortId(dst));
    }

    public SrpLoginRequest setInitiatorPortId(byte[] id) {
        putBytes(INITIATOR_PORT_ID_OFFSET, id, PORT_ID_LENGTH);
        return this;
    }

    /** The initiator port identifier's first 8 bytes, big-endian. */
    public long initiatorPortIdHigh() {
        return s64(INITIATOR_PORT_ID_OFFSET);
    }

    /** The initiator port identifier's last 8 bytes, big-endian. */
    public long initiatorPortIdLow() {
        return s64(INITIATOR_PORT_ID_OFFSET + Long.BYTES);
    }

    /** The target port identifier's first 8 bytes, big-endian: the target's id_ext. */
    public long targetPortIdExt() {
        return s64(TARGET_PORT_ID_OFFSET);
    }

    /** The target port identifier's last 8 bytes, big-endian: the I/O controller GUID. */
    public long targetPortIocGuid() {
        return s64(TARGET_PORT_ID_OFFSET + Long.BYTES);
    }

    /** Copies the 16-byte target port identifier into {@code dst}. */
    public void getTargetPortId(byte[] dst) {
        getBytes(TARGET_PORT_ID_OFFSET, checkPortId(dst));
    }

    public SrpLoginRequest setTargetPortId(byte[] id) {
        putBytes(TARGET_PORT_ID_OFFSET, id, PORT_ID_LENGTH);
        return this;
    }

    static byte[] checkPortId(byte[] dst) {
        if (dst.length != PORT_ID_LENGTH) {
            throw new IllegalArgumentException("a port identifier has 16 bytes, got " + dst.length);
        }
        return dst;
    }
}
