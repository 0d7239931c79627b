package org.rdmablock.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.Await;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.ConnectionListener;
import org.rdmablock.verbs.ConnectionParameters;
import org.rdmablock.verbs.DeviceContext;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.QueuePair;
import org.rdmablock.verbs.QueuePairAttributes;
import org.rdmablock.verbs.QueuePairInitAttributes;
import org.rdmablock.verbs.QueuePairState;
import org.rdmablock.verbs.QueuePairType;
import org.rdmablock.verbs.ReceiveWorkRequest;
import org.rdmablock.verbs.SendFlags;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.SendWorkRequest;
import org.rdmablock.verbs.WcStatus;
import org.rdmablock.verbs.WorkCompletions;
import org.rdmablock.verbs.soft.wire.RdmapOpcode;
import org.rdmablock.verbs.soft.wire.ReadRequest;

/**
 * The soft provider's transport timeout: a peer that stops answering without closing fails the waiting work with
 * RETRY_EXC_ERR after timeout × (retry_cnt + 1), and a live peer never does, even one that is slow to post its
 * receives (it sends heartbeats) or one that is only sent unsignaled work (it is probed).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PeerLivenessTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    /** 4.096 µs × 2^15 = 134 ms per try, 3 retries: the peer is given up after 537 ms. */
    private static final int ACK_TIMEOUT = 15;
    private static final int RETRIES = 3;
    private static final long GIVE_UP_NANOS = (4096L << ACK_TIMEOUT) * (RETRIES + 1);

    /** A soft QP connected to a scripted peer, with a short transport timeout. */
    private static ScriptedConnection connect() throws Exception {
        return new ScriptedConnection(new ConnectionParameters(new byte[0], 4, 4, RETRIES, 7),
            qp -> qp.modify(new QueuePairAttributes().timeout(ACK_TIMEOUT)), 4);
    }

    @Test
    void aPeerThatStopsAnsweringFailsTheWaitingWorkWithRetryExceededAndDisconnects() throws Exception {
        try (ScriptedConnection c = connect()) {
            final MemoryRegion buffer = c.register(64);
            final SendWorkRequest send = new SendWorkRequest().wrId(1).opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED);
            send.sgl().add(buffer, 0, 64);
            final SendWorkRequest next = new SendWorkRequest().wrId(2).opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED);
            next.sgl().add(buffer, 0, 64);
            final long posted = System.nanoTime();
            c.qp.postSend(send.next(next));
            // the peer reads what comes (its TCP stays up) and answers nothing: the confirmation read goes unanswered
            final WorkCompletions wc = new WorkCompletions(4);
            assertEquals(1, await(c.cq, wc, 1));
            final long waited = System.nanoTime() - posted;
            assertEquals(WcStatus.RETRY_EXC_ERR, wc.status(0), wc.toString(0));
            assertEquals(1, wc.wrId(0), "the oldest waiting request carries the error");
            assertTrue(waited >= GIVE_UP_NANOS, "gave up after " + waited / 1_000_000 + " ms, before the timeout of "
                + GIVE_UP_NANOS / 1_000_000 + " ms");
            assertEquals(1, await(c.cq, wc, 1));
            assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(0), "the rest flush");
            assertEquals(QueuePairState.ERR, c.qp.state());
            assertTrue(c.id.awaitDisconnect(TIMEOUT), "the disconnect is raised");
            assertEquals(org.rdmablock.verbs.DisconnectReason.TRANSPORT_TIMEOUT, c.id.disconnectReason(), "and says why");
            assertTrue(peerSeesTheEnd(c.peer), "the peer's connection is reset or closed");
        }
    }

    /**
     * A peer that sends part of a frame and then nothing: dropped after the frame timeout, as a peer gone away (a
     * target's channel would otherwise be held for as long as the peer's TCP lives); one whose frame arrives slowly,
     * each piece within the timeout, is not.
     */
    @Test
    void aPeerStoppedInTheMiddleOfAFrameIsDroppedAndASlowOneIsNot() throws Exception {
        final long frameTimeoutMillis = 600;
        System.setProperty(Configuration.FRAME_TIMEOUT_MILLIS_PROP_NAME, Long.toString(frameTimeoutMillis));
        try (ScriptedConnection c = connect()) {
            final MemoryRegion sink = c.register(64);
            final ReceiveWorkRequest receive = new ReceiveWorkRequest().wrId(5);
            receive.sgl().add(sink, 0, 64);
            c.qp.postReceive(receive);
            // slow: the frame in four pieces, 400 ms apart (each within the timeout, the whole beyond it)
            final java.nio.ByteBuffer slow = c.peer.send(new byte[40]);
            final int piece = slow.capacity() / 4 + 1;
            for (int at = 0; at < slow.capacity(); at += piece) {
                c.peer.write(slow.slice(at, Math.min(piece, slow.capacity() - at)));
                Thread.sleep(400); // the peer's pace is what is under test, not a wait for the provider
            }
            final WorkCompletions wc = new WorkCompletions(4);
            assertEquals(1, await(c.cq, wc, 1));
            assertEquals(WcStatus.SUCCESS, wc.status(0), "the slow frame arrived whole");
            assertEquals(QueuePairState.RTS, c.qp.state());

            // stopped: ten bytes of a frame, then silence with the TCP connection up
            final java.nio.ByteBuffer stopped = c.peer.send(new byte[40]);
            final long sent = System.nanoTime();
            c.peer.write(stopped.slice(0, 10));
            assertTrue(c.id.awaitDisconnect(TIMEOUT), "dropped");
            final long after = System.nanoTime() - sent;
            assertTrue(after >= TimeUnit.MILLISECONDS.toNanos(frameTimeoutMillis), "after " + after / 1_000_000 + " ms");
            assertEquals(org.rdmablock.verbs.DisconnectReason.CONNECTION_LOST, c.id.disconnectReason());
            assertEquals(QueuePairState.ERR, c.qp.state());
            assertTrue(peerSeesTheEnd(c.peer), "the peer's connection is reset or closed");
        } finally {
            System.clearProperty(Configuration.FRAME_TIMEOUT_MILLIS_PROP_NAME);
        }
    }

    /**
     * A liveness check whose first sweep finds a fresh connection mid-frame, before the reader's byte counter moved
     * (the poller parses before it counts; the sweep reads both racily), measures the stall from its own start: the
     * connection stays up.
     */
    @Test
    void aFirstSweepThatFindsAFreshConnectionMidFrameDoesNotDropIt() throws Exception {
        try (ScriptedConnection c = connect()) {
            final SoftConnectedQueuePair qp = (SoftConnectedQueuePair) c.qp;
            c.peer.write(c.peer.send(new byte[40]).slice(0, 10));
            Await.atMost("the reader is mid-frame", TIMEOUT).until(() -> qp.inbound.reader.midFrame());
            qp.inbound.readsWithBytes = 0; // what the race leaves the sweep to see: bytes parsed, none counted yet
            final PeerLiveness fresh = new PeerLiveness(qp);
            assertEquals(0, fresh.onSweep(System.nanoTime()), "nothing done at the first sweep");
            assertEquals(QueuePairState.RTS, c.qp.state(), "the connection is not dropped");
        }
    }

    @Test
    void unsignaledWorkToASilentButLivePeerIsProbedAndNeverTimesOut() throws Exception {
        try (ScriptedConnection c = connect()) {
            final MemoryRegion buffer = c.register(64);
            final SendWorkRequest write = new SendWorkRequest().opcode(SendOpcode.RDMA_WRITE).remote(0x1000, 0x200);
            write.sgl().add(buffer, 0, 64);
            c.qp.postSend(write); // unsignaled: no confirmation read of its own
            assertEquals(64, c.peer.await(RdmapOpcode.RDMA_WRITE, TIMEOUT).payloadLength());
            // silent for half the timeout, the provider asks the peer for a sign of life; a live peer answers
            final ReadRequest probe = c.peer.await(RdmapOpcode.READ_REQUEST, TIMEOUT).readRequest();
            assertEquals(0, probe.size());
            c.peer.sendReadResponse(probe.sinkStag(), probe.sinkOffset(), new byte[0]);
            Await.atMost("the QP stays in RTS for three give-up times", TIMEOUT.plusNanos(3 * GIVE_UP_NANOS))
                .during(Duration.ofNanos(3 * GIVE_UP_NANOS))
                .until(() -> c.qp.state() == QueuePairState.RTS);
            final WorkCompletions wc = new WorkCompletions(4);
            assertEquals(0, c.cq.poll(wc), "no completion, least of all an error");
            assertEquals(QueuePairState.RTS, c.qp.state());
        }
    }

    @Test
    void aPeerWaitingForAReceiveSendsHeartbeatsAndIsNotGivenUp() throws Exception {
        try (SoftProvider serverSide = new SoftProvider(); SoftProvider clientSide = new SoftProvider(); Arena arena = Arena.ofShared()) {
            final DeviceContext serverContext = serverSide.devices().getFirst().open();
            final ProtectionDomain serverPd = serverContext.allocateProtectionDomain();
            final CompletionQueue serverCq = serverContext.createCompletionQueue(16, null);
            final DeviceContext clientContext = clientSide.devices().getFirst().open();
            final ProtectionDomain clientPd = clientContext.allocateProtectionDomain();
            final CompletionQueue clientCq = clientContext.createCompletionQueue(16, null);
            try (ConnectionListener listener = serverSide.connectionManager().listen(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1)) {
                final ConnectionId client = clientSide.connectionManager().resolve(listener.localAddress(), TIMEOUT);
                final QueuePair clientQp = client.createQueuePair(clientPd, QueuePairInitAttributes.of(QueuePairType.RC, clientCq));
                clientQp.modify(new QueuePairAttributes().timeout(ACK_TIMEOUT));
                final CompletableFuture<Void> connected = CompletableFuture.runAsync(() -> client.connect(
                    new ConnectionParameters(new byte[0], 4, 4, RETRIES, 7), TIMEOUT));
                final ConnectionId server = listener.nextRequest(TIMEOUT);
                final QueuePair serverQp = server.createQueuePair(serverPd, QueuePairInitAttributes.of(QueuePairType.RC, serverCq));
                server.accept(new ConnectionParameters(new byte[0], 4, 4, RETRIES, 7)); // rnr_retry 7: wait forever
                connected.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);

                final MemoryRegion source = clientPd.registerMemory(arena.allocate(64, 64), AccessFlags.LOCAL_WRITE);
                final SendWorkRequest send = new SendWorkRequest().wrId(9).opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED);
                send.sgl().add(source, 0, 64);
                clientQp.postSend(send);
                // the server posts no receive for three give-up times: its stream stalls, its heartbeats go on
                Await.atMost("both QPs stay in RTS for three give-up times", TIMEOUT.plusNanos(3 * GIVE_UP_NANOS))
                    .during(Duration.ofNanos(3 * GIVE_UP_NANOS))
                    .until(() -> clientQp.state() == QueuePairState.RTS && serverQp.state() == QueuePairState.RTS);
                final WorkCompletions wc = new WorkCompletions(4);
                assertEquals(0, clientCq.poll(wc), "the SEND waits for the receive; it neither fails nor completes");
                final MemoryRegion sink = serverPd.registerMemory(arena.allocate(64, 64), AccessFlags.LOCAL_WRITE);
                final ReceiveWorkRequest receive = new ReceiveWorkRequest().wrId(10);
                receive.sgl().add(sink, 0, 64);
                serverQp.postReceive(receive);
                assertEquals(1, await(clientCq, wc, 1));
                assertEquals(WcStatus.SUCCESS, wc.status(0), wc.toString(0));
                assertEquals(1, await(serverCq, wc, 1));
                assertEquals(WcStatus.SUCCESS, wc.status(0), wc.toString(0));
                client.close();
                server.close();
            }
        }
    }

    private static boolean peerSeesTheEnd(final WirePeer peer) throws IOException {
        try {
            while (true) {
                if (peer.next(TIMEOUT) == null) {
                    return false; // nothing and no end within the timeout
                }
            }
        } catch (final IOException e) {
            return true; // EOF or connection reset
        }
    }

    private static int await(final CompletionQueue cq, final WorkCompletions wc, final int max) {
        return Await.atMost("a completion", TIMEOUT).until(() -> cq.poll(wc, max), n -> n > 0);
    }
}
