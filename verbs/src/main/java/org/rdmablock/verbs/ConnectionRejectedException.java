package org.rdmablock.verbs;

/**
 * The passive side rejected a connection request ({@code RDMA_CM_EVENT_REJECTED}); carries the private
 * data of the reject (an SRP LOGIN_REJ travels here).
 */
public final class ConnectionRejectedException extends VerbsException {
    private final byte[] privateData;

    public ConnectionRejectedException(final String message, final byte[] privateData) {
        super(ECONNREFUSED, message);
        this.privateData = privateData.clone();
    }

    /** The private data the passive side sent with its reject; empty when none. */
    public byte[] privateData() {
        return privateData.clone();
    }
}
