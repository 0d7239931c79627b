package org.rdmablock.verbs.soft;

import java.io.IOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

import org.rdmablock.verbs.DisconnectReason;
import org.rdmablock.verbs.QueuePairAttributes;
import org.rdmablock.verbs.QueuePairInitAttributes;
import org.rdmablock.verbs.QueuePairState;
import org.rdmablock.verbs.QueuePairType;
import org.rdmablock.verbs.VerbsException;

/**
 * An RC or UC QP of the soft provider: one TCP connection speaking MPA/DDP/RDMAP (RFC 5044, 5041, 5040, 7306).
 * This class is the QP that the API hands out: its state transitions and attributes, the connection it takes over
 * from the connection manager ({@link #attach}), and the endpoint its {@link IoAgent} drives. The work is done by
 * its parts, one object each, created with the QP, sharing the connection's fields below directly:
 *
 * <pre>
 *   posting threads ──postSend──▶ RdmapTransmitter ──FPDUs──▶ FpduWriter ──▶ socket
 *                                 (transmit owner: a poster or the agent)
 *   socket ──▶ InboundStream ──▶ FpduReader ──▶ RdmapReceiver ──▶ placement, receive completions, IRQ
 *              (receive owner:                   └──▶ RequesterCompletion ──▶ send completions (ORQ, Terminate)
 *               the agent or a CQ poller)
 *   agent sweep ──▶ PeerLiveness (transport timeout, probes, heartbeats)
 *   errors, close ──▶ ConnectionTeardown (Terminate, half-close, linger, close)
 * </pre>
 *
 * <ul>
 *   <li>{@link RdmapTransmitter}: builds and writes every outgoing FPDU; run by whichever thread becomes the
 *       transmit owner (a posting thread, or the agent when the socket becomes writable or a response is owed).
 *   <li>{@link InboundStream}: who reads the socket: the agent, or a thread polling one of the QP's CQs.
 *   <li>{@link RdmapReceiver}: checks and places what arrives (the responder: WRITE, SEND, READ and atomic
 *       requests); {@link RequesterCompletion}: the answers to this side's requests and the send completions
 *       they allow (the InfiniBand completion semantics are explained there).
 *   <li>{@link PeerLiveness}: the agent's sweep: transport timeout, probes of a silent peer, heartbeats.
 *   <li>{@link ConnectionTeardown}: Terminate, half-close, linger and close of the connection.
 * </ul>
 *
 * <p>The state machine every soft QP shares (modify, ERR with its flush, completion in posting order) is
 * {@link SoftQueuePair}'s; this class adds a connected QP's rules: INIT to RTS only through {@link #attach} (iWARP
 * connects by rdma_cm, not by ibv_modify_qp), no RESET once connected, and on ERR the transmit owner writes what is
 * staged, then the Terminate, and the connection closes ({@link #errorEntered}).
 */
final class SoftConnectedQueuePair extends SoftQueuePair implements IoAgent.Endpoint {
    /** One logger for all the parts of a connected QP. */
    static final System.Logger LOG = System.getLogger(SoftConnectedQueuePair.class.getName());
    /** STag of the zero-length RDMA WRITE (RTR) and READ (confirmation) the provider sends; index 0 is never a real tag. */
    static final int CONTROL_STAG = 1;

    // ---- the parts ----
    final RdmapTransmitter transmitter;
    final InboundStream inbound;
    final RdmapReceiver receiver;
    final RequesterCompletion completion;
    final PeerLiveness liveness;
    final ConnectionTeardown teardown;

    // ---- connection, set by attach(), read by all the parts ----
    IoAgent agent;
    SocketChannel channel;
    /** The channel's key with the agent's selector; set on the agent once registered. */
    SelectionKey key;
    /** READ, atomic and confirmation requests this side has in flight: pushed on transmit, popped on receive. */
    OutstandingReads orq;
    /** READ and atomic requests from the peer that this side owes a response: pushed on receive, popped on transmit. */
    InboundRequests irq;
    /** The channel's keys with the CQs' readiness selectors (see {@link SoftCompletionQueue#watch}); null when none. */
    SelectionKey recvReadiness;
    SelectionKey sendReadiness;

    // ---- attributes (modify, or the connection manager's parameters) ----
    volatile int rnrRetry = 7;
    volatile int minRnrTimer = 12;
    /** Local ACK timeout, IB encoding (4.096 µs × 2^timeout, 0 = wait forever); see {@link PeerLiveness#transportTimeoutNanos}. */
    volatile int ackTimeout = PeerLiveness.DEFAULT_ACK_TIMEOUT;
    volatile int retryCount = 7;

