package org.rdmablock.verbs.ibv;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.ConnectionListener;
import org.rdmablock.verbs.ibv.bindings.Rdma;

/** A listening rdma_cm id: rdma_bind_addr + rdma_listen; CONNECT_REQUEST events become ids to accept or reject. */
final class IbvConnectionListener implements ConnectionListener {
    private final IbvConnectionManager manager;
    final MemorySegment id;
    private final InetSocketAddress localAddress;
    private final LinkedBlockingQueue<IbvConnectionId> requests = new LinkedBlockingQueue<>();
    private boolean closed;

    IbvConnectionListener(final IbvConnectionManager manager, final InetSocketAddress address, final int backlog) {
        this.manager = manager;
        this.id = manager.createId();
        try (Arena scratch = Arena.ofConfined()) {
            IbvConnectionId.checkCm(Native.errnoOf(IbvConnectionManager.BIND_ADDR, "rdma_bind_addr", id,
                IbvConnectionManager.sockaddr(scratch, address)), "rdma_bind_addr(" + address + ")");
            IbvConnectionId.checkCm(Native.errnoOf(IbvConnectionManager.LISTEN, "rdma_listen", id, backlog), "rdma_listen");
        } catch (final RuntimeException e) {
            Rdma.rdma_destroy_id(id);
            throw e;
        }
        localAddress = IbvConnectionManager.localAddress(id);
        manager.register(this);
    }

    /** Dispatcher thread, before the CONNECT_REQUEST event is acknowledged. */
    void request(final MemorySegment newId, final IbvConnectionManager.Event event) {
        requests.add(new IbvConnectionId(manager, newId.reinterpret(org.rdmablock.verbs.ibv.bindings.rdma_cm_id.sizeof()), event));
    }

    @Override
    public InetSocketAddress localAddress() {
        return localAddress;
    }

    @Override
    public ConnectionId nextRequest(final Duration timeout) throws InterruptedException {
        return requests.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        manager.unregister(this);
        IbvConnectionId pending;
        while ((pending = requests.poll()) != null) {
            pending.close(); // rejects the request
        }
        Rdma.rdma_destroy_id(id);
    }
}
