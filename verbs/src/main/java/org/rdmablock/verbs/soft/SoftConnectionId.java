package org.rdmablock.verbs.soft;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.rdmablock.verbs.ConnectionFailedException;
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
import org.rdmablock.verbs.soft.wire.MpaFrame;
import org.rdmablock.verbs.spi.DisconnectSignal;
import org.rdmablock.verbs.spi.Durations;

/** One end of a soft connection: a TCP connection, its MPA negotiation and the QP it carries. */
final class SoftConnectionId implements ConnectionId {
    private static final System.Logger LOG = System.getLogger(SoftConnectionId.class.getName());

    private final SoftContext context;
    private final InetSocketAddress remote;
    private final DisconnectSignal disconnected = new DisconnectSignal();
    private volatile State state;
    private volatile SocketChannel channel;
    private volatile SoftConnectedQueuePair qp;
    private volatile byte[] peerPrivateData = new byte[0];
    private volatile InetSocketAddress local;
    /** IRD/ORD of this side once connected, and as the peer's MPA frame announced them. */
    private volatile ReadDepths depths = ReadDepths.UNKNOWN;
    /** This side asked for the end (disconnect or close), so the end is reported as LOCAL_DISCONNECT. */
    private volatile boolean localDisconnect;
    private MpaNegotiation.Frame request;

    /** Active side, after resolution. */
    SoftConnectionId(final SoftContext context, final InetSocketAddress remote) {
        this.context = context;
        this.remote = remote;
        this.state = State.RESOLVED;
    }

    /** Passive side: a negotiated-so-far request on {@code accepted}. */
    SoftConnectionId(final SoftContext context, final SocketChannel accepted, final MpaNegotiation.Frame request) throws IOException {
        this.context = context;
        this.channel = accepted;
        this.remote = (InetSocketAddress) accepted.getRemoteAddress();
        this.local = (InetSocketAddress) accepted.getLocalAddress();
        this.request = request;
        this.peerPrivateData = request.privateData();
        this.depths = ReadDepths.UNKNOWN.withPeer(request.ird(), request.ord());
        this.state = State.REQUESTED;
    }

    @Override
    public DeviceContext context() {
        return context;
    }

    @Override
    public State state() {
        return state;
    }

    @Override
    public QueuePair createQueuePair(final ProtectionDomain pd, final QueuePairInitAttributes attributes) {
        if (pd.context() != context) {
            throw new VerbsException(VerbsException.EINVAL, "the PD must come from this connection's device context (ConnectionId.context())");
        }
        if (!attributes.type().isConnected()) {
            throw new VerbsException(VerbsException.EINVAL, "a connection carries an RC or UC QP, not " + attributes.type());
        }
        if (qp != null) {
            throw new VerbsException(VerbsException.EBUSY, "this connection already has a QP");
        }
        final SoftConnectedQueuePair created = (SoftConnectedQueuePair) pd.createQueuePair(attributes);
        created.modify(QueuePairState.INIT);
        qp = created;
        return created;
    }

    @Override
    public QueuePair queuePair() {
        return qp;
    }

    private SoftConnectedQueuePair requireQp() {
        final SoftConnectedQueuePair current = qp;
        if (current == null) {
            throw new VerbsException(VerbsException.EINVAL, "create the QP (createQueuePair) before connecting");
        }
        return current;
    }

