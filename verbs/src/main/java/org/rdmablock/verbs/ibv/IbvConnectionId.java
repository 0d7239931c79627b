package org.rdmablock.verbs.ibv;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.rdmablock.verbs.ConnectionFailedException;
import org.rdmablock.verbs.ConnectionFailedException.Reason;
import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.ConnectionParameters;
import org.rdmablock.verbs.ConnectionRejectedException;
import org.rdmablock.verbs.DeviceContext;
import org.rdmablock.verbs.DisconnectReason;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.QueuePair;
import org.rdmablock.verbs.QueuePairInitAttributes;
import org.rdmablock.verbs.QueuePairState;
import org.rdmablock.verbs.VerbsException;
import org.rdmablock.verbs.ibv.bindings.Rdma;
import org.rdmablock.verbs.ibv.bindings.ibv_context;
import org.rdmablock.verbs.ibv.bindings.ibv_device;
import org.rdmablock.verbs.ibv.bindings.rdma_cm_id;
import org.rdmablock.verbs.ibv.bindings.rdma_conn_param;
import org.rdmablock.verbs.spi.DisconnectSignal;
import org.rdmablock.verbs.spi.Durations;

/**
 * An rdma_cm id ({@code struct rdma_cm_id}). The blocking calls (resolve, connect, accept) wait for the events the
 * manager's dispatcher hands to this id; a DISCONNECTED event moves the QP to ERR (rdma_disconnect) and runs the
 * disconnect handlers. A connect or accept that fails leaves the id REJECTED or DISCONNECTED with its QP in ERR,
 * and disconnects a connection the CM completes after the caller gave up.
 */
final class IbvConnectionId implements ConnectionId {
    /** RDMA_MAX_RESP_RES and RDMA_MAX_INIT_DEPTH: "as much as the request and the device allow". */
    private static final int RDMA_MAX = 0xFF;

    private final IbvConnectionManager manager;
    final MemorySegment id;
    private final LinkedBlockingQueue<IbvConnectionManager.Event> events = new LinkedBlockingQueue<>();
    private final DisconnectSignal disconnected = new DisconnectSignal();
    private volatile State state;
    private volatile byte[] peerPrivateData;
    private volatile IbvQueuePair qp;
    /**
     * IRD/ORD of this side once connected, and as the peer announced them. rdma_cm events give
     * {@code responder_resources} and {@code initiator_depth} from the receiver's point of view (the IB CM swaps
     * the REQ's and REP's fields), so the peer's IRD is the event's initiator_depth and its ORD the event's
     * responder_resources.
     */
    private volatile ReadDepths depths = ReadDepths.UNKNOWN;
    /** The request, for what librdmacm derives from it when an accept asks for RDMA_MAX_RESP_RES/INIT_DEPTH. */
    private final IbvConnectionManager.Event request;
    /** This side asked for the end (disconnect or close), so the end is reported as LOCAL_DISCONNECT. */
    private volatile boolean localDisconnect;
    /** A connect or accept gave up: an ESTABLISHED that still comes is answered with rdma_disconnect. */
    private boolean abandoned;
    private boolean closed;

    IbvConnectionId(final IbvConnectionManager manager, final MemorySegment id, final IbvConnectionManager.Event request) {
        this.manager = manager;
        this.id = id;
        this.state = request == null ? State.RESOLVED : State.REQUESTED;
        this.peerPrivateData = request == null ? new byte[0] : request.privateData();
        this.request = request;
        if (request != null) {
            depths = ReadDepths.UNKNOWN.withPeer(request.initiatorDepth(), request.responderResources());
        }
        manager.register(this);
    }

    /** Throws for a librdmacm call that failed with {@code errno} (0: succeeded). */
    static void checkCm(final int errno, final String what) {
        if (errno != 0) {
            throw Native.failure(what, errno);
        }
    }

    /** Active side: rdma_resolve_addr, then rdma_resolve_route, each confirmed by its event. */
    void resolve(final InetSocketAddress remote, final Duration timeout) {
        try (Arena scratch = Arena.ofConfined()) {
            final int ms = Durations.millis(timeout);
            checkCm(Native.errnoOf(IbvConnectionManager.RESOLVE_ADDR, "rdma_resolve_addr", id, MemorySegment.NULL,
                IbvConnectionManager.sockaddr(scratch, remote), ms), "rdma_resolve_addr(" + remote + ")");
            expectResolved(IbvConnectionManager.ADDR_RESOLVED, timeout, "address resolution of " + remote);
            checkCm(Native.errnoOf(IbvConnectionManager.RESOLVE_ROUTE, "rdma_resolve_route", id, ms), "rdma_resolve_route");
            expectResolved(IbvConnectionManager.ROUTE_RESOLVED, timeout, "route resolution to " + remote);
        }
    }

