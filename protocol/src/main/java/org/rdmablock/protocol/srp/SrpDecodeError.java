package org.rdmablock.protocol.srp;

/**
 * Why a received IU was refused, or {@link #NONE}. A defined result instead of an exception, so that a
 * receive path can answer a malformed IU (a T_LOGOUT, a LOGIN_REJ, dropping the channel) without
 * unwinding.
 */
public enum SrpDecodeError {
    /** The IU is well formed. */
    NONE,
    /** The offset and length given to the decoder do not lie inside the segment. */
    OUTSIDE_BUFFER,
    /** Fewer bytes than the fixed part of the IU for its opcode. */
    TOO_SHORT,
    /** The opcode is not an SRP IU type. */
    UNKNOWN_OPCODE,
    /** The IU does not carry the opcode of the flyweight asked to validate it. */
    WRONG_OPCODE,
    /** SRP_CMD: the additional CDB runs past the IU. */
    ADDITIONAL_CDB_PAST_END,
    /** SRP_CMD: the data-out buffer descriptor format is not 0 to 3. */
    BAD_DATA_OUT_FORMAT,
    /** SRP_CMD: the data-in buffer descriptor format is not 0 to 2 (immediate data is data-out only). */
    BAD_DATA_IN_FORMAT,
    /** SRP_CMD: a direct or indirect buffer descriptor, or its descriptor list, runs past the IU. */
    DESCRIPTOR_PAST_END,
    /** SRP_CMD: the indirect table length is not a multiple of 16, or the IU holds more descriptors than it. */
    BAD_INDIRECT_TABLE,
    /** SRP_CMD: the descriptors in a complete indirect table do not add up to its total length. */
    INDIRECT_LENGTH_MISMATCH,
    /** SRP_CMD: immediate data was used on a channel that did not negotiate it. */
    IMMEDIATE_DATA_NOT_NEGOTIATED,
    /** SRP_CMD: the immediate-data descriptor overlaps the immediate data, or the data runs past the IU. */
    IMMEDIATE_DATA_PAST_END,
    /** SRP_RSP / SRP_AER_REQ: response or sense data lengths run past the IU. */
    DATA_LENGTH_PAST_END
}
