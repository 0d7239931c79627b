package org.rdmablock.initiator;

import org.rdmablock.protocol.scsi.SenseCode;

/**
 * The target answered a command with a SCSI status other than GOOD. For CHECK CONDITION the sense data is decoded:
 * sense key, additional sense code and qualifier, and the message says them in words (SPC-4 annex D) where they are
 * ones a block target reports.
 */
public final class ScsiStatusException extends SrpIoException {
    private final int status;
    private final int senseKey;
    private final int asc;
    private final int ascq;

    ScsiStatusException(final String operation, final int status, final int senseKey, final int asc, final int ascq) {
        super(operation + ": " + describe(status, senseKey, asc, ascq));
        this.status = status;
        this.senseKey = senseKey;
        this.asc = asc;
        this.ascq = ascq;
    }

    /** The SCSI status byte (0x02 CHECK CONDITION, 0x08 BUSY, 0x18 RESERVATION CONFLICT, 0x28 TASK SET FULL...). */
    public int status() {
        return status;
    }

    /** The sense key, or -1 without sense data. */
    public int senseKey() {
        return senseKey;
    }

    /** The additional sense code, or -1 without sense data. */
    public int asc() {
        return asc;
    }

    /** The additional sense code qualifier, or -1 without sense data. */
    public int ascq() {
        return ascq;
    }

    /** Whether repeating the command may succeed: BUSY, TASK SET FULL, UNIT ATTENTION, ABORTED COMMAND. */
    public boolean retryable() {
        return status == 0x08 || status == 0x28 || senseKey == 0x06 || senseKey == 0x0B;
    }

    static String describe(final int status, final int senseKey, final int asc, final int ascq) {
        final String statusText = switch (status) {
            case 0x02 -> "CHECK CONDITION";
            case 0x08 -> "BUSY";
            case 0x18 -> "RESERVATION CONFLICT";
            case 0x28 -> "TASK SET FULL";
            case 0x30 -> "ACA ACTIVE";
            case 0x40 -> "TASK ABORTED";
            default -> String.format("status 0x%02x", status);
        };
        if (senseKey < 0) {
            return statusText;
        }
        final String condition = conditionText(senseKey, asc, ascq);
        return String.format("%s, %s, %s (ASC/ASCQ %02Xh/%02Xh)", statusText, senseKeyText(senseKey),
                condition != null ? condition : "additional sense", asc, ascq);
    }

    private static String senseKeyText(final int key) {
        return switch (key) {
            case 0x0 -> "NO SENSE";
            case 0x1 -> "RECOVERED ERROR";
            case 0x2 -> "NOT READY";
            case 0x3 -> "MEDIUM ERROR";
            case 0x4 -> "HARDWARE ERROR";
            case 0x5 -> "ILLEGAL REQUEST";
            case 0x6 -> "UNIT ATTENTION";
            case 0x7 -> "DATA PROTECT";
            case 0x8 -> "BLANK CHECK";
            case 0xB -> "ABORTED COMMAND";
            case 0xD -> "VOLUME OVERFLOW";
            case 0xE -> "MISCOMPARE";
            default -> String.format("sense key 0x%x", key);
        };
    }

    /** The words for an ASC/ASCQ the protocol module knows (every condition our target reports), else null. */
    private static String conditionText(final int key, final int asc, final int ascq) {
        for (final SenseCode code : SenseCode.values()) {
            if (code.asc() == asc && code.ascq() == ascq) {
                return code.name().replace('_', ' ');
            }
        }
        return switch ((asc << 8) | ascq) {
            case 0x2900 -> "POWER ON, RESET, OR BUS DEVICE RESET OCCURRED";
            case 0x0400 -> "LOGICAL UNIT NOT READY";
            case 0x2A01 -> "MODE PARAMETERS CHANGED";
            case 0x4700 -> "SCSI PARITY ERROR";
            default -> null;
        };
    }
}
