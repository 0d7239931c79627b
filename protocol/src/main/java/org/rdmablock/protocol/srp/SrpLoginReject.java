package org.rdmablock.protocol.srp;

/**
 * SRP_LOGIN_REJ, 32 bytes: Linux {@code struct srp_login_rej} in {@code include/scsi/srp.h}
 * (T10 SRP r16a 6.4). Sent as CM REJ private data; {@link #reason()} is one of the {@code REASON_*} codes
 * ({@code enum srp_login_rej_reason}).
 */
public final class SrpLoginReject extends SrpInformationUnit<SrpLoginReject> {
    /** Size of the IU. */
    public static final int LENGTH = 32;
    /** Reject reason, 4 bytes. */
    public static final int REASON_OFFSET = 4;
    /** Supported buffer formats, 2 bytes. */
    public static final int BUF_FMT_OFFSET = 24;

    /** Unable to establish the RDMA channel, no reason given. */
    public static final int REASON_UNABLE_ESTABLISH_CHANNEL = 0x00010000;
    /** Insufficient RDMA channel resources. */
    public static final int REASON_INSUFFICIENT_RESOURCES = 0x00010001;
    /** The requested maximum initiator-to-target IU length is too large (ib_srpt also uses it for too small). */
    public static final int REASON_REQ_IT_IU_LENGTH_TOO_LARGE = 0x00010002;
    /** Unable to associate the channel with the I_T nexus (for example a wrong target port id). */
    public static final int REASON_UNABLE_ASSOCIATE_CHANNEL = 0x00010003;
    /** One or more requested buffer formats are not supported. */
    public static final int REASON_UNSUPPORTED_DESCRIPTOR_FORMAT = 0x00010004;
    /** The target does not support multiple channels per I_T nexus. */
    public static final int REASON_MULTI_CHANNEL_UNSUPPORTED = 0x00010005;
    /** The I_T nexus already has as many channels as the target allows. */
    public static final int REASON_CHANNEL_LIMIT_REACHED = 0x00010006;

    public SrpDecodeError validate(long length) {
        return checkFixed(length, LENGTH, SrpOpcode.LOGIN_REJ);
    }

    /** Zeroes the IU and sets its opcode. */
    public SrpLoginReject reset() {
        clear(LENGTH);
        putU8(OPCODE_OFFSET, SrpOpcode.LOGIN_REJ);
        return this;
    }

    public int reason() {
        return s32(REASON_OFFSET);
    }

    public SrpLoginReject setReason(int reason) {
        put32(REASON_OFFSET, reason);
        return this;
    }

    public int supportedBufferFormats() {
        return u16(BUF_FMT_OFFSET);
    }

    public SrpLoginReject setSupportedBufferFormats(int formats) {
        putU16(BUF_FMT_OFFSET, formats);
        return this;
    }
}
