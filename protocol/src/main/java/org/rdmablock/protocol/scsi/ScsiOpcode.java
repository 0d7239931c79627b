package org.rdmablock.protocol.scsi;

/** Operation codes of the commands this module understands (SPC-4, SBC-3/SBC-4). */
public final class ScsiOpcode {
    public static final int TEST_UNIT_READY = 0x00;
    public static final int REQUEST_SENSE = 0x03;
    public static final int READ_6 = 0x08;
    public static final int WRITE_6 = 0x0A;
    public static final int INQUIRY = 0x12;
    public static final int MODE_SELECT_6 = 0x15;
    public static final int MODE_SENSE_6 = 0x1A;
    /** SPC-2 RESERVE(6) and RELEASE(6): a reservation of the whole unit by one I_T nexus. */
    public static final int RESERVE_6 = 0x16;
    public static final int RELEASE_6 = 0x17;
    public static final int START_STOP_UNIT = 0x1B;
    public static final int PREVENT_ALLOW_MEDIUM_REMOVAL = 0x1E;
    public static final int READ_CAPACITY_10 = 0x25;
    public static final int READ_10 = 0x28;
    public static final int WRITE_10 = 0x2A;
    public static final int VERIFY_10 = 0x2F;
    public static final int SYNCHRONIZE_CACHE_10 = 0x35;
    public static final int WRITE_SAME_10 = 0x41;
    public static final int UNMAP = 0x42;
    public static final int MODE_SELECT_10 = 0x55;
    public static final int MODE_SENSE_10 = 0x5A;
    /** PERSISTENT RESERVE IN and OUT (SPC-4 6.15, 6.16); the service action is in byte 1. */
    public static final int PERSISTENT_RESERVE_IN = 0x5E;
    public static final int PERSISTENT_RESERVE_OUT = 0x5F;
    /** EXTENDED COPY (SPC-4 6.4); service action 0x00 is the LID1 form, the one served. */
    public static final int EXTENDED_COPY = 0x83;
    /** RECEIVE COPY RESULTS (SPC-4 6.18); service action 0x03 is OPERATING PARAMETERS, the one served. */
    public static final int RECEIVE_COPY_RESULTS = 0x84;
    public static final int READ_16 = 0x88;
    /** COMPARE AND WRITE (SBC-4 5.3): compares, and writes only when equal, as one uninterrupted action. */
    public static final int COMPARE_AND_WRITE = 0x89;
    public static final int WRITE_16 = 0x8A;
    public static final int VERIFY_16 = 0x8F;
    public static final int SYNCHRONIZE_CACHE_16 = 0x91;
    public static final int WRITE_SAME_16 = 0x93;
    /** SERVICE ACTION IN(16); service action 0x10 is READ CAPACITY(16). */
    public static final int SERVICE_ACTION_IN_16 = 0x9E;
    public static final int REPORT_LUNS = 0xA0;
    /** MAINTENANCE IN; service action 0x0C is REPORT SUPPORTED OPERATION CODES, 0x0A REPORT TARGET PORT GROUPS. */
    public static final int MAINTENANCE_IN = 0xA3;
    public static final int READ_12 = 0xA8;
    public static final int WRITE_12 = 0xAA;

    /** SERVICE ACTION IN(16) service action: READ CAPACITY(16). */
    public static final int SA_READ_CAPACITY_16 = 0x10;
    /** SERVICE ACTION IN(16) service action: GET LBA STATUS. */
    public static final int SA_GET_LBA_STATUS = 0x12;
    /** EXTENDED COPY service action: EXTENDED COPY(LID1), one-byte list identifiers. */
    public static final int SA_EXTENDED_COPY_LID1 = 0x00;
    /** RECEIVE COPY RESULTS service action: the copy manager's OPERATING PARAMETERS. */
    public static final int SA_RECEIVE_COPY_OPERATING_PARAMETERS = 0x03;
    /** MAINTENANCE IN service action: REPORT TARGET PORT GROUPS. */
    public static final int SA_REPORT_TARGET_PORT_GROUPS = 0x0A;
    /** MAINTENANCE IN service action: REPORT SUPPORTED OPERATION CODES. */
    public static final int SA_REPORT_SUPPORTED_OPERATION_CODES = 0x0C;

    private ScsiOpcode() {
    }
}
