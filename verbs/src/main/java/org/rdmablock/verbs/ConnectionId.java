package org.rdmablock.verbs;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * One end of an RDMA connection ({@code struct rdma_cm_id}): created by {@link ConnectionManager#resolve} on
 * the active side or delivered by {@link ConnectionListener#nextRequest} on the passive side. It owns the
 * connected QP's transitions: {@link #createQueuePair} leaves the QP in INIT (receives may be posted before
 * the connection is up), connect/accept move it to RTS, and a disconnect from either side moves it to ERR,
 * which flushes its outstanding work.
 */
public interface ConnectionId extends AutoCloseable {
    /** Life cycle of an id. */
    enum State {
        /** Active side: address resolved, not connected yet. */
        RESOLVED,
        /** Passive side: a request waits to be accepted or rejected. */
        REQUESTED,
        /** Established: the QP is in RTS. */
        CONNECTED,
        /** Rejected by the passive side (or nobody listened), or rejected by us. */
        REJECTED,
        /**
         * Disconnected by either side, the peer vanished or the device went away ({@link #disconnectReason()}), or
         * a connect or accept failed without a rejection.
         */
        DISCONNECTED
    }

    /** The connection manager messages that carry private data: their limits differ ({@link #maxPrivateDataLength}). */
    enum CmMessage {
        /** The request sent by {@link #connect} (IB CM REQ, MPA Request). */
        REQUEST,
        /** The reply sent by {@link #accept(ConnectionParameters, Duration)} (IB CM REP, MPA Reply). */
        REPLY,
        /** The reject sent by {@link #reject} (IB CM REJ, MPA Reply with the reject bit). */
        REJECT
    }

    /** The device context the connection runs on: create the PD, CQs and QP from it. */
    DeviceContext context();

    State state();

    /** Creates the QP of this connection (rdma_create_qp) and moves it to INIT. RC or UC. */
    QueuePair createQueuePair(ProtectionDomain pd, QueuePairInitAttributes attributes);

    /** The QP created by {@link #createQueuePair}, or null. */
    QueuePair queuePair();

    /** How long {@link #accept(ConnectionParameters)} waits for the connection to be established. */
    Duration DEFAULT_ACCEPT_TIMEOUT = Duration.ofSeconds(10);

    /**
     * Active side: connects (rdma_connect) and waits until established. A connect that fails leaves the id
     * {@link State#REJECTED} (the peer's side rejected) or {@link State#DISCONNECTED} (anything else, reported to
     * {@link #onDisconnect} handlers), its QP in ERR; close it and resolve again to retry.
     *
     * @param timeout how long to wait for the peer's answer (positive)
     * @throws ConnectionRejectedException when the peer's side rejects: {@link ConnectionFailedException.Reason#CONSUMER_REJECT}
     *                                     with the peer's private data, or {@link ConnectionFailedException.Reason#NO_LISTENER}
     *                                     when nobody listens there (errno ECONNREFUSED)
     * @throws ConnectionFailedException   when no answer came ({@link ConnectionFailedException.Reason#TIMEOUT},
     *                                     {@link ConnectionFailedException.Reason#UNREACHABLE}) or the exchange failed
     *                                     ({@link ConnectionFailedException.Reason#CONNECT_ERROR})
     * @throws VerbsException              EINVAL in a wrong state, without a QP, for a bad parameter or private data
     *                                     over {@code maxPrivateDataLength(REQUEST)} (before anything is sent)
     */
    void connect(ConnectionParameters parameters, Duration timeout);

    /**
     * Passive side: accepts the request (rdma_accept) and waits until the connection is established: on IB/RoCE
     * until the active side's RTU arrives, on iWARP (and the soft provider) until the MPA reply is sent and, in
     * peer-to-peer mode, the peer's first message (its ready-to-receive) has arrived. A timed-out or failed accept
     * leaves the id {@link State#DISCONNECTED} with {@link DisconnectReason#TRANSPORT_TIMEOUT} (after a timeout) or
     * {@link DisconnectReason#CONNECTION_LOST}, its QP in ERR; should the peer complete the connection later, it is
     * disconnected at once.
     *
     * @param timeout how long to wait for the connection to be established (positive)
     * @throws ConnectionFailedException {@link ConnectionFailedException.Reason#TIMEOUT} (errno ETIMEDOUT) when it was
     *                                   not established within {@code timeout}; another reason when the peer went away
     *                                   or rejected meanwhile
     * @throws VerbsException            EINVAL in a wrong state, without a QP, for a bad parameter or private data over
     *                                   {@code maxPrivateDataLength(REPLY)} (before anything is sent)
     */
    void accept(ConnectionParameters parameters, Duration timeout);

    /** {@link #accept(ConnectionParameters, Duration)} with {@link #DEFAULT_ACCEPT_TIMEOUT} (10 s). */
    default void accept(final ConnectionParameters parameters) {
        accept(parameters, DEFAULT_ACCEPT_TIMEOUT);
    }

    /**
     * Passive side: rejects the request (rdma_reject) with private data; the active side's connect fails with a
     * {@link ConnectionRejectedException} of reason {@link ConnectionFailedException.Reason#CONSUMER_REJECT}.
     *
     * @throws VerbsException EINVAL in a wrong state, or for private data over {@code maxPrivateDataLength(REJECT)}
     *                        (before anything is sent)
     */
    void reject(byte[] privateData);

    /**
     * The most private data, in bytes, that {@code message} carries on this connection's transport; more is refused
     * with EINVAL before anything is sent. The peer may receive it padded with zeros to the message's size.
     *
     * <table>
     * <caption>Private data limits</caption>
     * <tr><th>transport</th><th>REQUEST</th><th>REPLY</th><th>REJECT</th><th>why</th></tr>
     * <tr><td>IB, RoCE (native)</td><td>56</td><td>196</td><td>148</td><td>the IB CM REQ, REP and REJ carry 92, 196
     *     and 148 bytes; rdma_cm puts its 36-byte address header in the REQ's</td></tr>
     * <tr><td>iWARP (native)</td><td>252</td><td>252</td><td>252</td><td>MPA private data is capped at 256 bytes
     *     (RDMA_MAX_PRIVATE_DATA, siw's MPA_MAX_PRIVDATA), of which the RFC 6581 IRD/ORD block takes 4</td></tr>
     * <tr><td>soft</td><td>252</td><td>252 (256 to a revision 1 request)</td><td>as REPLY</td><td>the same MPA
     *     limit; a revision 1 exchange has no RFC 6581 block</td></tr>
     * </table>
     */
    int maxPrivateDataLength(CmMessage message);

    /**
     * Private data from the peer: on the passive side the request's, on the active side the accept's. Empty
     * when none.
     */
    byte[] privateData();

    /**
     * The RDMA READ and atomic depths of this connection as its exchange settled them: the peer's from the request
     * (passive side, known in {@link State#REQUESTED}) or the accept (active side, known once
     * {@link State#CONNECTED}), this side's once connected. Unknown values are -1.
     */
    ReadDepths readDepths();

    /**
     * READ/atomic depths of a connection. This side's may differ from what {@link ConnectionParameters} asked: on
     * IB/RoCE the active side's QP takes the accept's values (its ORD the accept's {@code responder_resources},
     * its IRD the accept's {@code initiator_depth}); the soft provider, as RFC 6581 asks, raises the passive side's
     * IRD to the request's ORD and keeps each ORD within the peer's IRD. Size a READ pipeline with
     * {@link #initiatorDepth()}.
     *
     * @param responderResources     this side's IRD: READ/atomic requests its QP accepts in flight; -1 until connected
     * @param initiatorDepth         this side's ORD: READ/atomic requests its QP may issue in flight; -1 until connected
     * @param peerResponderResources the IRD the peer announced ({@code responder_resources}): the most this side
     *                               should have outstanding; -1 while unknown
     * @param peerInitiatorDepth     the ORD the peer announced ({@code initiator_depth}), which this side's IRD
     *                               should cover; -1 while unknown
     */
    record ReadDepths(int responderResources, int initiatorDepth, int peerResponderResources, int peerInitiatorDepth) {
        /** Nothing known yet. */
        public static final ReadDepths UNKNOWN = new ReadDepths(-1, -1, -1, -1);

        /** These depths with the peer's IRD and ORD as it announced them. */
        public ReadDepths withPeer(final int ird, final int ord) {
            return new ReadDepths(responderResources, initiatorDepth, ird, ord);
        }

        /** These depths with this side's IRD and ORD as its QP got them. */
        public ReadDepths withLocal(final int ird, final int ord) {
            return new ReadDepths(ird, ord, peerResponderResources, peerInitiatorDepth);
        }
    }

    /** Disconnects (rdma_disconnect): the QP moves to ERR on both sides and the peer sees DISCONNECTED. */
    void disconnect();

    /**
     * Sets a handler run once when the connection ends, by either side or because the peer vanished
     * ({@code RDMA_CM_EVENT_DISCONNECTED}, {@code RDMA_CM_EVENT_DEVICE_REMOVAL}); {@link #disconnectReason()} says
     * why when it runs. Runs on a provider thread; must not block. If the connection has already ended, runs at
     * once.
     */
    void onDisconnect(Consumer<ConnectionId> handler);

    /**
     * Why the connection ended, or null while it has not: {@link DisconnectReason#LOCAL_DISCONNECT} after
     * {@link #disconnect()} or {@link #close()} here, {@link DisconnectReason#PEER_DISCONNECTED} when the peer
     * did so, {@link DisconnectReason#DEVICE_REMOVED} when the device went away. Set before the
     * {@link #onDisconnect} handlers run and before {@link #awaitDisconnect} returns true.
     */
    DisconnectReason disconnectReason();

    /** Waits until the connection has ended; true if it has, false if {@code timeout} passed first. */
    boolean awaitDisconnect(Duration timeout) throws InterruptedException;

    InetSocketAddress localAddress();

    InetSocketAddress remoteAddress();

    /** Disconnects if connected and releases the id (rdma_destroy_id); the QP is destroyed with it. */
    @Override
    void close();
}
