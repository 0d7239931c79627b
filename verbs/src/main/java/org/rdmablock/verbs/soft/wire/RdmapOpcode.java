package org.rdmablock.verbs.soft.wire;

/**
 * RDMAP message opcodes (RFC 5040 §4.3, the RDMAP control field's low four bits) and the RFC 7306 §8 additions,
 * with the untagged queue numbers RDMAP uses (RFC 5040 §5.1; RFC 7306 §6).
 */
public final class RdmapOpcode {
    public static final int RDMA_WRITE = 0x0;
    public static final int READ_REQUEST = 0x1;
    public static final int READ_RESPONSE = 0x2;
    public static final int SEND = 0x3;
    public static final int SEND_WITH_INVALIDATE = 0x4;
    public static final int SEND_WITH_SE = 0x5;
    public static final int SEND_WITH_SE_AND_INVALIDATE = 0x6;
    public static final int TERMINATE = 0x7;
    /** RFC 7306. */
    public static final int ATOMIC_REQUEST = 0xA;
    /** RFC 7306. */
    public static final int ATOMIC_RESPONSE = 0xB;
    /** RFC 7306. */
    public static final int IMMEDIATE_DATA = 0xC;
    /** RFC 7306. */
    public static final int IMMEDIATE_DATA_WITH_SE = 0xD;

    /** Untagged queue of Sends and Immediate Data. */
    public static final int QN_SEND = 0;
    /** Untagged queue of RDMA Read Requests. */
    public static final int QN_READ_REQUEST = 1;
    /** Untagged queue of Terminate messages. */
    public static final int QN_TERMINATE = 2;
    /** Untagged queue of Atomic Requests and Responses (RFC 7306). */
    public static final int QN_ATOMIC = 3;
    /** Number of untagged queues. */
    public static final int QUEUE_COUNT = 4;

    private RdmapOpcode() {
    }

    /** Whether messages of this opcode are tagged (placed by STag and offset). */
    public static boolean isTagged(final int opcode) {
        return opcode == RDMA_WRITE || opcode == READ_RESPONSE;
    }

    /** The untagged queue an untagged opcode travels on, or -1 for a tagged or unknown one. */
    public static int queueOf(final int opcode) {
        return switch (opcode) {
            case SEND, SEND_WITH_INVALIDATE, SEND_WITH_SE, SEND_WITH_SE_AND_INVALIDATE, IMMEDIATE_DATA, IMMEDIATE_DATA_WITH_SE -> QN_SEND;
            case READ_REQUEST -> QN_READ_REQUEST;
            case TERMINATE -> QN_TERMINATE;
            case ATOMIC_REQUEST, ATOMIC_RESPONSE -> QN_ATOMIC;
            default -> -1;
        };
    }

    /** Whether the opcode is a Send variant (consumes a receive buffer with its payload). */
    public static boolean isSend(final int opcode) {
        return opcode >= SEND && opcode <= SEND_WITH_SE_AND_INVALIDATE;
    }

    public static boolean hasSolicitedEvent(final int opcode) {
        return opcode == SEND_WITH_SE || opcode == SEND_WITH_SE_AND_INVALIDATE || opcode == IMMEDIATE_DATA_WITH_SE;
    }

    public static boolean hasInvalidate(final int opcode) {
        return opcode == SEND_WITH_INVALIDATE || opcode == SEND_WITH_SE_AND_INVALIDATE;
    }
}
