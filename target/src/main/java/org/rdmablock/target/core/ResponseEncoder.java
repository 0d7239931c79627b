package org.rdmablock.target.core;

import org.rdmablock.protocol.scsi.ScsiCommand;

/**
 * What a protocol front end writes into a command slot's response buffer when the core has a command to answer: the
 * response to a finished command (SRP: SRP_RSP) or to one the command timeout answered. The core then sends it behind
 * the command's data-in. One encoder per slot (it may hold the slot's flyweights); called on the thread that runs the
 * slot at that moment (a backend thread, a blocking-call thread, the intake stage).
 */
public interface ResponseEncoder {
    /** Writes the response to {@code done}, the slot's finished command; returns its length in bytes. */
    int commandResponse(CommandSlot slot, ScsiCommand done);

    /**
     * Writes the response to a command still with its backend after the command timeout: CHECK CONDITION, ABORTED
     * COMMAND, COMMAND TIMEOUT DURING PROCESSING, no data. Returns its length in bytes.
     */
    int timeoutResponse(CommandSlot slot);
}
