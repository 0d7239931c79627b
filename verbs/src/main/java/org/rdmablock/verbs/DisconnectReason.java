package org.rdmablock.verbs;

/**
 * Why a connection ended, as {@link ConnectionId#disconnectReason()} reports it: a peer that left in order can be
 * reconnected to at once, a removed device cannot be used again, a connection that failed or timed out may need
 * its peer looked at. New values may be added as providers learn to tell more causes apart; treat an unknown one
 * like {@link #CONNECTION_LOST}.
 */
public enum DisconnectReason {
    /**
     * The peer disconnected or closed its end in order: rdma_cm's {@code RDMA_CM_EVENT_DISCONNECTED} after the
     * peer's DREQ (IB/RoCE) or close (iWARP); the soft provider's TCP connection closed by the peer.
     */
    PEER_DISCONNECTED,
    /** This side ended the connection: {@link ConnectionId#disconnect()} or {@link ConnectionId#close()}. */
    LOCAL_DISCONNECT,
    /**
     * The RDMA device went away ({@code RDMA_CM_EVENT_DEVICE_REMOVAL}; the soft provider's device closed with its
     * provider). Everything made on the device must be closed; nothing on it works again.
     */
    DEVICE_REMOVED,
    /** The transport failed without an orderly close: an abortive close (iWARP status -ECONNRESET), a reset. */
    CONNECTION_LOST,
    /**
     * The peer stopped answering: a disconnect request that timed out (IB status -ETIMEDOUT), an accepted
     * connection the peer never completed ({@link ConnectionId#accept(ConnectionParameters, java.time.Duration)}
     * timed out), or a provider's liveness check that gave up on a silent peer.
     */
    TRANSPORT_TIMEOUT
}
