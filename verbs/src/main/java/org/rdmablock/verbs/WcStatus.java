package org.rdmablock.verbs;

/**
 * The status of a work completion; codes and meanings are those of {@code enum ibv_wc_status}
 * (ibv_poll_cq(3)). A failed completion moves its QP to the error state; the work requests behind it complete
 * with {@link #WR_FLUSH_ERR}.
 */
public enum WcStatus {
    SUCCESS,
    /** Local length error: a receive buffer was too small for the incoming message, or a gather list too long. */
    LOC_LEN_ERR,
    /** Local QP operation error: an internal consistency error of the local QP. */
    LOC_QP_OP_ERR,
    LOC_EEC_OP_ERR,
    /** Local protection error: an lkey that is invalid, of another PD, out of its region or lacking the right. */
    LOC_PROT_ERR,
    /** The work request was flushed because its QP moved to the error state. */
    WR_FLUSH_ERR,
    /** A memory window bind failed. */
    MW_BIND_ERR,
    BAD_RESP_ERR,
    LOC_ACCESS_ERR,
    /** Remote invalid request: the responder could not accept the message (e.g. its receive buffer was too small). */
    REM_INV_REQ_ERR,
    /** Remote access error: bad rkey, out of bounds, or a right the remote region does not grant. */
    REM_ACCESS_ERR,
    /** Remote operation error: the responder failed to complete the operation. */
    REM_OP_ERR,
    /** Transport retries ran out: the peer did not answer (vanished). */
    RETRY_EXC_ERR,
    /** Receiver-not-ready retries ran out: the responder had no receive posted. */
    RNR_RETRY_EXC_ERR,
    LOC_RDD_VIOL_ERR,
    REM_INV_RD_REQ_ERR,
    REM_ABORT_ERR,
    INV_EECN_ERR,
    INV_EEC_STATE_ERR,
    FATAL_ERR,
    RESP_TIMEOUT_ERR,
    GENERAL_ERR;

    private static final WcStatus[] BY_CODE = values();

    /** The libibverbs value (the ordinal, as in the C enum). */
    public int code() {
        return ordinal();
    }

    /** The status for a libibverbs value; {@link #GENERAL_ERR} for a value this API does not know. */
    public static WcStatus of(final int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : GENERAL_ERR;
    }
}
