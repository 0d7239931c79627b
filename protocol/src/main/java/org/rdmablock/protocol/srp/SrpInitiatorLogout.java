package org.rdmablock.protocol.srp;

/**
 * SRP_I_LOGOUT, 16 bytes: Linux {@code struct srp_i_logout} in {@code include/scsi/srp.h}
 * (T10 SRP r16a 6.5). The initiator closes the channel; only the tag is meaningful.
 */
public final class SrpInitiatorLogout extends SrpInformationUnit<SrpInitiatorLogout> {
    /** Size of the IU. */
    public static final int LENGTH = 16;

    public SrpDecodeError validate(long length) {
        return checkFixed(length, LENGTH, SrpOpcode.I_LOGOUT);
    }

    /** Zeroes the IU and sets its opcode. */
    public SrpInitiatorLogout reset() {
        clear(LENGTH);
        putU8(OPCODE_OFFSET, SrpOpcode.I_LOGOUT);
        return this;
    }
}