    SoftConnectedQueuePair(final SoftProtectionDomain pd, final QueuePairInitAttributes attributes) {
        super(pd, attributes);
        transmitter = new RdmapTransmitter(this, attributes.completesOnTransmit());
        receiver = new RdmapReceiver(this);
        inbound = new InboundStream(this);
        completion = new RequesterCompletion(this);
        liveness = new PeerLiveness(this);
        teardown = new ConnectionTeardown(this);
    }

    // =================================================================================================== setup

    @Override
    void checkTransition(final QueuePairState current, final QueuePairState next, final QueuePairAttributes attributes) {
        if (next == QueuePairState.RTR || next == QueuePairState.RTS && current == QueuePairState.RTR) {
            throw new VerbsException(VerbsException.EINVAL, "the soft provider connects " + type
                + " QPs through its ConnectionManager (iWARP connects by rdma_cm, not by ibv_modify_qp)");
        }
    }

    /**
     * Takes over a connected TCP channel after the MPA exchange and moves the QP to RTS.
     *
     * @param crc            whether FPDUs carry CRC32c
     * @param ird            READ/atomic requests accepted in flight
     * @param ord            READ/atomic requests issued in flight
     * @param sendRtr        send a zero-length RDMA WRITE first (RFC 6581 RTR, active side of peer-to-peer)
     * @param awaitFirstFpdu hold transmission until the peer's first FPDU (passive side of peer-to-peer)
     * @param closedCallback runs once when the connection has closed
     */
    void attach(final SocketChannel connected, final boolean crc, final int ird, final int ord, final boolean sendRtr,
                final boolean awaitFirstFpdu, final Runnable closedCallback) throws IOException {
        if (state != QueuePairState.INIT) {
            throw new VerbsException(VerbsException.EINVAL, "QP " + qpn + " must be in INIT to connect, is " + state);
        }
        // ORD bounds every request the peer must answer, the confirmation reads included: one more would exceed
        // the peer's IRD (which covers our ORD, no more) and it would terminate the connection
        this.orq = new OutstandingReads(Math.max(1, Math.min(ord, SoftDevice.MAX_ORD)));
        this.irq = new InboundRequests(Math.max(1, Math.min(ird, SoftDevice.MAX_IRD)));
        transmitter.connect(crc, sendRtr, awaitFirstFpdu);
        teardown.onClosed = closedCallback;
        connected.configureBlocking(false);
        this.channel = connected;
        this.agent = device.nextAgent();
        PeerLiveness.keepAlive(connected);
        moveTo(QueuePairState.RTR);
        moveTo(QueuePairState.RTS);
        // Last: from here a CQ's polling thread may read the stream (progress), and a SEND it delivers may be
        // answered at once, which needs RTS.
        inbound.connect(crc);
        if (SoftCompletionQueue.POLL_PROGRESS) {
            recvReadiness = recvCq.watch(connected, this);
            sendReadiness = sendCq == recvCq ? null : sendCq.watch(connected, this);
        }
        agent.register(connected, SelectionKey.OP_READ, this, registered -> {
            key = registered;
            if (registered == null) {
                teardown.connectionLost("channel closed before registration");
            } else if (type == QueuePairType.RC) {
                agent.watch(this); // the sweep starts its clock when it first sees work waiting
            }
        });
        transmitter.drive();
    }

    // ============================================================================ posting and polling threads

    @Override
    void sendPosted() {
        transmitter.drive();
    }

    @Override
    void receivePosted() {
        final IoAgent a = agent;
        if (a != null && receiver.awaitingReceive) {
            a.execute(inbound::resumeReading);
        }
    }

    @Override
    void progress() {
        final InboundStream stream = inbound; // null while the constructor runs: the QP is on its CQs before its parts exist
        if (stream != null) {
            stream.progress();
        }
    }

    @Override
    void pollerSleeping() {
        final InboundStream stream = inbound;
        if (stream != null) {
            stream.pollerSleeping();
        }
    }

    // ============================================================================================ the I/O agent

    @Override
    public int onReady(final SelectionKey readyKey) {
        int work = 0;
        if (readyKey.isValid() && readyKey.isWritable()) {
            readyKey.interestOpsAnd(~SelectionKey.OP_WRITE);
            transmitter.drive();
            work++;
        }
        if (readyKey.isValid() && readyKey.isReadable()) {
            work += inbound.onReadable(readyKey);
        }
        return work;
    }

    @Override
    public int onSweep(final long now) {
        return liveness.onSweep(now);
    }

