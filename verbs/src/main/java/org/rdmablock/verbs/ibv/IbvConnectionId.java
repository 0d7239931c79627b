package org.rdmablock.verbs.ibv;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.ConnectionParameters;
import org.rdmablock.verbs.ConnectionRejectedException;
import org.rdmablock.verbs.DeviceContext;
import org.rdmablock.verbs.DisconnectReason;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.QueuePair;
import org.rdmablock.verbs.QueuePairInitAttributes;
import org.rdmablock.verbs.VerbsException;
import org.rdmablock.verbs.ibv.bindings.Rdma;
import org.rdmablock.verbs.ibv.bindings.rdma_cm_id;
import org.rdmablock.verbs.ibv.bindings.rdma_conn_param;
import org.rdmablock.verbs.spi.DisconnectSignal;

/**
 * An rdma_cm id ({@code struct rdma_cm_id}). The blocking calls (resolve, connect, accept) wait for the events the
 * manager's dispatcher hands to this id; a DISCONNECTED event moves the QP to ERR (rdma_disconnect) and runs the
 * disconnect handlers.
 */
final class IbvConnectionId implements ConnectionId {
    /** How long accept waits for ESTABLISHED. */
    private static final Duration ACCEPT_TIMEOUT = Duration.ofSeconds(10);

    private final IbvConnectionManager manager;
    final MemorySegment id;
    private final LinkedBlockingQueue<IbvConnectionManager.Event> events = new LinkedBlockingQueue<>();
    private final DisconnectSignal disconnected = new DisconnectSignal();
    private volatile State state;
    private volatile byte[] peerPrivateData;
    private volatile IbvQueuePair qp;
    /** This side asked for the end (disconnect or close), so the end is reported as LOCAL_DISCONNECT. */
    private volatile boolean localDisconnect;
    private boolean closed;

    IbvConnectionId(final IbvConnectionManager manager, final MemorySegment id, final IbvConnectionManager.Event request) {
        this.manager = manager;
        this.id = id;
        this.state = request == null ? State.RESOLVED : State.REQUESTED;
        this.peerPrivateData = request == null ? new byte[0] : request.privateData();
        manager.register(this);
    }

    static void checkCm(final int rc, final String what) {
        if (rc != 0) {
            throw Native.failure(what, Math.abs(rc) == 1 ? VerbsException.EIO : Math.abs(rc));
        }
    }

    /** Active side: rdma_resolve_addr, then rdma_resolve_route, each confirmed by its event. */
    void resolve(final InetSocketAddress remote, final Duration timeout) {
        try (Arena scratch = Arena.ofConfined()) {
            final int ms = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
            checkCm(Rdma.rdma_resolve_addr(id, MemorySegment.NULL, IbvConnectionManager.sockaddr(scratch, remote), ms), "rdma_resolve_addr");
            expect(IbvConnectionManager.ADDR_RESOLVED, timeout, "address resolution of " + remote);
            checkCm(Rdma.rdma_resolve_route(id, ms), "rdma_resolve_route");
            expect(IbvConnectionManager.ROUTE_RESOLVED, timeout, "route resolution to " + remote);
        }
    }

    /** Waits for the next event; throws unless it is {@code wanted}. */
    private IbvConnectionManager.Event expect(final int wanted, final Duration timeout, final String what) {
        final IbvConnectionManager.Event event;
        try {
            event = events.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new VerbsException(VerbsException.EINTR, what + " interrupted");
        }
        if (event == null) {
            throw new VerbsException(VerbsException.ETIMEDOUT, what + " timed out after " + timeout);
        }
        if (event.type() != wanted) {
            if (event.type() == IbvConnectionManager.REJECTED) {
                state = State.REJECTED;
                throw new ConnectionRejectedException(what + " rejected by the peer (status " + event.status() + ")", event.privateData());
            }
            final int errno = event.status() < 0 ? -event.status() : VerbsException.ECONNREFUSED;
            throw new VerbsException(errno, what + " failed: rdma_cm event " + event.type() + ", status " + event.status());
        }
        return event;
    }

    /** Dispatcher thread. */
    void onEvent(final IbvConnectionManager.Event event) {
        switch (event.type()) {
            case IbvConnectionManager.DISCONNECTED -> ended(disconnectCause(event.status()));
            case IbvConnectionManager.DEVICE_REMOVAL -> ended(DisconnectReason.DEVICE_REMOVED);
            default -> events.add(event);
        }
    }

    /**
     * The reason of a DISCONNECTED event: ours when this side asked; else its status, which is -ECONNRESET for an
     * abortive close (iWARP) and -ETIMEDOUT for a DREQ the peer never answered (IB CM); 0 for an orderly close.
     */
    private DisconnectReason disconnectCause(final int status) {
        if (localDisconnect) {
            return DisconnectReason.LOCAL_DISCONNECT;
        }
        return switch (-status) {
            case VerbsException.ECONNRESET -> DisconnectReason.CONNECTION_LOST;
            case VerbsException.ETIMEDOUT -> DisconnectReason.TRANSPORT_TIMEOUT;
            default -> DisconnectReason.PEER_DISCONNECTED;
        };
    }

    @Override
    public DeviceContext context() {
        return manager.provider().context(rdma_cm_id.verbs(id));
    }

    @Override
    public State state() {
        return state;
    }

