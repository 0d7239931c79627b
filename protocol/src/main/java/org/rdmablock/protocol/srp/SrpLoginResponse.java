package org.rdmablock.protocol.srp;

/**
 * SRP_LOGIN_RSP, 52 bytes: Linux {@code struct srp_login_rsp} in {@code include/scsi/srp.h}
 * (T10 SRP r16a 6.3). Sent as CM REP private data when the target accepts a login.
 */
public final class SrpLoginResponse extends SrpInformationUnit<SrpLoginResponse> {
    /** Size of the IU (the struct is packed: no tail padding to 56). */
    public static final int LENGTH = 52;
    /** Initial request limit (credits) granted, 4 bytes. */
    public static final int REQ_LIM_DELTA_OFFSET = 4;
    /** Maximum initiator-to-target IU length the target accepts, 4 bytes. */
    public static final int MAX_IT_IU_LEN_OFFSET = 16;
    /** Maximum target-to-initiator IU length the target will send, 4 bytes. */
    public static final int MAX_TI_IU_LEN_OFFSET = 20;
    /** Supported buffer formats, 2 bytes. */
    public static final int BUF_FMT_OFFSET = 24;
    /** Response flags: multi-channel result in bits 1:0, {@link #IMMEDIATE_DATA_SUPPORTED}. */
    public static final int RSP_FLAGS_OFFSET = 26;

    /** Multi-channel result: no other channel existed. */
    public static final int MULTICHANNEL_NO_CHANNEL = 0x0;
    /** Multi-channel result: the other channels were logged out. */
    public static final int MULTICHANNEL_TERMINATED = 0x1;
    /** Multi-channel result: the other channels were kept. */
    public static final int MULTICHANNEL_MAINTAINED = 0x2;
    /** {@code rsp_flags} bit: the target accepts immediate data at the requested offset (SRP-2). */
    public static final int IMMEDIATE_DATA_SUPPORTED = 0x80;

    public SrpDecodeError validate(long length) {
        return checkFixed(length, LENGTH, SrpOpcode.LOGIN_RSP);
    }

    /** Zeroes the IU and sets its opcode. */
    public SrpLoginResponse reset() {
        clear(LENGTH);
        putU8(OPCODE_OFFSET, SrpOpcode.LOGIN_RSP);
        return this;
    }

    /** Credits granted with the login (signed, as the initiator adds it to its request limit). */
    public int requestLimitDelta() {
        return s32(REQ_LIM_DELTA_OFFSET);
    }

    public SrpLoginResponse setRequestLimitDelta(int delta) {
        put32(REQ_LIM_DELTA_OFFSET, delta);
        return this;
    }

    public long maxInitiatorToTargetIuLength() {
        return u32(MAX_IT_IU_LEN_OFFSET);
    }

    public SrpLoginResponse setMaxInitiatorToTargetIuLength(long length) {
        put32(MAX_IT_IU_LEN_OFFSET, length);
        return this;
    }

    public long maxTargetToInitiatorIuLength() {
        return u32(MAX_TI_IU_LEN_OFFSET);
    }

    public SrpLoginResponse setMaxTargetToInitiatorIuLength(long length) {
        put32(MAX_TI_IU_LEN_OFFSET, length);
        return this;
    }

    public int supportedBufferFormats() {
        return u16(BUF_FMT_OFFSET);
    }

    public SrpLoginResponse setSupportedBufferFormats(int formats) {
        putU16(BUF_FMT_OFFSET, formats);
        return this;
    }

    public int flags() {
        return u8(RSP_FLAGS_OFFSET);
    }

    public SrpLoginResponse setFlags(int flags) {
        putU8(RSP_FLAGS_OFFSET, flags);
        return this;
    }

    public boolean immediateDataSupported() {
        return (flags() & IMMEDIATE_DATA_SUPPORTED) != 0;
    }
}
