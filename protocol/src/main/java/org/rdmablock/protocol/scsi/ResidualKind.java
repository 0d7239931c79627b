package org.rdmablock.protocol.scsi;

/**
 * How the data a command moved compares with what the transport's descriptors offered (SAM-5 5.4.3;
 * SRP's DIOVER/DIUNDER/DOOVER/DOUNDER flags).
 */
public enum ResidualKind {
    /** Exactly the offered length moved. */
    NONE,
    /** Less moved than was offered; the residual is the unused part. */
    UNDERFLOW,
    /** The command needed more than was offered; the residual is the excess. */
    OVERFLOW
}
