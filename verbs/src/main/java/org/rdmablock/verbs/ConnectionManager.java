package org.rdmablock.verbs;

import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * Connection setup for RC and UC queue pairs in the spirit of rdma_cm(7): the passive side listens on an IP
 * address and port, the active side resolves the peer, creates its QP on the device that reaches it and
 * connects; both exchange private data (at least 56 bytes each way: the SRP login of rdma_cm, 56 bytes, travels
 * there; see {@link ConnectionId#maxPrivateDataLength(ConnectionId.CmMessage)}).
 *
 * <pre>
 *  passive:  listener = cm.listen(addr, 16)             active:  id = cm.resolve(addr, timeout)
 *            req = listener.nextRequest(timeout)                 qp = id.createQueuePair(pd, attrs)
 *            qp  = req.createQueuePair(pd, attrs)                id.connect(params, timeout)   ← accept or reject
 *            req.accept(params) / req.reject(data)
 * </pre>
 */
public interface ConnectionManager {
    /**
     * The most private data that every connect, accept and reject carries on every device of this provider: 252
     * for the soft provider, 56 for the native one (an IB/RoCE request's). A connection's own limits, per message,
     * are {@link ConnectionId#maxPrivateDataLength(ConnectionId.CmMessage)}.
     */
    int maxPrivateDataLength();

    /**
     * Listens for connection requests (rdma_bind_addr + rdma_listen).
     *
     * @param address local address; port 0 picks a free port (see {@link ConnectionListener#localAddress()})
     */
    ConnectionListener listen(InetSocketAddress address, int backlog);

    /**
     * Resolves the address and route to a peer (rdma_resolve_addr + rdma_resolve_route) and returns an
     * unconnected id bound to the local device that reaches it.
     */
    ConnectionId resolve(InetSocketAddress remote, Duration timeout);
}