    @Override
    public void connect(final ConnectionParameters parameters, final Duration timeout) {
        if (state != State.RESOLVED) {
            throw new VerbsException(VerbsException.EINVAL, "connect needs a resolved id, this one is " + state);
        }
        final SoftConnectedQueuePair connecting = requireQp();
        Durations.requirePositive(timeout, "connect");
        final byte[] data = parameters.privateData();
        MpaNegotiation.checkPrivateData(data, maxPrivateDataLength(CmMessage.REQUEST), "request");
        final long deadline = System.nanoTime() + timeout.toNanos();
        final String what = "connection to " + remote;
        SocketChannel ch = null;
        try {
            ch = SocketChannel.open();
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            ch.socket().connect(remote, Durations.millis(timeout));
            local = (InetSocketAddress) ch.getLocalAddress();
            final int askedIrd = clamp(parameters.responderResources(), SoftDevice.MAX_IRD);
            final int askedOrd = clamp(parameters.initiatorDepth(), SoftDevice.MAX_ORD);
            MpaNegotiation.sendRequest(ch, askedIrd, askedOrd, data);
            final MpaNegotiation.Frame reply = MpaNegotiation.read(ch, MpaFrame.REPLY_KEY, Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
            peerPrivateData = reply.privateData();
            if (reply.rejected()) {
                throw new ConnectionRejectedException(ConnectionFailedException.Reason.CONSUMER_REJECT, 0,
                    what + ": rejected by the peer (MPA reject)", reply.privateData());
            }
            final boolean crc = reply.crc(); // the reply says what was agreed (RFC 5044 §7.1.2)
            final boolean rtr = reply.peerToPeer() && (reply.rtrOffers() & MpaFrame.ORD_RTR_ZERO_LENGTH_WRITE) != 0;
            channel = ch;
            connecting.connectionParameters(parameters.retryCount(), parameters.rnrRetryCount());
            final int grantedOrd = Math.min(askedOrd, Math.max(1, reply.ird()));
            depths = new ReadDepths(askedIrd, grantedOrd, reply.ird(), reply.ord());
            state = State.CONNECTED; // before attach: the connection may end (and say so) as soon as it is attached
            connecting.attach(ch, crc, askedIrd, grantedOrd, rtr, false, this::ended);
        } catch (final IOException e) {
            throw abandon(ch, connectFailure(e, what, timeout), false);
        } catch (final ConnectionFailedException e) {
            throw abandon(ch, e, false);
        } catch (final VerbsException e) {
            // from the MPA exchange: ETIMEDOUT waiting for the reply, EINVAL for a reply that breaks the protocol
            throw abandon(ch, e.errno() == VerbsException.ETIMEDOUT
                ? new ConnectionFailedException(ConnectionFailedException.Reason.TIMEOUT, VerbsException.ETIMEDOUT, 0, what + ": no MPA reply within " + timeout)
                : new ConnectionFailedException(ConnectionFailedException.Reason.CONNECT_ERROR, VerbsException.EPROTO, 0, what + ": " + e.getMessage()), false);
        }
    }

    /** What an I/O failure of the TCP connect or the MPA exchange means to a caller that reconnects. */
    private static ConnectionFailedException connectFailure(final IOException e, final String what, final Duration timeout) {
        if (e instanceof SocketTimeoutException) {
            return new ConnectionFailedException(ConnectionFailedException.Reason.TIMEOUT, VerbsException.ETIMEDOUT, 0,
                what + ": no answer within " + timeout);
        }
        if (e instanceof NoRouteToHostException) {
            return new ConnectionFailedException(ConnectionFailedException.Reason.UNREACHABLE, VerbsException.EHOSTUNREACH, 0,
                what + ": " + e.getMessage());
        }
        if (e instanceof ConnectException) { // ECONNREFUSED, or the kernel's own connect timeout
            return String.valueOf(e.getMessage()).contains("timed out")
                ? new ConnectionFailedException(ConnectionFailedException.Reason.UNREACHABLE, VerbsException.ETIMEDOUT, 0, what + ": " + e.getMessage())
                : new ConnectionRejectedException(ConnectionFailedException.Reason.NO_LISTENER, 0,
                    what + ": nobody listens there (" + e.getMessage() + ")", new byte[0]);
        }
        return new ConnectionFailedException(ConnectionFailedException.Reason.CONNECT_ERROR, VerbsException.ECONNRESET, 0,
            what + " failed during the MPA exchange: " + e.getMessage());
    }

    /**
     * A connect or accept failed: closes the TCP connection, moves the QP to ERR (flushing what was posted), and
     * leaves the id REJECTED (a connect the peer's side rejected) or DISCONNECTED.
     */
    private ConnectionFailedException abandon(final SocketChannel ch, final ConnectionFailedException failure, final boolean accepting) {
        closeQuietly(ch);
        final SoftConnectedQueuePair current = qp;
        if (current != null) {
            current.disconnect();
        }
        if (!accepting && failure instanceof ConnectionRejectedException) {
            state = State.REJECTED;
        } else {
            final ConnectionFailedException.Reason reason = failure.reason();
            ended(reason == ConnectionFailedException.Reason.TIMEOUT || reason == ConnectionFailedException.Reason.UNREACHABLE
                ? DisconnectReason.TRANSPORT_TIMEOUT : DisconnectReason.CONNECTION_LOST);
        }
        return failure;
    }

    @Override
    public void accept(final ConnectionParameters parameters, final Duration timeout) {
        if (state != State.REQUESTED) {
            throw new VerbsException(VerbsException.EINVAL, "accept needs a connection request, this id is " + state);
        }
        final SoftConnectedQueuePair accepting = requireQp();
        Durations.requirePositive(timeout, "accept");
        final byte[] data = parameters.privateData();
        MpaNegotiation.checkPrivateData(data, maxPrivateDataLength(CmMessage.REPLY), "reply");
        // RFC 6581: the responder's IRD covers the initiator's ORD; its own ORD stays within the initiator's IRD
        final int grantedIrd = clamp(Math.max(parameters.responderResources(), request.ord()), SoftDevice.MAX_IRD);
        final int grantedOrd = clamp(Math.min(parameters.initiatorDepth(), Math.max(1, request.ird())), SoftDevice.MAX_ORD);
        final boolean crc = request.crc() || MpaNegotiation.CRC_REQUESTED;
        final String what = "accepted connection from " + remote;
        try {
            MpaNegotiation.sendReply(channel, request, false, crc, grantedIrd, grantedOrd, data);
            // RFC 6581 peer-to-peer: the initiator's ready-to-receive message completes the establishment (siw's
            // passive side reports ESTABLISHED only then); without it the peer never finished connecting
            if (request.peerToPeer() && !awaitReadable(channel, timeout)) {
                throw abandon(channel, new ConnectionFailedException(ConnectionFailedException.Reason.TIMEOUT, VerbsException.ETIMEDOUT, 0,
                    what + ": the peer's ready-to-receive message (RFC 6581) did not arrive within " + timeout), true);
            }
            accepting.connectionParameters(parameters.retryCount(), parameters.rnrRetryCount());
            depths = depths.withLocal(grantedIrd, grantedOrd);
            state = State.CONNECTED; // before attach, as in connect
            accepting.attach(channel, crc, grantedIrd, grantedOrd, false, request.peerToPeer(), this::ended);
        } catch (final IOException e) {
            throw abandon(channel, new ConnectionFailedException(ConnectionFailedException.Reason.CONNECT_ERROR, VerbsException.ECONNRESET, 0,
                what + " failed: " + e.getMessage()), true);
        }
    }

    /** Waits until {@code ch} has bytes to read (or the peer closed it); false when {@code timeout} passed first. */
    private static boolean awaitReadable(final SocketChannel ch, final Duration timeout) throws IOException {
        ch.configureBlocking(false); // the QP takes the channel over non-blocking anyway
        try (Selector selector = Selector.open()) {
            ch.register(selector, SelectionKey.OP_READ);
            final long deadline = System.nanoTime() + timeout.toNanos();
            long left;
            while ((left = deadline - System.nanoTime()) > 0) {
                if (selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left))) > 0) {
                    return true;
                }
            }
            return false;
        }
    }

    @Override
    public void reject(final byte[] privateData) {
        if (state != State.REQUESTED) {
            throw new VerbsException(VerbsException.EINVAL, "reject needs a connection request, this id is " + state);
        }
        MpaNegotiation.checkPrivateData(privateData, maxPrivateDataLength(CmMessage.REJECT), "reject");
        try {
            MpaNegotiation.sendReply(channel, request, true, false, 0, 0, privateData);
        } catch (final IOException e) {
            LOG.log(System.Logger.Level.DEBUG, "reject of {0} not delivered: {1}", remote, e.getMessage());
        } finally {
            closeQuietly(channel);
            state = State.REJECTED;
        }
    }

    @Override
    public byte[] privateData() {
        return peerPrivateData.clone();
    }

    /** This provider always requests revision 2 (enhanced); a reply or reject follows the request's revision. */
    @Override
    public int maxPrivateDataLength(final CmMessage message) {
        final MpaNegotiation.Frame pending = request;
        return MpaNegotiation.maxPrivateData(message == CmMessage.REQUEST || pending == null || pending.enhanced());
    }

    @Override
    public ReadDepths readDepths() {
        return depths;
    }

    @Override
    public void disconnect() {
        final SoftConnectedQueuePair current = qp;
        if (current != null && state == State.CONNECTED) {
            localDisconnect = true;
            current.disconnect();
        }
    }

    /**
     * The QP's connection closed: this side asked, or the device is going away, or the QP saw why (the peer fell
     * silent, the socket failed), else the peer closed it.
     */
    private void ended() {
        final SoftConnectedQueuePair current = qp;
        final DisconnectReason seen = current == null ? null : current.endCause();
        ended(localDisconnect ? DisconnectReason.LOCAL_DISCONNECT : context.device().removed() ? DisconnectReason.DEVICE_REMOVED
            : seen != null ? seen : DisconnectReason.PEER_DISCONNECTED);
    }

    private void ended(final DisconnectReason why) {
        disconnected.fire(this, why, () -> state = State.DISCONNECTED);
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
        return local;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public void close() {
        localDisconnect = true;
        if (state == State.REQUESTED) {
            reject(new byte[0]);
        }
        disconnect();
        final SoftConnectedQueuePair current = qp;
        if (current != null) {
            current.close();
        } else {
            closeQuietly(channel);
        }
        if (state != State.REJECTED) {
            ended();
        }
    }

    private static int clamp(final int value, final int max) {
        return Math.max(1, Math.min(value, max));
    }

    private static void closeQuietly(final SocketChannel ch) {
        if (ch != null) {
            try {
                ch.close();
            } catch (final IOException ignored) {
                // closing anyway
            }
        }
    }

    @Override
    public String toString() {
        return "connection " + local + " -> " + remote + " (" + state + ")";
    }
}
