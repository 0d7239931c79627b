package org.rdmablock.protocol.srp;

import java.lang.foreign.MemorySegment;

/**
 * SRP_AER_REQ, 36 bytes plus sense data: Linux {@code struct srp_aer_req} in {@code include/scsi/srp.h}
 * (T10 SRP r16a 6.12). The target reports an asynchronous event for a logical unit as sense data.
 */
public final class SrpAerRequest extends SrpInformationUnit<SrpAerRequest> {
    /** Size of the fixed part (packed: no tail padding to 40). */
    public static final int FIXED_LENGTH = 36;
    /** Solicited notification flags. */
    public static final int SOL_NOT_OFFSET = 1;
    /** Credits granted (signed), 4 bytes. */
    public static final int REQ_LIM_DELTA_OFFSET = 4;
    /** The logical unit number, 8 bytes (SAM format). */
    public static final int LUN_OFFSET = 20;
    /** Length of the sense data, 4 bytes. */
    public static final int SENSE_DATA_LEN_OFFSET = 28;
    /** Where the sense data starts. */
    public static final int SENSE_DATA_OFFSET = 36;

    /** Checks the fixed part and that the sense data lies inside the {@code length} received bytes. */
    public SrpDecodeError validate(long length) {
        SrpDecodeError error = checkFixed(length, FIXED_LENGTH, SrpOpcode.AER_REQ);
        if (error != SrpDecodeError.NONE) {
            return error;
        }
        return FIXED_LENGTH + senseDataLength() > length ? SrpDecodeError.DATA_LENGTH_PAST_END : SrpDecodeError.NONE;
    }

    /** Zeroes the fixed part and sets the opcode. */
    public SrpAerRequest reset() {
        clear(FIXED_LENGTH);
        putU8(OPCODE_OFFSET, SrpOpcode.AER_REQ);
        return this;
    }

    public int solicitedNotification() {
        return u8(SOL_NOT_OFFSET);
    }

    public SrpAerRequest setSolicitedNotification(int flags) {
        putU8(SOL_NOT_OFFSET, flags);
        return this;
    }

    public int requestLimitDelta() {
        return s32(REQ_LIM_DELTA_OFFSET);
    }

    public SrpAerRequest setRequestLimitDelta(int delta) {
        put32(REQ_LIM_DELTA_OFFSET, delta);
        return this;
    }

    /** The 8 LUN bytes as a big-endian long (see {@code org.rdmablock.protocol.scsi.LunAddress}). */
    public long lun() {
        return s64(LUN_OFFSET);
    }

    public SrpAerRequest setLun(long lun) {
        put64(LUN_OFFSET, lun);
        return this;
    }

    /** Sense data length in bytes (unsigned). */
    public long senseDataLength() {
        return u32(SENSE_DATA_LEN_OFFSET);
    }

    /** Copies {@code length} bytes of sense data in after the fixed part and sets the length field. */
    public SrpAerRequest setSenseData(MemorySegment src, long srcOffset, int length) {
        MemorySegment.copy(src, srcOffset, segment, offset + SENSE_DATA_OFFSET, length);
        put32(SENSE_DATA_LEN_OFFSET, length);
        return this;
    }

    /** Total encoded length: fixed part plus sense data. */
    public long length() {
        return FIXED_LENGTH + senseDataLength();
    }
}
