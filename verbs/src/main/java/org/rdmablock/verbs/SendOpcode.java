package org.rdmablock.verbs;

/** The operation of a send work request; codes are those of {@code enum ibv_wr_opcode}. */
public enum SendOpcode {
    RDMA_WRITE(0),
    RDMA_WRITE_WITH_IMM(1),
    SEND(2),
    SEND_WITH_IMM(3),
    RDMA_READ(4),
    ATOMIC_CMP_AND_SWP(5),
    ATOMIC_FETCH_AND_ADD(6),
    /** Invalidate a memory window's rkey locally. */
    LOCAL_INV(7),
    /** Bind a type 2 memory window to a range of a memory region. */
    BIND_MW(8),
    /** SEND that invalidates a remote rkey at the receiver. */
    SEND_WITH_INV(9);

    private static final SendOpcode[] BY_CODE = values();

    /** The libibverbs value. */
    public final int code;

    SendOpcode(final int code) {
        this.code = code;
    }

    /** The opcode for a libibverbs value. */
    public static SendOpcode of(final int code) {
        return BY_CODE[code];
    }

    /** True for operations that transfer data to or from the peer (all but LOCAL_INV and BIND_MW). */
    public boolean isRemote() {
        return this != LOCAL_INV && this != BIND_MW;
    }

    /** True for RDMA READ and the atomics: they need a response and count against the initiator depth. */
    public boolean needsResponse() {
        return this == RDMA_READ || this == ATOMIC_CMP_AND_SWP || this == ATOMIC_FETCH_AND_ADD;
    }

    /** True for the atomics. */
    public boolean isAtomic() {
        return this == ATOMIC_CMP_AND_SWP || this == ATOMIC_FETCH_AND_ADD;
    }

    /** True for the operations that consume a receive work request at the peer. */
    public boolean consumesReceive() {
        return this == SEND || this == SEND_WITH_IMM || this == SEND_WITH_INV || this == RDMA_WRITE_WITH_IMM;
    }

    /** The completion opcode reported for this operation. */
    public WcOpcode completionOpcode() {
        return switch (this) {
            case RDMA_WRITE, RDMA_WRITE_WITH_IMM -> WcOpcode.RDMA_WRITE;
            case SEND, SEND_WITH_IMM, SEND_WITH_INV -> WcOpcode.SEND;
            case RDMA_READ -> WcOpcode.RDMA_READ;
            case ATOMIC_CMP_AND_SWP -> WcOpcode.COMP_SWAP;
            case ATOMIC_FETCH_AND_ADD -> WcOpcode.FETCH_ADD;
            case LOCAL_INV -> WcOpcode.LOCAL_INV;
            case BIND_MW -> WcOpcode.BIND_MW;
        };
    }
}
