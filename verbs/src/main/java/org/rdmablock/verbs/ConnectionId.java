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
        /** Rejected by the passive side, or rejected by us. */
        REJECTED,
        /** Disconnected by either side, or the peer vanished. */
        DISCONNECTED
    }

    /** The device context the connection runs on: create the PD, CQs and QP from it. */
    DeviceContext context();

    State state();

    /** Creates the QP of this connection (rdma_create_qp) and moves it to INIT. RC or UC. */
    QueuePair createQueuePair(ProtectionDomain pd, QueuePairInitAttributes attributes);

    /** The QP created by {@link #createQueuePair}, or null. */
    QueuePair queuePair();

    /**
     * Active side: connects (rdma_connect) and waits until established.
     *
     * @throws ConnectionRejectedException when the peer rejects, with the peer's private data
     * @throws VerbsException ETIMEDOUT or ECONNREFUSED when no connection could be made
     */
    void connect(ConnectionParameters parameters, Duration timeout);

    /** Passive side: accepts the request (rdma_accept); the connection is established on return. */
    void accept(ConnectionParameters parameters);

    /** Passive side: rejects the request (rdma_reject) with private data. */
    void reject(byte[] privateData);

    /**
     * Private data from the peer: on the passive side the request's, on the active side the accept's. Empty
     * when none.
     */
    byte[] privateData();

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
