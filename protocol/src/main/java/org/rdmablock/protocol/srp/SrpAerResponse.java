package org.rdmablock.protocol.srp;

/**
 * SRP_AER_RSP, 16 bytes: Linux {@code struct srp_aer_rsp} in {@code include/scsi/srp.h}
 * (T10 SRP r16a 6.13). Echoes the tag of an {@link SrpAerRequest}; costs no credit.
 */
public final class SrpAerResponse extends SrpInformationUnit<SrpAerResponse> {
    /** Size of the IU. */
    public static final int LENGTH = 16;

    public SrpDecodeError validate(long length) {
        return checkFixed(length, LENGTH, SrpOpcode.AER_RSP);
    }

    /** Zeroes the IU and sets its opcode. */
    public SrpAerResponse reset() {
        clear(LENGTH);
        putU8(OPCODE_OFFSET, SrpOpcode.AER_RSP);
        return this;
    }
}
