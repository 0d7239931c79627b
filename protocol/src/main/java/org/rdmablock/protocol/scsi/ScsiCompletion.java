package org.rdmablock.protocol.scsi;

/**
 * Receives a finished {@link ScsiCommand}: status, sense data, residuals and the data-in byte count are
 * set. Called exactly once per {@link LogicalUnit#execute}, on the caller's thread for commands that
 * need no I/O and on the backend's completion thread otherwise.
 */
@FunctionalInterface
public interface ScsiCompletion {
    void completed(ScsiCommand command);
}
