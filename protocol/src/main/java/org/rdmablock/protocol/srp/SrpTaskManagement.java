package org.rdmablock.protocol.srp;

/**
 * SRP_TSK_MGMT, 48 bytes: Linux {@code struct srp_tsk_mgmt} in {@code include/scsi/srp.h}
 * (T10 SRP r16a 6.7). The target answers with an {@link SrpResponse} whose response data carries one of
 * the {@code RSP_*} codes.
 */
public final class SrpTaskManagement extends SrpInformationUnit<SrpTaskManagement> {
    /** Size of the IU. */
    public static final int LENGTH = 48;
    /** Solicited notification flags. */
    public static final int SOL_NOT_OFFSET = 1;
    /** The logical unit number, 8 bytes (only 4-byte aligned on the wire). */
    public static final int LUN_OFFSET = 20;
    /** The task management function code. */
    public static final int FUNCTION_OFFSET = 30;
    /** Tag of the task to manage (ABORT TASK), 8 opaque bytes. */
    public static final int TASK_TAG_OFFSET = 32;

    /** ABORT TASK. */
    public static final int ABORT_TASK = 0x01;
    /** ABORT TASK SET. */
    public static final int ABORT_TASK_SET = 0x02;
    /** CLEAR TASK SET. */
    public static final int CLEAR_TASK_SET = 0x04;
    /** LOGICAL UNIT RESET. */
    public static final int LUN_RESET = 0x08;
    /** CLEAR ACA. */
    public static final int CLEAR_ACA = 0x40;

    /** SRP_RSP response code: function complete (T10 SRP r16a 6.9, table 24). */
    public static final int RSP_COMPLETE = 0x00;
    /** SRP_RSP response code: request fields invalid. */
    public static final int RSP_INVALID_FIELDS = 0x02;
    /** SRP_RSP response code: task management function not supported. */
    public static final int RSP_NOT_SUPPORTED = 0x04;
    /** SRP_RSP response code: task management function failed. */
    public static final int RSP_FAILED = 0x05;

    public SrpDecodeError validate(long length) {
        return checkFixed(length, LENGTH, SrpOpcode.TSK_MGMT);
    }

    /** Zeroes the IU and sets its opcode. */
    public SrpTaskManagement reset() {
        clear(LENGTH);
        putU8(OPCODE_OFFSET, SrpOpcode.TSK_MGMT);
        return this;
    }

    public int solicitedNotification() {
        return u8(SOL_NOT_OFFSET);
    }

    public SrpTaskManagement setSolicitedNotification(int flags) {
        putU8(SOL_NOT_OFFSET, flags);
        return this;
    }

    /** The 8 LUN bytes as a big-endian long (see {@code org.rdmablock.protocol.scsi.LunAddress}). */
    public long lun() {
        return s64(LUN_OFFSET);
    }

    public SrpTaskManagement setLun(long lun) {
        put64(LUN_OFFSET, lun);
        return this;
    }

    public int function() {
        return u8(FUNCTION_OFFSET);
    }

    public SrpTaskManagement setFunction(int function) {
        putU8(FUNCTION_OFFSET, function);
        return this;
    }

    /** The managed task's tag, opaque like {@link #tag()} (native order). */
    public long taskTag() {
        return segment.get(TAG, offset + TASK_TAG_OFFSET);
    }

    public SrpTaskManagement setTaskTag(long tag) {
        segment.set(TAG, offset + TASK_TAG_OFFSET, tag);
        return this;
    }
}