    @Override
    public long nextDeadline() {
        final long lingerDeadline = teardown.lingerDeadline;
        if (lingerDeadline != Long.MAX_VALUE) {
            return lingerDeadline;
        }
        return Math.min(receiver.rnrDeadline, inbound.handOffDeadline);
    }

    @Override
    public int onTimer(final long now) {
        final long lingerDeadline = teardown.lingerDeadline;
        if (lingerDeadline != Long.MAX_VALUE && now - lingerDeadline >= 0) {
            teardown.closeChannel();
            return 1;
        }
        int work = 0;
        final long rnrDeadline = receiver.rnrDeadline;
        if (inbound.reader.isPaused() && rnrDeadline != Long.MAX_VALUE && now - rnrDeadline >= 0) {
            inbound.resumeReading();
            work++;
        }
        if (inbound.handOffDeadline != Long.MAX_VALUE) {
            work += inbound.checkHandOff(now);
        }
        return work;
    }

    // =================================================================================================== close

    @Override
    void errorEntered() {
        final InboundStream in = inbound; // null while the constructor runs (see abort)
        if (in != null) {
            in.flushReceiveInProgress(); // before enterError flushes the queued receives: completions stay in order
        }
        if (channel != null) {
            transmitter.drive();
        }
    }

    /**
     * Why the connection ended, where the QP saw it: TRANSPORT_TIMEOUT after the peer stayed silent, CONNECTION_LOST
     * after a socket error; null otherwise (an orderly close by the peer, or an end this side caused).
     */
    DisconnectReason endCause() {
        return teardown.endCause;
    }

    /**
     * Drops the connection at once, as the death of this process would: no Terminate, no lingering; the peer sees
     * the socket vanish. Used when the provider closes.
     */
    void abort() {
        final ConnectionTeardown closing = teardown; // null while the constructor runs: the device lists the QP already
        if (closing != null) {
            closing.abort();
        } else {
            enterError();
        }
    }

    /** Disconnects (rdma_disconnect): the QP moves to ERR and the peer sees the connection close. */
    void disconnect() {
        enterError();
    }

    /** Transmit and receive progress, for diagnostics. */
    String describe() {
        final SelectionKey k = key;
        final RdmapTransmitter tx = transmitter;
        final FpduWriter writer = tx.writer;
        final FpduReader reader = inbound.reader;
        return "QP " + qpn + " " + state + " txSeq=" + tx.txSeq + " sq=[" + sq.head() + "," + sq.tail() + ") wqeStarted=" + tx.wqeStarted
            + " unconfirmedEnd=" + tx.unconfirmedEnd + " coveredEnd=" + tx.coveredEnd + " signaled=" + tx.unconfirmedSignaled
            + " confirmedEnd=" + completion.confirmedEnd + " orqEmpty=" + (orq == null || orq.isEmpty()) + " irqEmpty=" + (irq == null || irq.isEmpty())
            + " writerEmpty=" + (writer == null || writer.isEmpty()) + " blocked=" + (writer != null && writer.isBlocked())
            + " owner=" + tx.txOwner.get() + " wanted=" + tx.txWanted + " hold=" + tx.holdTransmit
            + " interest=" + (k == null ? "none" : k.isValid() ? k.interestOps() : "invalid") + " paused=" + (reader != null && reader.isPaused());
    }

    @Override
    void resetTransport() {
        if (channel != null) {
            throw new VerbsException(VerbsException.EINVAL, "a connected soft QP cannot be reset; create a new one");
        }
    }

    @Override
    void closeTransport() {
        if (channel != null && !teardown.closed) {
            agent.execute(teardown::closeChannel);
        }
    }

    // ============================================================================================== attributes

    /** Applies connection parameters that an iWARP QP takes from the connection manager. */
    void connectionParameters(final int retryCount, final int rnrRetryCount) {
        this.retryCount = retryCount;
        this.rnrRetry = rnrRetryCount;
    }

    @Override
    public void modify(final QueuePairAttributes attributes) {
        if (attributes.has(QueuePairAttributes.RNR_RETRY)) {
            rnrRetry = attributes.rnrRetry();
        }
        if (attributes.has(QueuePairAttributes.TIMEOUT)) {
            ackTimeout = attributes.timeout();
        }
        if (attributes.has(QueuePairAttributes.RETRY_CNT)) {
            retryCount = attributes.retryCount();
        }
        if (attributes.has(QueuePairAttributes.MIN_RNR_TIMER)) {
            minRnrTimer = attributes.minRnrTimer();
        }
        super.modify(attributes);
    }
}
