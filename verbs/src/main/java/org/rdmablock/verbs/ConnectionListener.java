package org.rdmablock.verbs;

import java.net.InetSocketAddress;
import java.time.Duration;

/** A listening rdma_cm id: yields incoming connection requests to accept or reject. */
public interface ConnectionListener extends AutoCloseable {
    /** The address listened on (with the real port when 0 was asked for). */
    InetSocketAddress localAddress();

    /**
     * Waits for the next connection request ({@code RDMA_CM_EVENT_CONNECT_REQUEST}).
     *
     * @return an id in state {@link ConnectionId.State#REQUESTED}, or null when {@code timeout} passed first
     */
    ConnectionId nextRequest(Duration timeout) throws InterruptedException;

    /** Stops listening; requests not yet taken are rejected. */
    @Override
    void close();
}
