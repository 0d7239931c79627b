package org.rdmablock.protocol.scsi;

/** Sense keys (SPC-4 4.5.6, table 27): the coarse class of a CHECK CONDITION. */
public final class SenseKey {
    public static final int NO_SENSE = 0x0;
    public static final int RECOVERED_ERROR = 0x1;
    public static final int NOT_READY = 0x2;
    public static final int MEDIUM_ERROR = 0x3;
    public static final int HARDWARE_ERROR = 0x4;
    public static final int ILLEGAL_REQUEST = 0x5;
    public static final int UNIT_ATTENTION = 0x6;
    public static final int DATA_PROTECT = 0x7;
    /** An EXTENDED COPY ended for a reason of its copy targets' (one it could not reach, say). */
    public static final int COPY_ABORTED = 0xA;
    public static final int ABORTED_COMMAND = 0xB;
    /** The source data did not match the medium (VERIFY with a byte check, COMPARE AND WRITE). */
    public static final int MISCOMPARE = 0xE;

    private SenseKey() {
    }
}
