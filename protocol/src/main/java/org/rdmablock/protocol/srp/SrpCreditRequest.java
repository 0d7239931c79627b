package org.rdmablock.protocol.srp;

/**
 * SRP_CRED_REQ, 16 bytes: Linux {@code struct srp_cred_req} in {@code include/scsi/srp.h}
 * (T10 SRP r16a 6.10). The target grants credits outside a response; the initiator answers with
 * {@link SrpCreditResponse}, which costs no credit.
 */
public final class SrpCreditRequest extends SrpInformationUnit<SrpCreditRequest> {
    /** Size of the IU. */
    public static final int LENGTH = 16;
    /** Solicited notification flags. */
    public static final int SOL_NOT_OFFSET = 1;
    /** Credits granted (signed), 4 bytes. */
    public static final int REQ_LIM_DELTA_OFFSET = 4;

    public SrpDecodeError validate(long length) {
        return checkFixed(length, LENGTH, SrpOpcode.CRED_REQ);
    }

    /** Zeroes the IU and sets its opcode. */
    public SrpCreditRequest reset() {
        clear(LENGTH);
        putU8(OPCODE_OFFSET, SrpOpcode.CRED_REQ);
        return this;
    }

    public int solicitedNotification() {
        return u8(SOL_NOT_OFFSET);
    }

    public SrpCreditRequest setSolicitedNotification(int flags) {
        putU8(SOL_NOT_OFFSET, flags);
        return this;
    }

    public int requestLimitDelta() {
        return s32(REQ_LIM_DELTA_OFFSET);
    }

    public SrpCreditRequest setRequestLimitDelta(int delta) {
        put32(REQ_LIM_DELTA_OFFSET, delta);
        return this;
    }
}
