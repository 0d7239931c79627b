package org.rdmablock.initiator;

import java.io.IOException;

/**
 * A block operation that failed: the channel was lost or logged out, or the target answered with a SCSI status
 * other than GOOD ({@link ScsiStatusException}, with its sense data in words).
 */
public class SrpIoException extends IOException {
    /** @param message what failed and why, in words */
    public SrpIoException(final String message) {
        super(message);
    }

    /** @param message what failed and why, in words; @param cause the underlying failure */
    public SrpIoException(final String message, final Throwable cause) {
        super(message, cause);
    }
}
