package org.rdmablock.protocol.scsi;

/** How a {@link BlockBackend} operation ended; the LUN engine maps each failure to sense data. */
public enum BackendStatus {
    /** Done: data read, written (durably if FUA was asked), flushed or unmapped. */
    OK,
    /** The medium could not be read or written: MEDIUM ERROR. */
    IO_ERROR,
    /** A thin backend ran out of space for a write: DATA PROTECT, SPACE ALLOCATION FAILED WRITE PROTECT. */
    NO_SPACE,
    /** Anything else (a bug, a closed backend): HARDWARE ERROR, INTERNAL TARGET FAILURE. */
    INTERNAL_ERROR
}
