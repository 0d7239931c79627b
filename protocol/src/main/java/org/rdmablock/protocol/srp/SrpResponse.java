package org.rdmablock.protocol.srp;

import java.lang.foreign.MemorySegment;

/**
 * SRP_RSP, 36 bytes plus response data and sense data: Linux {@code struct srp_rsp} in
 * {@code include/scsi/srp.h} (T10 SRP r16a 6.9). Response data (a 4-byte task-management response code)
 * comes first at byte 36, sense data after it.
 *
 * <p>Encoding order: {@link #reset()}, then the fixed fields, then {@link #setResponseCode(int)} if any,
 * then {@link #setSenseData}; {@link #length()} is the number of bytes to send.
 */
public final class SrpResponse extends SrpInformationUnit<SrpResponse> {
    /** Size of the fixed part (packed: no tail padding to 40). */
    public static final int FIXED_LENGTH = 36;
    /** Solicited notification flags. */
    public static final int SOL_NOT_OFFSET = 1;
    /** Credits returned (signed), 4 bytes. */
    public static final int REQ_LIM_DELTA_OFFSET = 4;
    /** Flags: {@link #FLAG_RSPVALID} .. {@link #FLAG_DIUNDER}. */
    public static final int FLAGS_OFFSET = 18;
    /** SCSI status. */
    public static final int STATUS_OFFSET = 19;
    /** Data-out residual count, 4 bytes. */
    public static final int DATA_OUT_RES_CNT_OFFSET = 20;
    /** Data-in residual count, 4 bytes. */
    public static final int DATA_IN_RES_CNT_OFFSET = 24;
    /** Sense data length, 4 bytes. */
    public static final int SENSE_DATA_LEN_OFFSET = 28;
    /** Response data length, 4 bytes. */
    public static final int RESP_DATA_LEN_OFFSET = 32;
    /** Response data, then sense data. */
    public static final int DATA_OFFSET = 36;

    /** Response data is valid. */
    public static final int FLAG_RSPVALID = 1 << 0;
    /** Sense data is valid. */
    public static final int FLAG_SNSVALID = 1 << 1;
    /** Data-out overflow: the command wanted more data-out than the descriptors held. */
    public static final int FLAG_DOOVER = 1 << 2;
    /** Data-out underflow: the command used less data-out than the descriptors held. */
    public static final int FLAG_DOUNDER = 1 << 3;
    /** Data-in overflow: the command had more data-in than the descriptors could take. */
    public static final int FLAG_DIOVER = 1 << 4;
    /** Data-in underflow: the command returned less data-in than the descriptors could take. */
    public static final int FLAG_DIUNDER = 1 << 5;

    private static final int DATA_OUT_FLAGS = FLAG_DOOVER | FLAG_DOUNDER;
    private static final int DATA_IN_FLAGS = FLAG_DIOVER | FLAG_DIUNDER;

    /** Checks the fixed part and that response and sense data lie inside the {@code length} received bytes. */
    public SrpDecodeError validate(long length) {
        SrpDecodeError error = checkFixed(length, FIXED_LENGTH, SrpOpcode.RSP);
        if (error != SrpDecodeError.NONE) {
            return error;
        }
        return FIXED_LENGTH + responseDataLength() + senseDataLength() > length
                ? SrpDecodeError.DATA_LENGTH_PAST_END : SrpDecodeError.NONE;
    }

    /** Zeroes the fixed part and sets the opcode. */
    public SrpResponse reset() {
        clear(FIXED_LENGTH);
        putU8(OPCODE_OFFSET, SrpOpcode.RSP);
        return this;
    }

    public int solicitedNotification() {
        return u8(SOL_NOT_OFFSET);
    }

    public SrpResponse setSolicitedNotification(int flags) {
        putU8(SOL_NOT_OFFSET, flags);
        return this;
    }

    public int requestLimitDelta() {
        return s32(REQ_LIM_DELTA_OFFSET);
    }

    public SrpResponse setRequestLimitDelta(int delta) {
        put32(REQ_LIM_DELTA_OFFSET, delta);
        return this;
    }

    public int flags() {
        return u8(FLAGS_OFFSET);
    }

