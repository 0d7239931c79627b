package org.rdmablock.verbs.soft;

import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

import org.rdmablock.verbs.DisconnectReason;
import org.rdmablock.verbs.QueuePairState;
import org.rdmablock.verbs.WcStatus;

/**
 * Whether a {@link SoftConnectedQueuePair}'s peer is still there: the transport timeout (InfiniBand's local ACK
 * timeout × (retry_cnt + 1)), the confirmation read that probes a silent peer half way there, the heartbeats of a
 * side whose reader is stalled waiting for a receive, the frame timeout for a peer that stopped in the middle of a
 * frame, and TCP keepalive for idle connections. It owns the sweep's
 * clock (when bytes last moved, or when the QP started waiting for its peer).
 *
 * <p><b>Threads.</b> The I/O agent's liveness sweep ({@link #onSweep}, every {@link IoAgent#SWEEP_NANOS} for each
 * RC QP the agent watches); it asks the transmit owner for a probe or a heartbeat through volatile notes on the
 * {@link RdmapTransmitter}, and reads the receive and transmit byte counters racily (it only looks for movement), and
 * as racily whether the reader is in the middle of a frame (judged only after a whole frame timeout without movement).
 */
final class PeerLiveness {
    /**
     * Default local ACK timeout of a soft QP: 18, 1.07 s, so that with 7 retries a peer that stops answering fails
     * the work waiting on it after about 8.6 s (rdma_cm's default for RoCE is of that order; TCP itself would take
     * 15 minutes, tcp_retries2). {@link Configuration#ACK_TIMEOUT_PROP_NAME} changes it; 0 waits forever.
     */
    static final int DEFAULT_ACK_TIMEOUT = Configuration.ackTimeout();
    /** The shortest transport timeout honoured: four sweeps, so that two heartbeats fit in it (see onSweep). */
    static final long MIN_TRANSPORT_TIMEOUT_NANOS = 4 * IoAgent.SWEEP_NANOS;
    /** Idle time after which TCP keepalive probes an idle connection, and their interval and count (60 s, 10 s, 6). */
    private static final int KEEPALIVE_IDLE_SECONDS = 60;
    private static final int KEEPALIVE_INTERVAL_SECONDS = 10;
    private static final int KEEPALIVE_COUNT = 6;

    private final SoftConnectedQueuePair qp;
    private final SendQueue sq;
    /** {@link Configuration#frameTimeoutMillis}, in nanoseconds; Long.MAX_VALUE for never. */
    private final long frameTimeoutNanos;
    private long receivedSeenBySweep;
    /** When the sweep last saw bytes arrive, or the reader between frames. */
    private long frameProgressSince;
    private long movedSeenBySweep;
    /** When the sweep last saw bytes arrive, or saw the QP start waiting for its peer. */
    private long heardOrWaitingSince;
    private boolean waitingForPeer;
    private long lastHeartbeat;

    PeerLiveness(final SoftConnectedQueuePair qp) {
        this.qp = qp;
        this.sq = qp.sq;
        final long frameTimeout = Configuration.frameTimeoutMillis();
        this.frameTimeoutNanos = frameTimeout <= 0 ? Long.MAX_VALUE : TimeUnit.MILLISECONDS.toNanos(frameTimeout);
        // a sweep that first finds the connection mid-frame measures from here, not from nanoTime's origin (which
        // dropped fresh connections as silent for hours)
        this.frameProgressSince = System.nanoTime();
    }

    /** TCP keepalive on the connection: an idle connection to a vanished host is reset by the kernel in time. */
    static void keepAlive(final SocketChannel connected) {
        try {
            connected.setOption(java.net.StandardSocketOptions.SO_KEEPALIVE, true);
            connected.setOption(jdk.net.ExtendedSocketOptions.TCP_KEEPIDLE, KEEPALIVE_IDLE_SECONDS);
            connected.setOption(jdk.net.ExtendedSocketOptions.TCP_KEEPINTERVAL, KEEPALIVE_INTERVAL_SECONDS);
            connected.setOption(jdk.net.ExtendedSocketOptions.TCP_KEEPCOUNT, KEEPALIVE_COUNT);
        } catch (final IOException | UnsupportedOperationException ignored) {
            // not every platform has the options: the transport timeout still covers connections with work
        }
    }

    /**
     * How long work may wait on a silent peer before it fails with RETRY_EXC_ERR: the IB transport's local ACK
     * timeout × (retry_cnt + 1), at least {@link #MIN_TRANSPORT_TIMEOUT_NANOS}; Long.MAX_VALUE when the timeout is 0.
     */
    long transportTimeoutNanos() {
        final int timeout = qp.ackTimeout;
        if (timeout == 0) {
            return Long.MAX_VALUE;
        }
        final long ack = 4096L << Math.min(timeout, 31); // 4.096 µs × 2^timeout
        return Math.max(MIN_TRANSPORT_TIMEOUT_NANOS, ack * (qp.retryCount + 1));
    }

