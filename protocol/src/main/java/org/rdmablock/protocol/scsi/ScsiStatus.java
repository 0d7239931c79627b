package org.rdmablock.protocol.scsi;

/** SCSI status codes (SAM-5 5.3), the byte that ends every command. */
public final class ScsiStatus {
    public static final int GOOD = 0x00;
    public static final int CHECK_CONDITION = 0x02;
    public static final int CONDITION_MET = 0x04;
    public static final int BUSY = 0x08;
    public static final int RESERVATION_CONFLICT = 0x18;
    public static final int TASK_SET_FULL = 0x28;
    public static final int ACA_ACTIVE = 0x30;
    public static final int TASK_ABORTED = 0x40;

    private ScsiStatus() {
    }
}
