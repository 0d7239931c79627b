package org.rdmablock.protocol.scsi;

/**
 * The conditions this target reports, each a sense key with its additional sense code and qualifier
 * (SPC-4 annex D). Enum constants, so that reporting one allocates nothing.
 */
public enum SenseCode {
    NO_ADDITIONAL_SENSE(SenseKey.NO_SENSE, 0x00, 0x00),
    PARAMETER_LIST_LENGTH_ERROR(SenseKey.ILLEGAL_REQUEST, 0x1A, 0x00),
    INVALID_COMMAND_OPERATION_CODE(SenseKey.ILLEGAL_REQUEST, 0x20, 0x00),
    LBA_OUT_OF_RANGE(SenseKey.ILLEGAL_REQUEST, 0x21, 0x00),
    INVALID_FIELD_IN_CDB(SenseKey.ILLEGAL_REQUEST, 0x24, 0x00),
    LOGICAL_UNIT_NOT_SUPPORTED(SenseKey.ILLEGAL_REQUEST, 0x25, 0x00),
    INVALID_FIELD_IN_PARAMETER_LIST(SenseKey.ILLEGAL_REQUEST, 0x26, 0x00),
    SAVING_PARAMETERS_NOT_SUPPORTED(SenseKey.ILLEGAL_REQUEST, 0x39, 0x00),
    WRITE_PROTECTED(SenseKey.DATA_PROTECT, 0x27, 0x00),
    SPACE_ALLOCATION_FAILED_WRITE_PROTECT(SenseKey.DATA_PROTECT, 0x27, 0x07),
    WRITE_ERROR(SenseKey.MEDIUM_ERROR, 0x0C, 0x00),
    UNRECOVERED_READ_ERROR(SenseKey.MEDIUM_ERROR, 0x11, 0x00),
    /** VERIFY's byte check found the data-out unlike the medium: INFORMATION holds the first differing byte's offset. */
    MISCOMPARE_DURING_VERIFY_OPERATION(SenseKey.MISCOMPARE, 0x1D, 0x00),
    INTERNAL_TARGET_FAILURE(SenseKey.HARDWARE_ERROR, 0x44, 0x00),
    /** A transport's descriptor or length in the command IU is unusable (SPC-4: INVALID FIELD IN COMMAND INFORMATION UNIT). */
    INVALID_FIELD_IN_COMMAND_INFORMATION_UNIT(SenseKey.ILLEGAL_REQUEST, 0x0E, 0x03),
    /** The transport failed to move the data (an RDMA READ or WRITE error): the command may be retried. */
    DATA_PHASE_ERROR(SenseKey.ABORTED_COMMAND, 0x4B, 0x00),
    /** The command did not finish within the target's command timeout; the initiator may retry it. */
    COMMAND_TIMEOUT_DURING_PROCESSING(SenseKey.ABORTED_COMMAND, 0x2E, 0x02),
    /** The LUN inventory of this I_T nexus changed (a reload added or removed units), as Linux's LIO reports it. */
    REPORTED_LUNS_DATA_HAS_CHANGED(SenseKey.UNIT_ATTENTION, 0x3F, 0x0E),
    /** The unit's capacity changed while it served (a LUN resized): the initiator reads READ CAPACITY again. */
    CAPACITY_DATA_HAS_CHANGED(SenseKey.UNIT_ATTENTION, 0x2A, 0x09),
    /** A mode parameter changed by another means than this nexus's MODE SELECT: the LUN made read-only (WP). */
    MODE_PARAMETERS_CHANGED(SenseKey.UNIT_ATTENTION, 0x2A, 0x01),
    /** Another I_T nexus's PERSISTENT RESERVE OUT CLEAR removed this nexus's registration and the reservation. */
    RESERVATIONS_PREEMPTED(SenseKey.UNIT_ATTENTION, 0x2A, 0x03),
    /** The persistent reservation this registered nexus was under was released, or changed type by a preemption. */
    RESERVATIONS_RELEASED(SenseKey.UNIT_ATTENTION, 0x2A, 0x04),
    /** Another I_T nexus's PREEMPT (or PREEMPT AND ABORT) removed this nexus's registration. */
    REGISTRATIONS_PREEMPTED(SenseKey.UNIT_ATTENTION, 0x2A, 0x05),
    /** A PERSISTENT RESERVE OUT RELEASE named another type or scope than the reservation held (SPC-4 5.13.11.2). */
    INVALID_RELEASE_OF_PERSISTENT_RESERVATION(SenseKey.ILLEGAL_REQUEST, 0x26, 0x04),
    /** A registration beyond the most this unit keeps. */
    INSUFFICIENT_REGISTRATION_RESOURCES(SenseKey.ILLEGAL_REQUEST, 0x55, 0x04),
    /** An EXTENDED COPY named a copy target this I_T nexus does not see: the initiator copies by itself instead. */
    COPY_TARGET_DEVICE_NOT_REACHABLE(SenseKey.COPY_ABORTED, 0x0D, 0x02),
    /** EXTENDED COPY's target (CSCD) descriptors: more than the copy manager takes, or of a type it does not serve. */
    TOO_MANY_TARGET_DESCRIPTORS(SenseKey.ILLEGAL_REQUEST, 0x26, 0x06),
    UNSUPPORTED_TARGET_DESCRIPTOR_TYPE_CODE(SenseKey.ILLEGAL_REQUEST, 0x26, 0x07),
    /** EXTENDED COPY's segment descriptors: more than the copy manager takes, or of a type it does not serve. */
    TOO_MANY_SEGMENT_DESCRIPTORS(SenseKey.ILLEGAL_REQUEST, 0x26, 0x08),
    UNSUPPORTED_SEGMENT_DESCRIPTOR_TYPE_CODE(SenseKey.ILLEGAL_REQUEST, 0x26, 0x09),
    /** The I_T nexus's target port is in a group in the standby state: only a few commands are processed (SPC-4 5.16.2.4.4). */
    LOGICAL_UNIT_NOT_ACCESSIBLE_TARGET_PORT_IN_STANDBY_STATE(SenseKey.NOT_READY, 0x04, 0x0B),
    /** ... in the unavailable state: fewer still (SPC-4 5.16.2.4.5). */
    LOGICAL_UNIT_NOT_ACCESSIBLE_TARGET_PORT_IN_UNAVAILABLE_STATE(SenseKey.NOT_READY, 0x04, 0x0C),
    /** A target port group's state changed (the configuration said so): the initiator asks REPORT TARGET PORT GROUPS. */
    ASYMMETRIC_ACCESS_STATE_CHANGED(SenseKey.UNIT_ATTENTION, 0x2A, 0x06);

    private final int senseKey;
    private final int asc;
    private final int ascq;

    SenseCode(int senseKey, int asc, int ascq) {
        this.senseKey = senseKey;
        this.asc = asc;
        this.ascq = ascq;
    }

    public int senseKey() {
        return senseKey;
    }

    /** Additional sense code. */
    public int asc() {
        return asc;
    }

    /** Additional sense code qualifier. */
    public int ascq() {
        return ascq;
    }
}
