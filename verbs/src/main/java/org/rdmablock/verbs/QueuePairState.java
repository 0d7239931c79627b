package org.rdmablock.verbs;

/**
 * State of a queue pair; codes are those of {@code enum ibv_qp_state}. The normal path is
 * RESET → INIT → RTR → RTS; any state may move to ERR (which flushes outstanding work) or RESET.
 */
public enum QueuePairState {
    /** Just created or reset: nothing may be posted. */
    RESET,
    /** Receives may be posted; nothing is processed. */
    INIT,
    /** Ready to receive: incoming messages are processed; sends may not be posted. */
    RTR,
    /** Ready to send: fully operational. */
    RTS,
    /** Send queue drained. */
    SQD,
    /** Send queue error (UC/UD). */
    SQE,
    /** Error: all outstanding and newly posted work requests complete with WR_FLUSH_ERR. */
    ERR;

    private static final QueuePairState[] BY_CODE = values();

    public int code() {
        return ordinal();
    }

    public static QueuePairState of(final int code) {
        return BY_CODE[code];
    }

    /** Receive work requests may be posted in every state but RESET. */
    public boolean canPostReceive() {
        return this != RESET;
    }

    /** Send work requests may be posted in RTS, SQD, SQE and ERR (where they flush). */
    public boolean canPostSend() {
        return this == RTS || this == SQD || this == SQE || this == ERR;
    }

    /**
     * Whether {@code modify} may move a QP from this state to {@code next} (ibv_modify_qp(3): the IB
     * state machine, ignoring SQD/SQE drain details).
     */
    public boolean canMoveTo(final QueuePairState next) {
        if (next == RESET || next == ERR) {
            return true;
        }
        return switch (this) {
            case RESET -> next == INIT;
            case INIT -> next == INIT || next == RTR;
            case RTR -> next == RTS;
            case RTS -> next == RTS || next == SQD;
            case SQD -> next == RTS || next == SQD;
            case SQE -> next == RTS;
            case ERR -> false;
        };
    }
}
