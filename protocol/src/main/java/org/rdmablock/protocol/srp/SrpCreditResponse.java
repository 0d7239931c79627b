package org.rdmablock.protocol.srp;

/**
 * SRP_CRED_RSP, 16 bytes: Linux {@code struct srp_cred_rsp} in {@code include/scsi/srp.h}
 * (T10 SRP r16a 6.11). Echoes the tag of an {@link SrpCreditRequest}.
 */
public final class SrpCreditResponse extends SrpInformationUnit<SrpCreditResponse> {
    /** Size of the IU. */
    public static final int LENGTH = 16;

    public SrpDecodeError validate(long length) {
        return checkFixed(length, LENGTH, SrpOpcode.CRED_RSP);
    }

    /** Zeroes the IU and sets its opcode. */
    public SrpCreditResponse reset() {
        clear(LENGTH);
        putU8(OPCODE_OFFSET, SrpOpcode.CRED_RSP);
        return this;
    }
}
