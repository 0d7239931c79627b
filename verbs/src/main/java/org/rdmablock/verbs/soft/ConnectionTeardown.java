package org.rdmablock.verbs.soft;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.util.concurrent.TimeUnit;

import org.rdmablock.verbs.AsyncEvent;
import org.rdmablock.verbs.DisconnectReason;
import org.rdmablock.verbs.QueuePairState;
import org.rdmablock.verbs.QueuePairType;
import org.rdmablock.verbs.soft.wire.Fpdu;
import org.rdmablock.verbs.soft.wire.FpduHeader;
import org.rdmablock.verbs.soft.wire.RdmapOpcode;
import org.rdmablock.verbs.soft.wire.ReadRequest;

/**
 * How a {@link SoftConnectedQueuePair}'s connection ends. An error this side detects sends the QP's one Terminate
 * (RFC 5040 §4.8) and moves the QP to ERR ({@link #terminate}); on ERR the transmit owner writes what was staged,
 * then the Terminate, and closes its half ({@link #finishOutput}); the agent then drains the peer's bytes until it
 * closes or {@link #LINGER_NANOS} pass, and closes the socket ({@link #closeChannel}), which unregisters the QP and
 * tells the connection id. A lost connection ({@link #connectionLost}) and the provider's {@link #abort} skip the
 * goodbye. It owns the pending Terminate, the linger state, whether the channel is closed, and why the connection
 * ended ({@link #endCause}).
 *
 * <p><b>Threads.</b> {@link #terminate} runs on the receive owner (the agent or a CQ poller); {@link #finishOutput}
 * on the transmit owner (a posting thread or the agent); lingering and {@link #closeChannel} on the agent, where
 * the others hand them; {@link #abort} on the thread that closes the provider or on the agent's liveness sweep.
 */
final class ConnectionTeardown {
    /** How long a closing connection drains the peer's bytes before closing the socket. */
    private static final long LINGER_NANOS = TimeUnit.SECONDS.toNanos(2);

    private final SoftConnectedQueuePair qp;
    private final TerminateFpdu terminateFpdu = new TerminateFpdu();
    volatile boolean terminatePending;
    private boolean outputShut;
    /** When a closing connection stops draining the peer's bytes; Long.MAX_VALUE while not lingering. */
    long lingerDeadline = Long.MAX_VALUE;
    private final ByteBuffer lingerBuffer = ByteBuffer.allocateDirect(4096);
    /** The channel is closed (the QP object lives on until it is closed). */
    volatile boolean closed;
    /** Why the connection ended when the QP knows better than "the peer closed" (see {@link #endCause}); else null. */
    volatile DisconnectReason endCause;
    /** Runs once when the connection has closed; set when it is attached. */
    Runnable onClosed;

    ConnectionTeardown(final SoftConnectedQueuePair qp) {
        this.qp = qp;
    }

    /**
     * Sends a Terminate naming the message at {@code header} (null: a stream error with no message to name),
     * raises {@code event} and moves the QP to ERR. UC sends none: it only drops the stream.
     */
    int terminate(final FpduHeader header, final int layer, final int errorType, final int errorCode, final AsyncEvent.Type event) {
        if (qp.type == QueuePairType.UC) {
            qp.fatal(event, "UC stream error " + layer + "/" + errorType + "/" + errorCode);
            return FpduReader.FAIL;
        }
        if (!terminatePending && qp.state != QueuePairState.ERR) {
            final int attached = header == null ? 0 : header.headerLength() - Fpdu.LENGTH_SIZE
                + (header.opcode() == RdmapOpcode.READ_REQUEST && !header.isTagged() ? ReadRequest.HEADER_LENGTH : 0);
            terminateFpdu.build(layer, errorType, errorCode, header, attached, qp.transmitter.writer.crcEnabled());
            terminatePending = true;
        }
        qp.fatal(event, "terminate " + layer + "/" + errorType + "/0x" + Integer.toHexString(errorCode));
        return FpduReader.FAIL;
    }

    /**
     * Transmit owner, on ERR: after a pending Terminate, close our half and drain the peer's bytes until it closes
     * (or a timeout).
     */
    void finishOutput() throws IOException {
        if (terminatePending) {
            qp.channel.write(terminateFpdu.buffer());
            if (terminateFpdu.buffer().hasRemaining()) {
                qp.transmitter.armWrite();
                return;
            }
            terminatePending = false;
        }
        if (!outputShut) {
            outputShut = true;
            try {
                qp.channel.shutdownOutput();
            } catch (final IOException ignored) {
                // already gone
            }
            qp.agent.execute(this::startLinger);
        }
    }

    private void startLinger() {
        if (closed) {
            return;
        }
        lingerDeadline = System.nanoTime() + LINGER_NANOS;
        qp.agent.armTimer(qp);
        final SelectionKey key = qp.key;
        if (key != null && key.isValid()) {
            key.interestOps(SelectionKey.OP_READ);
        }
        drainLinger();
    }

    /** Agent: reads and drops what the peer still sends after our half closed; closes when it closes too. */
    int drainLinger() {
        try {
            int n;
            do {
                n = qp.channel.read(lingerBuffer.clear());
            } while (n > 0);
            if (n < 0) {
                closeChannel();
            }
        } catch (final IOException e) {
            closeChannel();
        }
        return 1;
    }

    /** The peer closed or the socket failed. */
    void connectionLost(final String reason) {
        SoftConnectedQueuePair.LOG.log(System.Logger.Level.DEBUG, "QP {0}: connection lost: {1}", qp.qpn, reason);
        terminatePending = false;
        qp.enterError();
        qp.agent.execute(this::closeChannel);
    }

    /**
     * Drops the connection at once, as the death of this process would: no Terminate, no lingering; the peer sees
     * the socket vanish. Used when the provider closes, and when the transport times out.
     */
    void abort() {
        if (qp.channel != null && !closed) {
            try {
                qp.channel.setOption(java.net.StandardSocketOptions.SO_LINGER, 0);
            } catch (final IOException | RuntimeException ignored) {
                // closing anyway
            }
            closeChannel();
        }
        qp.enterError();
    }

    /** Closes the socket and forgets the connection: the agent's sweep, the CQs' readiness, the ORQ and IRQ. */
    void closeChannel() {
        if (closed) {
            return;
        }
        closed = true;
        lingerDeadline = Long.MAX_VALUE;
        qp.agent.unwatch(qp);
        if (qp.recvReadiness != null) {
            qp.recvCq.unwatch(qp.recvReadiness);
        }
        if (qp.sendReadiness != null) {
            qp.sendCq.unwatch(qp.sendReadiness);
        }
        try {
            qp.channel.close();
        } catch (final IOException ignored) {
            // closing anyway
        }
        qp.orq.clear();
        qp.irq.clear();
        final Runnable callback = onClosed;
        if (callback != null) {
            callback.run();
        }
    }
}
