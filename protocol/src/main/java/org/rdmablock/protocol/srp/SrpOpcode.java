package org.rdmablock.protocol.srp;

/**
 * SRP information-unit type codes (byte 0 of every IU), as in the anonymous opcode enum of Linux
 * {@code include/scsi/srp.h} (T10 SRP r16a, 5.x).
 */
public final class SrpOpcode {
    /** SRP_LOGIN_REQ, initiator to target (carried in the CM REQ private data). */
    public static final int LOGIN_REQ = 0x00;
    /** SRP_TSK_MGMT, initiator to target. */
    public static final int TSK_MGMT = 0x01;
    /** SRP_CMD, initiator to target. */
    public static final int CMD = 0x02;
    /** SRP_I_LOGOUT, initiator to target. */
    public static final int I_LOGOUT = 0x03;
    /** SRP_CRED_RSP, initiator to target. */
    public static final int CRED_RSP = 0x41;
    /** SRP_AER_RSP, initiator to target. */
    public static final int AER_RSP = 0x42;
    /** SRP_T_LOGOUT, target to initiator. */
    public static final int T_LOGOUT = 0x80;
    /** SRP_CRED_REQ, target to initiator. */
    public static final int CRED_REQ = 0x81;
    /** SRP_AER_REQ, target to initiator. */
    public static final int AER_REQ = 0x82;
    /** SRP_LOGIN_RSP, target to initiator (CM REP private data). */
    public static final int LOGIN_RSP = 0xC0;
    /** SRP_RSP, target to initiator. */
    public static final int RSP = 0xC1;
    /** SRP_LOGIN_REJ, target to initiator (CM REJ private data). */
    public static final int LOGIN_REJ = 0xC2;

    private SrpOpcode() {
    }

    /** The opcode's name for logs, or {@code "UNKNOWN(0x..)"}. */
    public static String name(int opcode) {
        return switch (opcode) {
            case LOGIN_REQ -> "LOGIN_REQ";
            case TSK_MGMT -> "TSK_MGMT";
            case CMD -> "CMD";
            case I_LOGOUT -> "I_LOGOUT";
            case CRED_RSP -> "CRED_RSP";
            case AER_RSP -> "AER_RSP";
            case T_LOGOUT -> "T_LOGOUT";
            case CRED_REQ -> "CRED_REQ";
            case AER_REQ -> "AER_REQ";
            case LOGIN_RSP -> "LOGIN_RSP";
            case RSP -> "RSP";
            case LOGIN_REJ -> "LOGIN_REJ";
            default -> String.format("UNKNOWN(0x%02x)", opcode & 0xFF);
        };
    }
}
