package org.rdmablock.protocol.srp;

/**
 * SRP_T_LOGOUT, 16 bytes: Linux {@code struct srp_t_logout} in {@code include/scsi/srp.h}
 * (T10 SRP r16a 6.6). The target closes the channel and says why with one of the {@code REASON_*} codes.
 */
public final class SrpTargetLogout extends SrpInformationUnit<SrpTargetLogout> {
    /** Size of the IU. */
    public static final int LENGTH = 16;
    /** Solicited notification flags. */
    public static final int SOL_NOT_OFFSET = 1;
    /** Logout reason, 4 bytes. */
    public static final int REASON_OFFSET = 4;

    /** No reason specified. */
    public static final int REASON_NONE = 0x0;
    /** Inactive RDMA channel (the target reclaims its resources). */
    public static final int REASON_INACTIVE_CHANNEL = 0x1;
    /** The target received an IU with an invalid type code. */
    public static final int REASON_INVALID_IU_TYPE = 0x2;
    /** The initiator sent a response to no outstanding target request. */
    public static final int REASON_UNEXPECTED_RESPONSE = 0x3;
    /** Channel disconnected by the multi-channel action of a new login. */
    public static final int REASON_MULTICHANNEL_ACTION = 0x4;
    /** Unsupported format code in the data-out buffer descriptor format field. */
    public static final int REASON_UNSUPPORTED_DATA_OUT_FORMAT = 0x6;
    /** Unsupported format code in the data-in buffer descriptor format field. */
    public static final int REASON_UNSUPPORTED_DATA_IN_FORMAT = 0x7;
    /** Invalid value in the data-out buffer descriptor count field. */
    public static final int REASON_INVALID_DATA_OUT_COUNT = 0x8;
    /** Invalid value in the data-in buffer descriptor count field. */
    public static final int REASON_INVALID_DATA_IN_COUNT = 0x9;

    public SrpDecodeError validate(long length) {
        return checkFixed(length, LENGTH, SrpOpcode.T_LOGOUT);
    }

    /** Zeroes the IU and sets its opcode. */
    public SrpTargetLogout reset() {
        clear(LENGTH);
        putU8(OPCODE_OFFSET, SrpOpcode.T_LOGOUT);
        return this;
    }

    public int solicitedNotification() {
        return u8(SOL_NOT_OFFSET);
    }

    public SrpTargetLogout setSolicitedNotification(int flags) {
        putU8(SOL_NOT_OFFSET, flags);
        return this;
    }

    public int reason() {
        return s32(REASON_OFFSET);
    }

    public SrpTargetLogout setReason(int reason) {
        put32(REASON_OFFSET, reason);
        return this;
    }
}
