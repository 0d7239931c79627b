package org.rdmablock.verbs;

/**
 * The peer's side rejected a connection request ({@code RDMA_CM_EVENT_REJECTED}, a refused TCP connection, an MPA
 * reject): errno ECONNREFUSED, {@link #reason()} {@link Reason#CONSUMER_REJECT} when the peer's application
 * rejected (its private data, an SRP LOGIN_REJ say, in {@link #privateData()}), {@link Reason#NO_LISTENER} when
 * nobody listens there, {@link Reason#TRANSPORT_REJECT} when the peer's connection manager refused on its own.
 */
public final class ConnectionRejectedException extends ConnectionFailedException {
    private final byte[] privateData;

    /**
     * @param reason      {@link Reason#CONSUMER_REJECT}, {@link Reason#NO_LISTENER} or {@link Reason#TRANSPORT_REJECT}
     * @param status      the rdma_cm event's status (see {@link #status()}), 0 when none
     * @param message     what was attempted
     * @param privateData the reject's private data (IB/RoCE pad it with zeros to 148 bytes); empty when none
     */
    public ConnectionRejectedException(final Reason reason, final int status, final String message, final byte[] privateData) {
        super(reason, ECONNREFUSED, status, message);
        this.privateData = privateData.clone();
    }

    /** The private data the passive side sent with its reject; empty when none (always for NO_LISTENER). */
    public byte[] privateData() {
        return privateData.clone();
    }
}
