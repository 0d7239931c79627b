package org.rdmablock.verbs;

/**
 * A connection could not be made or completed: thrown by {@link ConnectionManager#resolve},
 * {@link ConnectionId#connect} and {@link ConnectionId#accept(ConnectionParameters, java.time.Duration)}. The
 * {@link #reason()} tells a caller that reconnects what happened without parsing the message: nobody listens
 * there (try again later, or elsewhere), the peer's application said no (read its private data), the peer or the
 * network did not answer. A rejection by the peer is a {@link ConnectionRejectedException}.
 */
public class ConnectionFailedException extends VerbsException {
    /** Why a connection failed, from rdma_cm's event and status (and the soft provider's TCP and MPA outcome). */
    public enum Reason {
        /**
         * The peer's application rejected the request ({@link ConnectionId#reject}): IB/RoCE CM REJ with reason 28
         * (consumer defined), iWARP {@code RDMA_CM_EVENT_REJECTED} with status -ECONNREFUSED (an MPA reject), the
         * soft provider's MPA reject. The reject's private data is in
         * {@link ConnectionRejectedException#privateData()}.
         */
        CONSUMER_REJECT,
        /**
         * Nobody listens at the address and port: IB/RoCE CM REJ with reason 8 (invalid service ID), a TCP
         * connection refused (iWARP, whose rdma_connect fails with ECONNREFUSED; the soft provider).
         */
        NO_LISTENER,
        /**
         * The peer's connection manager rejected the request for a reason of its own (another IB CM reject reason,
         * e.g. 1 no QP, 10 stale connection; iWARP -ECONNRESET during MPA); {@link #status()} holds it.
         */
        TRANSPORT_REJECT,
        /**
         * The peer or the route did not answer: {@code RDMA_CM_EVENT_UNREACHABLE} (the IB CM gave up resending its
         * REQ or REP, status -ETIMEDOUT), address or route resolution errors, no route to the host.
         */
        UNREACHABLE,
        /** The caller's timeout passed before the exchange finished (ETIMEDOUT). */
        TIMEOUT,
        /**
         * The exchange failed after an answer: {@code RDMA_CM_EVENT_CONNECT_ERROR} (e.g. the QP could not be moved
         * to RTR/RTS), a peer that broke the MPA protocol or closed during it, the device went away meanwhile.
         */
        CONNECT_ERROR
    }

    private final Reason reason;
    private final int status;

    /**
     * @param reason  why the connection failed
     * @param errno   errno of the failure (ECONNREFUSED, ETIMEDOUT, ...)
     * @param status  the rdma_cm event's status (an IB CM reject reason, or a negative errno), 0 when none
     * @param message what was attempted and what happened
     */
    public ConnectionFailedException(final Reason reason, final int errno, final int status, final String message) {
        super(errno, message);
        this.reason = reason;
        this.status = status;
    }

    /** Why the connection failed. */
    public Reason reason() {
        return reason;
    }

    /**
     * The status of the rdma_cm event that ended the attempt: for {@code RDMA_CM_EVENT_REJECTED} on IB/RoCE the IB
     * CM reject reason (28 consumer defined, 8 invalid service ID, ...), elsewhere a negative errno; 0 when no
     * event carried one (the soft provider, a timeout).
     */
    public int status() {
        return status;
    }
}