    @Override
    public QueuePair createQueuePair(final ProtectionDomain pd, final QueuePairInitAttributes attributes) {
        if (!(pd instanceof IbvProtectionDomain ibvPd) || ibvPd.ibvContext().context.address() != rdma_cm_id.verbs(id).address()) {
            throw new VerbsException(VerbsException.EINVAL, "the PD must come from this connection's device context (ConnectionId.context())");
        }
        if (!attributes.type().isConnected()) {
            throw new VerbsException(VerbsException.EINVAL, "a connection carries an RC or UC QP, not " + attributes.type());
        }
        if (qp != null) {
            throw new VerbsException(VerbsException.EBUSY, "this connection already has a QP");
        }
        qp = ibvPd.track(IbvQueuePair.create(ibvPd, attributes, id));
        return qp;
    }

    @Override
    public QueuePair queuePair() {
        return qp;
    }

    private MemorySegment parameters(final Arena arena, final ConnectionParameters parameters) {
        final byte[] data = parameters.privateData();
        if (data.length > IbvConnectionManager.MAX_PRIVATE_DATA) {
            throw new VerbsException(VerbsException.EINVAL, "private data of " + data.length + " bytes exceeds " + IbvConnectionManager.MAX_PRIVATE_DATA);
        }
        final MemorySegment param = arena.allocate(rdma_conn_param.layout());
        if (data.length > 0) {
            rdma_conn_param.private_data(param, arena.allocateFrom(ValueLayout.JAVA_BYTE, data));
            rdma_conn_param.private_data_len(param, (byte) data.length);
        }
        rdma_conn_param.responder_resources(param, (byte) parameters.responderResources());
        rdma_conn_param.initiator_depth(param, (byte) parameters.initiatorDepth());
        rdma_conn_param.retry_count(param, (byte) parameters.retryCount());
        rdma_conn_param.rnr_retry_count(param, (byte) parameters.rnrRetryCount());
        return param;
    }

    @Override
    public void connect(final ConnectionParameters parameters, final Duration timeout) {
        if (state != State.RESOLVED) {
            throw new VerbsException(VerbsException.EINVAL, "connect needs a resolved id, this one is " + state);
        }
        if (qp == null) {
            throw new VerbsException(VerbsException.EINVAL, "create the QP (createQueuePair) before connecting");
        }
        try (Arena scratch = Arena.ofConfined()) {
            checkCm(Rdma.rdma_connect(id, parameters(scratch, parameters)), "rdma_connect");
        }
        final IbvConnectionManager.Event established = expect(IbvConnectionManager.ESTABLISHED, timeout, "connection to " + remoteAddress());
        peerPrivateData = established.privateData();
        state = State.CONNECTED;
    }

    @Override
    public void accept(final ConnectionParameters parameters) {
        if (state != State.REQUESTED) {
            throw new VerbsException(VerbsException.EINVAL, "accept needs a connection request, this id is " + state);
        }
        if (qp == null) {
            throw new VerbsException(VerbsException.EINVAL, "create the QP (createQueuePair) before accepting");
        }
        try (Arena scratch = Arena.ofConfined()) {
            checkCm(Rdma.rdma_accept(id, parameters(scratch, parameters)), "rdma_accept");
        }
        expect(IbvConnectionManager.ESTABLISHED, ACCEPT_TIMEOUT, "accepted connection from " + remoteAddress());
        state = State.CONNECTED;
    }

    @Override
    public void reject(final byte[] privateData) {
        if (state != State.REQUESTED) {
            throw new VerbsException(VerbsException.EINVAL, "reject needs a connection request, this id is " + state);
        }
        try (Arena scratch = Arena.ofConfined()) {
            final MemorySegment data = privateData.length == 0 ? MemorySegment.NULL : scratch.allocateFrom(ValueLayout.JAVA_BYTE, privateData);
            checkCm(Rdma.rdma_reject(id, data, (byte) privateData.length), "rdma_reject");
        }
        state = State.REJECTED;
    }

    @Override
    public byte[] privateData() {
        return peerPrivateData.clone();
    }

    @Override
    public void disconnect() {
        if (state == State.CONNECTED) {
            localDisconnect = true;
            Rdma.rdma_disconnect(id); // moves the QP to ERR; DISCONNECTED follows on both sides
        }
    }

    /**
     * The connection ended (either side, or the device went away). Dispatcher thread; synchronized with close()
     * so that the id is not destroyed under the rdma_disconnect below (its event is already acknowledged, so
     * rdma_destroy_id would not wait for it).
     */
    private synchronized void ended(final DisconnectReason why) {
        if (closed) {
            return; // close() has fired the signal and destroyed the id
        }
        disconnected.fire(this, why, () -> {
            final boolean wasConnected = state == State.CONNECTED;
            state = State.DISCONNECTED;
            if (wasConnected) {
                Rdma.rdma_disconnect(id); // the remote side's disconnect: flush our QP too
            }
        });
    }

    @Override
    public void onDisconnect(final Consumer<ConnectionId> handler) {
        disconnected.onDisconnect(this, handler);
    }

    @Override
    public DisconnectReason disconnectReason() {
        return disconnected.reason();
    }

    @Override
    public boolean awaitDisconnect(final Duration timeout) throws InterruptedException {
        return disconnected.await(timeout);
    }

    @Override
    public InetSocketAddress localAddress() {
        return IbvConnectionManager.localAddress(id);
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return IbvConnectionManager.peerAddress(id);
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        localDisconnect = true;
        if (state == State.REQUESTED) {
            reject(new byte[0]);
        }
        disconnect();
        final IbvQueuePair current = qp;
        if (current != null) {
            current.close();
        }
        manager.unregister(this);
        Rdma.rdma_destroy_id(id);
        if (state != State.REJECTED) {
            disconnected.fire(this, DisconnectReason.LOCAL_DISCONNECT, () -> state = State.DISCONNECTED);
        }
    }

    @Override
    public String toString() {
        return "rdma_cm id " + localAddress() + " -> " + remoteAddress() + " (" + state + ")";
    }
}