    public SrpResponse setFlags(int flags) {
        putU8(FLAGS_OFFSET, flags);
        return this;
    }

    /** The SCSI status byte. */
    public int status() {
        return u8(STATUS_OFFSET);
    }

    public SrpResponse setStatus(int status) {
        putU8(STATUS_OFFSET, status);
        return this;
    }

    public long dataOutResidualCount() {
        return u32(DATA_OUT_RES_CNT_OFFSET);
    }

    public long dataInResidualCount() {
        return u32(DATA_IN_RES_CNT_OFFSET);
    }

    /** Sets DOOVER and the data-out residual (bytes the command wanted beyond what was offered). */
    public SrpResponse setDataOutOverflow(long residual) {
        return residual(DATA_OUT_RES_CNT_OFFSET, DATA_OUT_FLAGS, FLAG_DOOVER, residual);
    }

    /** Sets DOUNDER and the data-out residual (bytes offered but not used). */
    public SrpResponse setDataOutUnderflow(long residual) {
        return residual(DATA_OUT_RES_CNT_OFFSET, DATA_OUT_FLAGS, FLAG_DOUNDER, residual);
    }

    /** Sets DIOVER and the data-in residual (bytes the command had beyond the buffer). */
    public SrpResponse setDataInOverflow(long residual) {
        return residual(DATA_IN_RES_CNT_OFFSET, DATA_IN_FLAGS, FLAG_DIOVER, residual);
    }

    /** Sets DIUNDER and the data-in residual (buffer bytes not filled). */
    public SrpResponse setDataInUnderflow(long residual) {
        return residual(DATA_IN_RES_CNT_OFFSET, DATA_IN_FLAGS, FLAG_DIUNDER, residual);
    }

    private SrpResponse residual(int at, int directionFlags, int flag, long residual) {
        put32(at, residual);
        putU8(FLAGS_OFFSET, (flags() & ~directionFlags) | flag);
        return this;
    }

    public long senseDataLength() {
        return u32(SENSE_DATA_LEN_OFFSET);
    }

    public long responseDataLength() {
        return u32(RESP_DATA_LEN_OFFSET);
    }

    /** Offset, from the IU start, of the sense data (after any response data). */
    public long senseDataOffset() {
        return DATA_OFFSET + responseDataLength();
    }

    /**
     * Writes 4 bytes of response data carrying a task-management response code in byte 3 (what ib_srpt
     * and ib_srp use) and sets RSPVALID. Call before {@link #setSenseData}.
     */
    public SrpResponse setResponseCode(int code) {
        if (senseDataLength() != 0) {
            throw new IllegalStateException("set the response data before the sense data");
        }
        put32(DATA_OFFSET, code & 0xFF);
        put32(RESP_DATA_LEN_OFFSET, 4);
        putU8(FLAGS_OFFSET, flags() | FLAG_RSPVALID);
        return this;
    }

    /** The task-management response code in byte 3 of the response data, or -1 if there is none. */
    public int responseCode() {
        return (flags() & FLAG_RSPVALID) != 0 && responseDataLength() >= 4 ? u8(DATA_OFFSET + 3) : -1;
    }

    /**
     * Copies sense data after the response data, sets SNSVALID and the sense length. Copies at most
     * {@code maxIuLength - 36 - responseDataLength()} bytes, the truncation ib_srpt applies to fit the
     * initiator's maximum target-to-initiator IU length; returns the number of bytes copied.
     */
    public int setSenseData(MemorySegment src, long srcOffset, int length, long maxIuLength) {
        long room = maxIuLength - senseDataOffset();
        int copied = (int) Math.max(0, Math.min(length, room));
        MemorySegment.copy(src, srcOffset, segment, offset + senseDataOffset(), copied);
        put32(SENSE_DATA_LEN_OFFSET, copied);
        putU8(FLAGS_OFFSET, copied > 0 ? flags() | FLAG_SNSVALID : flags() & ~FLAG_SNSVALID);
        return copied;
    }

    /** Total encoded length: fixed part, response data and sense data. */
    public long length() {
        return FIXED_LENGTH + responseDataLength() + senseDataLength();
    }
}
