package org.rdmablock.protocol.scsi;

/**
 * What a decoded CDB asks for, independent of which CDB size carried it (READ(6), (10), (12) and (16)
 * are all {@link #READ}). {@link CdbDecoder#kind()} returns one of these.
 */
public enum CommandKind {
    TEST_UNIT_READY,
    REQUEST_SENSE,
    INQUIRY,
    MODE_SENSE,
    MODE_SELECT,
    START_STOP_UNIT,
    PREVENT_ALLOW_MEDIUM_REMOVAL,
    READ_CAPACITY_10,
    READ_CAPACITY_16,
    GET_LBA_STATUS,
    READ,
    WRITE,
    VERIFY,
    COMPARE_AND_WRITE,
    SYNCHRONIZE_CACHE,
    WRITE_SAME,
    UNMAP,
    REPORT_LUNS,
    REPORT_SUPPORTED_OPERATION_CODES,
    /** MAINTENANCE IN, REPORT TARGET PORT GROUPS: the ALUA groups and their states. */
    REPORT_TARGET_PORT_GROUPS,
    PERSISTENT_RESERVE_IN,
    PERSISTENT_RESERVE_OUT,
    /** SPC-2 RESERVE(6). */
    RESERVE,
    /** SPC-2 RELEASE(6). */
    RELEASE,
    /** EXTENDED COPY(LID1): a copy between units made by the target. */
    EXTENDED_COPY,
    /** RECEIVE COPY RESULTS, OPERATING PARAMETERS: the copy manager's limits. */
    RECEIVE_COPY_RESULTS
}
