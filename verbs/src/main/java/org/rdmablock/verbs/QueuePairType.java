package org.rdmablock.verbs;

/** Transport service of a queue pair; codes are those of {@code enum ibv_qp_type}. */
public enum QueuePairType {
    /** Reliable connected: every operation, acknowledged, in order. */
    RC(2),
    /** Unreliable connected: SEND and RDMA WRITE only; no acknowledgement, errors at the responder drop the message. */
    UC(3),
    /** Unreliable datagram: SEND only, to any UD QP through an address handle; each receive starts with 40 bytes of GRH. */
    UD(4);

    public final int code;

    QueuePairType(final int code) {
        this.code = code;
    }

    /** True for RC and UC. */
    public boolean isConnected() {
        return this != UD;
    }

    /** Whether this transport carries the given operation (UC: no READ or atomics; UD: SENDs only). */
    public boolean supports(final SendOpcode opcode) {
        return switch (this) {
            case RC -> true;
            case UC -> !opcode.needsResponse();
            case UD -> opcode == SendOpcode.SEND || opcode == SendOpcode.SEND_WITH_IMM;
        };
    }
}