    private void expectResolved(final int wanted, final Duration timeout, final String what) {
        final IbvConnectionManager.Event event = next(timeout, what);
        if (event == null) {
            throw new ConnectionFailedException(Reason.TIMEOUT, VerbsException.ETIMEDOUT, 0, what + ": no answer within " + timeout);
        }
        if (event.type() != wanted) {
            // ADDR_ERROR, ROUTE_ERROR: no ARP answer, no route, no RDMA device on the way
            throw new ConnectionFailedException(Reason.UNREACHABLE, errnoOf(event.status(), VerbsException.EHOSTUNREACH),
                event.status(), what + " failed: rdma_cm event " + event.type() + ", status " + event.status());
        }
    }

    /** The next event, or null when {@code timeout} passed first. */
    private IbvConnectionManager.Event next(final Duration timeout, final String what) {
        try {
            return events.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new VerbsException(VerbsException.EINTR, what + " interrupted");
        }
    }

    private static int errnoOf(final int status, final int otherwise) {
        return status < 0 ? -status : otherwise;
    }

    /**
     * What a connect's or accept's answer means, when it is not ESTABLISHED (null when it is). Reject statuses are
     * IB CM reject reasons on IB/RoCE and -ECONNREFUSED (an MPA reject) or -ECONNRESET on iWARP.
     */
    private ConnectionFailedException failureOf(final IbvConnectionManager.Event event, final Duration timeout, final String what) {
        if (event == null) {
            return new ConnectionFailedException(Reason.TIMEOUT, VerbsException.ETIMEDOUT, 0, what + ": no answer within " + timeout);
        }
        final int status = event.status();
        return switch (event.type()) {
            case IbvConnectionManager.ESTABLISHED -> null;
            case IbvConnectionManager.REJECTED -> switch (status) {
                case IbvConnectionManager.IB_CM_REJ_CONSUMER_DEFINED, -VerbsException.ECONNREFUSED -> new ConnectionRejectedException(
                    Reason.CONSUMER_REJECT, status, what + ": rejected by the peer (status " + status + ")", event.privateData());
                case IbvConnectionManager.IB_CM_REJ_INVALID_SERVICE_ID -> new ConnectionRejectedException(
                    Reason.NO_LISTENER, status, what + ": nobody listens there (IB CM reject reason 8, invalid service ID)", new byte[0]);
                default -> new ConnectionRejectedException(Reason.TRANSPORT_REJECT, status,
                    what + ": rejected by the peer's connection manager (status " + status + ")", event.privateData());
            };
            case IbvConnectionManager.UNREACHABLE -> new ConnectionFailedException(Reason.UNREACHABLE,
                errnoOf(status, VerbsException.EHOSTUNREACH), status, what + ": the peer did not answer (RDMA_CM_EVENT_UNREACHABLE, status " + status + ")");
            case IbvConnectionManager.DEVICE_REMOVAL -> new ConnectionFailedException(Reason.CONNECT_ERROR, VerbsException.ENODEV, status,
                what + ": the RDMA device went away");
            default -> new ConnectionFailedException(Reason.CONNECT_ERROR, errnoOf(status, VerbsException.EIO), status,
                what + " failed: rdma_cm event " + event.type() + ", status " + status);
        };
    }

    /** The failure of an rdma_connect that failed at once (iWARP connects TCP inside it), or null for a plain error. */
    private static ConnectionFailedException immediateFailure(final int errno, final String what) {
        return switch (errno) {
            case VerbsException.ECONNREFUSED -> new ConnectionRejectedException(Reason.NO_LISTENER, -errno,
                what + ": nobody listens there (" + Native.describe(errno) + ")", new byte[0]);
            case VerbsException.ETIMEDOUT, VerbsException.EHOSTUNREACH, VerbsException.ENETUNREACH -> new ConnectionFailedException(
                Reason.UNREACHABLE, errno, -errno, what + ": " + Native.describe(errno));
            case VerbsException.ECONNRESET -> new ConnectionFailedException(Reason.CONNECT_ERROR, errno, -errno, what + ": " + Native.describe(errno));
            default -> null;
        };
    }

