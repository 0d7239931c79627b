package org.rdmablock.verbs;

/** The operation a work completion reports; codes are those of {@code enum ibv_wc_opcode}. */
public enum WcOpcode {
    SEND(0),
    RDMA_WRITE(1),
    RDMA_READ(2),
    COMP_SWAP(3),
    FETCH_ADD(4),
    BIND_MW(5),
    LOCAL_INV(6),
    TSO(7),
    /** A receive work request completed by a SEND (with or without immediate data). */
    RECV(128),
    /** A receive work request consumed by an RDMA WRITE with immediate data. */
    RECV_RDMA_WITH_IMM(129);

    private static final WcOpcode[] SEND_SIDE = {SEND, RDMA_WRITE, RDMA_READ, COMP_SWAP, FETCH_ADD, BIND_MW, LOCAL_INV, TSO};

    /** The libibverbs value. */
    public final int code;

    WcOpcode(final int code) {
        this.code = code;
    }

    /** The opcode for a libibverbs value; null for a value this API does not know. */
    public static WcOpcode of(final int code) {
        if (code >= 0 && code < SEND_SIDE.length) {
            return SEND_SIDE[code];
        }
        return code == 128 ? RECV : code == 129 ? RECV_RDMA_WITH_IMM : null;
    }

    /** True for completions of receive work requests. */
    public boolean isReceive() {
        return code >= 128;
    }
}