    /**
     * The agent's liveness sweep (every {@link IoAgent#SWEEP_NANOS}). iWARP leaves a silent peer to TCP, which gives
     * up after about 15 minutes when data is unacknowledged and never when nothing is sent; InfiniBand fails the
     * oldest request with RETRY_EXC_ERR after timeout × (retry_cnt + 1) without an acknowledgement. The soft
     * provider does the latter: while work waits on the peer (posted and not retired, or a READ/atomic/probe
     * outstanding) and nothing at all has arrived for half the transport timeout, it sends a confirmation read even
     * for unsignaled work (any live peer answers it); when nothing has arrived for the whole timeout, the work fails
     * and the connection is dropped. A side whose reader is stalled waiting for a receive (RNR) is not reading its
     * peer's answers, so it sends zero-length WRITE heartbeats instead, and does not judge its peer meanwhile.
     */
    int onSweep(final long now) {
        if (qp.teardown.closed || qp.state == QueuePairState.ERR) {
            return 0;
        }
        final RdmapTransmitter transmitter = qp.transmitter;
        // bytes in, or bytes the peer's TCP acknowledged
        final long moved = qp.inbound.readsWithBytes + transmitter.writer.bytesWritten();
        if (moved != movedSeenBySweep) {
            movedSeenBySweep = moved;
            heardOrWaitingSince = now;
        }
        // a frame that started and stopped arriving: only the peer can end it, and it does not
        final long received = qp.inbound.readsWithBytes;
        final FpduReader reader = qp.inbound.reader;
        if (received != receivedSeenBySweep || reader == null || !reader.midFrame()) {
            receivedSeenBySweep = received;
            frameProgressSince = now;
        } else if (now - frameProgressSince >= frameTimeoutNanos) {
            frameTimedOut(now - frameProgressSince);
            return 1;
        }
        if (qp.inbound.reader.isPaused()) {
            if (now - lastHeartbeat >= 2 * IoAgent.SWEEP_NANOS) {
                lastHeartbeat = now;
                transmitter.heartbeatDue = true;
                transmitter.drive();
            }
            waitingForPeer = false;
            return 0;
        }
        final boolean waiting = sq.head() < sq.tail() || !qp.orq.isEmpty();
        if (!waiting) {
            waitingForPeer = false;
            return 0;
        }
        if (!waitingForPeer) {
            waitingForPeer = true;
            heardOrWaitingSince = now;
            return 0;
        }
        final long timeout = transportTimeoutNanos();
        final long silent = now - heardOrWaitingSince;
        if (timeout != Long.MAX_VALUE && silent >= timeout) {
            transportTimedOut(silent);
            return 1;
        }
        if (silent >= timeout / 2 && qp.orq.isEmpty() && !transmitter.probeDue) {
            transmitter.probeDue = true;
            transmitter.drive();
            return 1;
        }
        return 0;
    }

    /**
     * The peer sent part of a frame and nothing more for the frame timeout: the connection is dropped (its work
     * flushes, the disconnect is raised, and a target frees the channel), logged, as a peer that went away.
     */
    private void frameTimedOut(final long stalledNanos) {
        SoftConnectedQueuePair.LOG.log(System.Logger.Level.WARNING, "QP {0}: the peer sent part of a frame and nothing more"
            + " for {1} ms: connection dropped ({2})", qp.qpn, TimeUnit.NANOSECONDS.toMillis(stalledNanos),
            Configuration.FRAME_TIMEOUT_MILLIS_PROP_NAME);
        final ConnectionTeardown teardown = qp.teardown;
        teardown.terminatePending = false;
        teardown.endCause = DisconnectReason.CONNECTION_LOST;
        qp.enterError();
        teardown.abort();
    }

    /** The peer stayed silent for the transport timeout: the oldest waiting request fails, the rest flush. */
    private void transportTimedOut(final long silentNanos) {
        SoftConnectedQueuePair.LOG.log(System.Logger.Level.DEBUG, "QP {0}: peer silent for {1} ms with work waiting: retries exceeded", qp.qpn,
            TimeUnit.NANOSECONDS.toMillis(silentNanos));
        for (long seq = sq.head(); seq < sq.tail(); seq++) {
            final SendWqe wqe = sq.at(seq);
            if (wqe.state != SendWqe.DONE) {
                qp.completion.confirmUpTo(seq); // transmitted before it and confirmed meanwhile: those stay successes
                qp.finish(wqe, WcStatus.RETRY_EXC_ERR.code());
                qp.retire();
                break;
            }
        }
        final ConnectionTeardown teardown = qp.teardown;
        teardown.terminatePending = false;
        teardown.endCause = DisconnectReason.TRANSPORT_TIMEOUT;
        qp.enterError();
        teardown.abort(); // an unanswering peer gets no goodbye: the connection is reset and the disconnect raised
    }
}