    /** Dispatcher thread. */
    void onEvent(final IbvConnectionManager.Event event) {
        switch (event.type()) {
            case IbvConnectionManager.DISCONNECTED -> {
                wakeWaiter(event);
                ended(disconnectCause(event.status()));
            }
            case IbvConnectionManager.DEVICE_REMOVAL -> {
                wakeWaiter(event);
                ended(DisconnectReason.DEVICE_REMOVED);
            }
            case IbvConnectionManager.ESTABLISHED -> established(event);
            default -> events.add(event);
        }
    }

    /** A DISCONNECTED or DEVICE_REMOVAL before the connection was up ends a connect or accept waiting for it. */
    private void wakeWaiter(final IbvConnectionManager.Event event) {
        if (state != State.CONNECTED) {
            events.add(event);
        }
    }

    private synchronized void established(final IbvConnectionManager.Event event) {
        if (closed) {
            return;
        }
        if (abandoned) {
            Rdma.rdma_disconnect(id); // the caller gave up before the CM finished: the peer must see it end
            return;
        }
        events.add(event);
    }

    /**
     * A connect or accept failed: the QP goes to ERR (rdma_disconnect does that for IB; the explicit modify covers
     * iWARP, where it only drains to SQD) and a late ESTABLISHED, here or still to come, is disconnected. A connect
     * the peer's side rejected ends REJECTED; anything else, and any failed accept, DISCONNECTED.
     */
    private synchronized ConnectionFailedException abandon(final ConnectionFailedException failure, final boolean accepting) {
        abandoned = true;
        if (!closed) {
            // ends a connection the CM has established meanwhile (DREQ); fails harmlessly for the CM otherwise
            Rdma.rdma_disconnect(id);
            final IbvQueuePair current = qp;
            if (current != null && current.state() != QueuePairState.ERR) {
                try {
                    current.modify(QueuePairState.ERR);
                } catch (final VerbsException e) {
                    // destroyed with the id anyway
                }
            }
            events.clear(); // an ESTABLISHED queued meanwhile: the rdma_disconnect above has answered it
        }
        if (!accepting && failure instanceof ConnectionRejectedException) {
            state = State.REJECTED;
        } else {
            final Reason reason = failure.reason();
            disconnected.fire(this, reason == Reason.TIMEOUT || reason == Reason.UNREACHABLE ? DisconnectReason.TRANSPORT_TIMEOUT
                : DisconnectReason.CONNECTION_LOST, () -> state = State.DISCONNECTED);
        }
        return failure;
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

    @Override
    public int maxPrivateDataLength(final CmMessage message) {
        final MemorySegment verbs = rdma_cm_id.verbs(id).reinterpret(ibv_context.sizeof());
        if (ibv_device.transport_type(ibv_context.device(verbs).reinterpret(ibv_device.sizeof())) == IbvConnectionManager.IBV_TRANSPORT_IWARP) {
            return IbvConnectionManager.IWARP_PRIVATE_DATA;
        }
        return switch (message) {
            case REQUEST -> IbvConnectionManager.IB_REQ_PRIVATE_DATA;
            case REPLY -> IbvConnectionManager.IB_REP_PRIVATE_DATA;
            case REJECT -> IbvConnectionManager.IB_REJ_PRIVATE_DATA;
        };
    }

    /** EINVAL, before any librdmacm call, for private data the transport's CM message cannot carry. */
    private void checkPrivateData(final byte[] data, final CmMessage message) {
        final int limit = maxPrivateDataLength(message);
        if (data.length > limit) {
            throw new VerbsException(VerbsException.EINVAL, "private data of " + data.length + " bytes exceeds the " + limit
                + " bytes a " + message + " carries on this transport (see ConnectionId.maxPrivateDataLength)");
        }
    }

    private MemorySegment parameters(final Arena arena, final ConnectionParameters parameters, final CmMessage message) {
        if (parameters.responderResources() < 0 || parameters.responderResources() > RDMA_MAX
            || parameters.initiatorDepth() < 0 || parameters.initiatorDepth() > RDMA_MAX
            || parameters.retryCount() < 0 || parameters.retryCount() > 7 || parameters.rnrRetryCount() < 0 || parameters.rnrRetryCount() > 7) {
            throw new VerbsException(VerbsException.EINVAL, "connection parameters out of range (responder resources and initiator "
                + "depth 0..255, retry counts 0..7): " + parameters.responderResources() + ", " + parameters.initiatorDepth() + ", "
                + parameters.retryCount() + ", " + parameters.rnrRetryCount());
        }
        final byte[] data = parameters.privateData();
        checkPrivateData(data, message);
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
        Durations.requirePositive(timeout, "connect");
        final String what = "connection to " + remoteAddress();
        try (Arena scratch = Arena.ofConfined()) {
            final int errno = Native.errnoOf(IbvConnectionManager.CONNECT, "rdma_connect", id, parameters(scratch, parameters, CmMessage.REQUEST));
            if (errno != 0) {
                final ConnectionFailedException failure = immediateFailure(errno, what);
                if (failure == null) {
                    throw Native.failure("rdma_connect", errno);
                }
                throw abandon(failure, false);
            }
        }
        final IbvConnectionManager.Event answer = next(timeout, what);
        final ConnectionFailedException failure = failureOf(answer, timeout, what);
        if (failure != null) {
            throw abandon(failure, false);
        }
        peerPrivateData = answer.privateData();
        // the QP took the accept's values (librdmacm moves it to RTR/RTS with the CM's attributes)
        connected(new ReadDepths(answer.responderResources(), answer.initiatorDepth(), answer.initiatorDepth(), answer.responderResources()));
    }

    /**
     * Established: CONNECTED, unless a DISCONNECTED came first (the peer left at once), whose handling could not
     * flush a QP it did not know to be connected.
     */
    private synchronized void connected(final ReadDepths settled) {
        depths = settled;
        if (disconnected.reason() == null) {
            state = State.CONNECTED;
        } else if (!closed) {
            Rdma.rdma_disconnect(id);
        }
    }

    @Override
    public void accept(final ConnectionParameters parameters, final Duration timeout) {
        if (state != State.REQUESTED) {
            throw new VerbsException(VerbsException.EINVAL, "accept needs a connection request, this id is " + state);
        }
        if (qp == null) {
            throw new VerbsException(VerbsException.EINVAL, "create the QP (createQueuePair) before accepting");
        }
        Durations.requirePositive(timeout, "accept");
        try (Arena scratch = Arena.ofConfined()) {
            checkCm(Native.errnoOf(IbvConnectionManager.ACCEPT, "rdma_accept", id, parameters(scratch, parameters, CmMessage.REPLY)), "rdma_accept");
        }
        // IB/RoCE: established when the active side's RTU arrives; iWARP: when the MPA reply is sent (and, in
        // peer-to-peer mode, the peer's first message has arrived)
        final String what = "accepted connection from " + remoteAddress() + " waiting to be established (RDMA_CM_EVENT_ESTABLISHED)";
        final ConnectionFailedException failure = failureOf(next(timeout, what), timeout, what);
        if (failure != null) {
            throw abandon(failure, true);
        }
        connected(depths.withLocal(granted(parameters.responderResources(), request.responderResources(), true),
            granted(parameters.initiatorDepth(), request.initiatorDepth(), false)));
    }

    /**
     * What rdma_accept gives the QP: the value asked for, or for RDMA_MAX_RESP_RES / RDMA_MAX_INIT_DEPTH (255) the
     * request's value capped by the device, as librdmacm computes it.
     */
    private int granted(final int asked, final int fromRequest, final boolean responder) {
        if (asked != RDMA_MAX) {
            return asked;
        }
        final org.rdmablock.verbs.DeviceAttributes device = context().queryDevice();
        return Math.min(fromRequest, responder ? device.maxQpRdAtom() : device.maxQpInitRdAtom());
    }

    @Override
    public ReadDepths readDepths() {
        return depths;
    }

    @Override
    public void reject(final byte[] privateData) {
        if (state != State.REQUESTED) {
            throw new VerbsException(VerbsException.EINVAL, "reject needs a connection request, this id is " + state);
        }
        checkPrivateData(privateData, CmMessage.REJECT);
        try (Arena scratch = Arena.ofConfined()) {
            final MemorySegment data = privateData.length == 0 ? MemorySegment.NULL : scratch.allocateFrom(ValueLayout.JAVA_BYTE, privateData);
            checkCm(Native.errnoOf(IbvConnectionManager.REJECT, "rdma_reject", id, data, (byte) privateData.length), "rdma_reject");
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
        localDisconnect = true;
        if (state == State.REQUESTED) {
            try {
                reject(new byte[0]);
            } catch (final VerbsException e) {
                state = State.REJECTED; // the request is gone with the id either way
            }
        }
        disconnect();
        closed = true;
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
