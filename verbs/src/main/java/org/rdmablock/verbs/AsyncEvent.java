package org.rdmablock.verbs;

/**
 * An asynchronous event ({@code struct ibv_async_event}): an error or state change not tied to a work request.
 *
 * @param type  what happened
 * @param qp    the affected QP for QP events, else null
 * @param cq    the affected CQ for CQ events, else null
 * @param srq   the affected SRQ for SRQ events, else null
 * @param port  the affected port for port events, else 0
 */
public record AsyncEvent(Type type, QueuePair qp, CompletionQueue cq, SharedReceiveQueue srq, int port) {
    /** Event types; codes are those of {@code enum ibv_event_type}. */
    public enum Type {
        CQ_ERR, QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, COMM_EST, SQ_DRAINED, PATH_MIG, PATH_MIG_ERR, DEVICE_FATAL,
        PORT_ACTIVE, PORT_ERR, LID_CHANGE, PKEY_CHANGE, SM_CHANGE, SRQ_ERR, SRQ_LIMIT_REACHED, QP_LAST_WQE_REACHED,
        CLIENT_REREGISTER, GID_CHANGE, WQ_FATAL;

        public int code() {
            return ordinal();
        }
    }

    public static AsyncEvent ofQp(final Type type, final QueuePair qp) {
        return new AsyncEvent(type, qp, null, null, 0);
    }

    public static AsyncEvent ofCq(final Type type, final CompletionQueue cq) {
        return new AsyncEvent(type, null, cq, null, 0);
    }

    public static AsyncEvent ofSrq(final Type type, final SharedReceiveQueue srq) {
        return new AsyncEvent(type, null, null, srq, 0);
    }

    public static AsyncEvent ofPort(final Type type, final int port) {
        return new AsyncEvent(type, null, null, null, port);
    }

    public static AsyncEvent ofDevice(final Type type) {
        return new AsyncEvent(type, null, null, null, 0);
    }
}
