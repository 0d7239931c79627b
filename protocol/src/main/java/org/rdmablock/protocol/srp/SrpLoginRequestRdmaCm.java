package org.rdmablock.protocol.srp;

import java.lang.foreign.MemorySegment;

/**
 * SRP_LOGIN_REQ in the 56-byte form carried as rdma_cm connect private data: Linux
 * {@code struct srp_login_req_rdma} in {@code include/scsi/srp.h}. RDMA/CM over InfiniBand leaves only
 * 56 bytes of private data, so this form drops the reserved bytes and moves the opcode to byte 11; the
 * tag is at byte 0.
 */
public final class SrpLoginRequestRdmaCm extends SrpInformationUnit<SrpLoginRequestRdmaCm> {
    /** Size of the private data. */
    public static final int LENGTH = 56;
    /** The opaque tag, 8 bytes (at 0 in this form, not 8). */
    public static final int RDMA_TAG_OFFSET = 0;
    /** Required buffer formats, 2 bytes. */
    public static final int REQ_BUF_FMT_OFFSET = 8;
    /** Flags (see {@link SrpLoginRequest#flags()}). */
    public static final int REQ_FLAGS_OFFSET = 10;
    /** The opcode, {@link SrpOpcode#LOGIN_REQ} (at 11 in this form, not 0). */
    public static final int RDMA_OPCODE_OFFSET = 11;
    /** Requested maximum initiator-to-target IU length, 4 bytes. */
    public static final int REQ_IT_IU_LEN_OFFSET = 12;
    /** Initiator port identifier, 16 bytes. */
    public static final int INITIATOR_PORT_ID_OFFSET = 16;
    /** Target port identifier, 16 bytes. */
    public static final int TARGET_PORT_ID_OFFSET = 32;
    /** Immediate data offset, 2 bytes. */
    public static final int IMM_DATA_OFFSET_OFFSET = 48;

    /** Checks that {@code length} bytes hold a complete rdma_cm login request. */
    public SrpDecodeError validate(long length) {
        return checkFixed(length, LENGTH, SrpOpcode.LOGIN_REQ);
    }

    /** Zeroes the private data and sets its opcode, ready for the setters. */
    public SrpLoginRequestRdmaCm reset() {
        clear(LENGTH);
        putU8(RDMA_OPCODE_OFFSET, SrpOpcode.LOGIN_REQ);
        return this;
    }

    @Override
    public int opcode() {
        return u8(RDMA_OPCODE_OFFSET);
    }

    @Override
    public long tag() {
        return segment.get(TAG, offset + RDMA_TAG_OFFSET);
    }

    @Override
    public SrpLoginRequestRdmaCm setTag(long tag) {
        segment.set(TAG, offset + RDMA_TAG_OFFSET, tag);
        return this;
    }

    public long requestedMaxInitiatorToTargetIuLength() {
        return u32(REQ_IT_IU_LEN_OFFSET);
    }

    public SrpLoginRequestRdmaCm setRequestedMaxInitiatorToTargetIuLength(long length) {
        put32(REQ_IT_IU_LEN_OFFSET, length);
        return this;
    }

    public int requiredBufferFormats() {
        return u16(REQ_BUF_FMT_OFFSET);
    }

    public SrpLoginRequestRdmaCm setRequiredBufferFormats(int formats) {
        putU16(REQ_BUF_FMT_OFFSET, formats);
        return this;
    }

    public int flags() {
        return u8(REQ_FLAGS_OFFSET);
    }

    public SrpLoginRequestRdmaCm setFlags(int flags) {
        putU8(REQ_FLAGS_OFFSET, flags);
        return this;
    }

    public int immediateDataOffset() {
        return u16(IMM_DATA_OFFSET_OFFSET);
    }

    public SrpLoginRequestRdmaCm setImmediateDataOffset(int immOffset) {
        putU16(IMM_DATA_OFFSET_OFFSET, immOffset);
        return this;
    }

    public void getInitiatorPortId(byte[] dst) {
        getBytes(INITIATOR_PORT_ID_OFFSET, SrpLoginRequest.checkPortId(dst));
    }

    public SrpLoginRequestRdmaCm setInitiatorPortId(byte[] id) {
        putBytes(INITIATOR_PORT_ID_OFFSET, id, SrpLoginRequest.PORT_ID_LENGTH);
        return this;
    }

    public void getTargetPortId(byte[] dst) {
        getBytes(TARGET_PORT_ID_OFFSET, SrpLoginRequest.checkPortId(dst));
    }

    public SrpLoginRequestRdmaCm setTargetPortId(byte[] id) {
        putBytes(TARGET_PORT_ID_OFFSET, id, SrpLoginRequest.PORT_ID_LENGTH);
        return this;
    }

    /** Writes the same login as a 64-byte IU into {@code iu}'s bytes (what ib_srpt does on receipt). */
    public void copyTo(SrpLoginRequest iu) {
        iu.reset()
                .setTag(tag())
                .setRequestedMaxInitiatorToTargetIuLength(requestedMaxInitiatorToTargetIuLength())
                .setRequiredBufferFormats(requiredBufferFormats())
                .setFlags(flags())
                .setImmediateDataOffset(immediateDataOffset());
        copyPortIds(segment, offset + INITIATOR_PORT_ID_OFFSET, iu.segment(), iu.offset() + SrpLoginRequest.INITIATOR_PORT_ID_OFFSET);
    }

    /** Fills this private data from a 64-byte IU (what an rdma_cm initiator sends). */
    public void copyFrom(SrpLoginRequest iu) {
        reset().setTag(iu.tag())
                .setRequestedMaxInitiatorToTargetIuLength(iu.requestedMaxInitiatorToTargetIuLength())
                .setRequiredBufferFormats(iu.requiredBufferFormats())
                .setFlags(iu.flags())
                .setImmediateDataOffset(iu.immediateDataOffset());
        copyPortIds(iu.segment(), iu.offset() + SrpLoginRequest.INITIATOR_PORT_ID_OFFSET, segment, offset + INITIATOR_PORT_ID_OFFSET);
    }

    /** Both forms keep the two port ids adjacent (initiator then target), so one 32-byte copy moves both. */
    private static void copyPortIds(MemorySegment src, long srcOffset, MemorySegment dst, long dstOffset) {
        MemorySegment.copy(src, srcOffset, dst, dstOffset, 2L * SrpLoginRequest.PORT_ID_LENGTH);
    }
}
