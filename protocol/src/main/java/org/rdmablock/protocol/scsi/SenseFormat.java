package org.rdmablock.protocol.scsi;

/**
 * Which sense data format to build: fixed (response code 0x70, the default) or descriptor (0x72),
 * chosen by the D_SENSE bit of the control mode page or the DESC bit of REQUEST SENSE (SPC-4 4.5).
 */
public enum SenseFormat {
    FIXED,
    DESCRIPTOR
}
