package org.rdmablock.protocol.scsi;

/**
 * The wire constants of PERSISTENT RESERVE IN and OUT (SPC-4 6.15, 6.16): service actions, reservation types and
 * scope, and where each field lies in the PERSISTENT RESERVE OUT parameter lists and the PERSISTENT RESERVE IN answers.
 * {@link PersistentReservations} reads and writes them through these offsets alone, big-endian ({@link BigEndian}).
 */
public final class PersistentReserveData {
    // PERSISTENT RESERVE IN service actions
    public static final int READ_KEYS = 0x00;
    public static final int READ_RESERVATION = 0x01;
    public static final int REPORT_CAPABILITIES = 0x02;
    public static final int READ_FULL_STATUS = 0x03;

    // PERSISTENT RESERVE OUT service actions
    public static final int REGISTER = 0x00;
    public static final int RESERVE = 0x01;
    public static final int RELEASE = 0x02;
    public static final int CLEAR = 0x03;
    public static final int PREEMPT = 0x04;
    public static final int PREEMPT_AND_ABORT = 0x05;
    public static final int REGISTER_AND_IGNORE_EXISTING_KEY = 0x06;
    public static final int REGISTER_AND_MOVE = 0x07;

    // reservation types (SPC-4 6.15.3.3, table 171) and the one scope served
    public static final int WRITE_EXCLUSIVE = 0x1;
    public static final int EXCLUSIVE_ACCESS = 0x3;
    public static final int WRITE_EXCLUSIVE_REGISTRANTS_ONLY = 0x5;
    public static final int EXCLUSIVE_ACCESS_REGISTRANTS_ONLY = 0x6;
    public static final int WRITE_EXCLUSIVE_ALL_REGISTRANTS = 0x7;
    public static final int EXCLUSIVE_ACCESS_ALL_REGISTRANTS = 0x8;
    public static final int LU_SCOPE = 0x0;

    // PERSISTENT RESERVE OUT basic parameter list (SPC-4 6.16.3)
    static final int BASIC_PARAMETER_LIST_LENGTH = 24;
    static final int RESERVATION_KEY_OFFSET = 0;
    static final int SERVICE_ACTION_RESERVATION_KEY_OFFSET = 8;
    static final int FLAGS_OFFSET = 20;
    static final int SPEC_I_PT = 0x08;
    static final int SPEC_I_PT_BIT = 3;
    static final int ALL_TG_PT = 0x04;
    static final int APTPL = 0x01;
    static final int APTPL_BIT = 0;

    // REGISTER AND MOVE parameter list (SPC-4 6.16.4)
    static final int MOVE_FLAGS_OFFSET = 17;
    static final int UNREG = 0x02;
    static final int RELATIVE_TARGET_PORT_OFFSET = 18;
    static final int TRANSPORT_ID_LENGTH_OFFSET = 20;
    static final int TRANSPORT_ID_OFFSET = 24;

    // PERSISTENT RESERVE IN answers: the header of READ KEYS, READ RESERVATION and READ FULL STATUS
    static final int GENERATION_OFFSET = 0;
    static final int ADDITIONAL_LENGTH_OFFSET = 4;
    static final int HEADER_LENGTH = 8;
    static final int KEY_LENGTH = 8;
    // READ RESERVATION's one descriptor, after the header
    static final int RESERVATION_DESCRIPTOR_LENGTH = 16;
    static final int RESERVATION_KEY_IN_DESCRIPTOR = 0;
    static final int SCOPE_TYPE_IN_DESCRIPTOR = 13;
    // REPORT CAPABILITIES (SPC-4 6.15.4)
    static final int CAPABILITIES_LENGTH = 8;
    static final int CAPABILITIES_LENGTH_OFFSET = 0;
    static final int CAPABILITIES_FLAGS_OFFSET = 2;
    static final int CRH = 0x10;
    static final int SIP_C = 0x08;
    static final int ATP_C = 0x04;
    static final int PTPL_C = 0x01;
    static final int CAPABILITIES_TYPES_OFFSET = 3;
    static final int TMV = 0x80;
    static final int PTPL_A = 0x01;
    static final int TYPE_MASK_OFFSET = 4;
    /** Every type served, as the PERSISTENT RESERVATION TYPE MASK's two bytes carry them (WR_EX_AR ... EX_AC_AR). */
    static final int ALL_TYPES_MASK = 0xEA01;
    // READ FULL STATUS descriptors (SPC-4 6.15.5)
    static final int FULL_STATUS_DESCRIPTOR_HEADER = 24;
    static final int FULL_STATUS_KEY_OFFSET = 0;
    static final int FULL_STATUS_FLAGS_OFFSET = 12;
    static final int FULL_STATUS_ALL_TG_PT = 0x02;
    static final int FULL_STATUS_R_HOLDER = 0x01;
    static final int FULL_STATUS_SCOPE_TYPE_OFFSET = 13;
    static final int FULL_STATUS_RELATIVE_TARGET_PORT_OFFSET = 18;
    static final int FULL_STATUS_TRANSPORT_ID_LENGTH_OFFSET = 20;

    private PersistentReserveData() {
    }

    /** Whether {@code type} is one of the six reservation types. */
    static boolean validType(final int type) {
        return type == WRITE_EXCLUSIVE || type == EXCLUSIVE_ACCESS || type == WRITE_EXCLUSIVE_REGISTRANTS_ONLY
                || type == EXCLUSIVE_ACCESS_REGISTRANTS_ONLY || type == WRITE_EXCLUSIVE_ALL_REGISTRANTS
                || type == EXCLUSIVE_ACCESS_ALL_REGISTRANTS;
    }

    /** Whether every registrant holds a reservation of {@code type} (the All Registrants types). */
    static boolean allRegistrants(final int type) {
        return type == WRITE_EXCLUSIVE_ALL_REGISTRANTS || type == EXCLUSIVE_ACCESS_ALL_REGISTRANTS;
    }

    /** Whether {@code type} is a Registrants Only or All Registrants type, under which registrants are let in. */
    static boolean registrantsAdmitted(final int type) {
        return type >= WRITE_EXCLUSIVE_REGISTRANTS_ONLY;
    }

    /** Whether {@code type} restricts writes only (Write Exclusive and its variants) rather than all access. */
    static boolean writeExclusive(final int type) {
        return type == WRITE_EXCLUSIVE || type == WRITE_EXCLUSIVE_REGISTRANTS_ONLY || type == WRITE_EXCLUSIVE_ALL_REGISTRANTS;
    }
}
