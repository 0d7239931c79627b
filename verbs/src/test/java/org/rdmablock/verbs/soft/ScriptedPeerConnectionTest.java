package org.rdmablock.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.ConnectionFailedException;
import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.ConnectionListener;
import org.rdmablock.verbs.ConnectionParameters;
import org.rdmablock.verbs.DeviceContext;
import org.rdmablock.verbs.DisconnectReason;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.QueuePair;
import org.rdmablock.verbs.QueuePairInitAttributes;
import org.rdmablock.verbs.QueuePairState;
import org.rdmablock.verbs.QueuePairType;
import org.rdmablock.verbs.ReceiveWorkRequest;
import org.rdmablock.verbs.VerbsException;
import org.rdmablock.verbs.WcStatus;
import org.rdmablock.verbs.WorkCompletions;
import org.rdmablock.verbs.soft.wire.MpaFrame;

/**
 * The soft connection manager against scripted TCP peers that a second soft provider would never play: an
 * initiator that never sends its RFC 6581 ready-to-receive message (accept must give up and leave the id in a
 * defined state), a listener that never answers the MPA request (connect must give up), and a revision 1
 * initiator (the reply has no RFC 6581 block, so 4 more bytes of private data fit).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ScriptedPeerConnectionTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @Test
    void acceptGivesUpWhenThePeerNeverCompletesTheConnection() throws Exception {
        try (SoftProvider provider = new SoftProvider(); Arena arena = Arena.ofShared();
             ConnectionListener listener = provider.connectionManager().listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4);
             SocketChannel initiator = SocketChannel.open(listener.localAddress())) {
            final DeviceContext context = provider.devices().getFirst().open();
            final ProtectionDomain pd = context.allocateProtectionDomain();
            final CompletionQueue cq = context.createCompletionQueue(16, null);
            // a peer-to-peer request, as this provider and siw in peer-to-peer mode send it; then silence
            MpaNegotiation.sendRequest(initiator, 4, 4, new byte[] {1, 2, 3});
            final ConnectionId request = listener.nextRequest(TIMEOUT);
            assertNotNull(request, "no connection request");
            final QueuePair qp = request.createQueuePair(pd, QueuePairInitAttributes.of(QueuePairType.RC, cq));
            final MemoryRegion sink = pd.registerMemory(arena.allocate(64), AccessFlags.LOCAL_WRITE);
            final ReceiveWorkRequest recv = new ReceiveWorkRequest().wrId(7);
            recv.sgl().add(sink, 0, 64);
            qp.postReceive(recv);

            final long start = System.nanoTime();
            final ConnectionFailedException e = assertThrows(ConnectionFailedException.class,
                () -> request.accept(ConnectionParameters.of(new byte[0]), Duration.ofMillis(300)));
            final long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals(ConnectionFailedException.Reason.TIMEOUT, e.reason());
            assertEquals(VerbsException.ETIMEDOUT, e.errno());
            assertTrue(e.getMessage().contains("ready-to-receive"), "the message says what was waited for: " + e.getMessage());
            assertTrue(waitedMillis >= 250 && waitedMillis < 5000, "waited " + waitedMillis + " ms for a 300 ms timeout");
            // the defined state: disconnected by timeout, the QP in ERR with its receive flushed, the peer dropped
            assertEquals(ConnectionId.State.DISCONNECTED, request.state());
            assertEquals(DisconnectReason.TRANSPORT_TIMEOUT, request.disconnectReason());
            assertTrue(request.awaitDisconnect(Duration.ofMillis(1)));
            assertEquals(QueuePairState.ERR, qp.state());
            final WorkCompletions wc = new WorkCompletions(4);
            assertEquals(1, cq.poll(wc));
            assertEquals(7, wc.wrId(0));
            assertEquals(WcStatus.WR_FLUSH_ERR, wc.status(0));
            final MpaNegotiation.Frame reply = MpaNegotiation.read(initiator, MpaFrame.REPLY_KEY, TIMEOUT);
            assertTrue(!reply.rejected(), "the reply was an accept");
            initiator.socket().setSoTimeout((int) TIMEOUT.toMillis());
            assertEquals(-1, initiator.socket().getInputStream().read(), "the timed-out connection is closed");
            assertThrows(VerbsException.class, () -> request.accept(ConnectionParameters.of(new byte[0]), TIMEOUT),
                "a timed-out id cannot be accepted again");
            request.close();
            qp.close();
            cq.close();
            sink.close();
            pd.close();
            context.close();
        }
    }

    @Test
    void connectGivesUpWhenTheListenerNeverAnswersItsRequest() throws Exception {
        try (SoftProvider provider = new SoftProvider();
             ServerSocketChannel silent = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            final DeviceContext context = provider.devices().getFirst().open();
            final ProtectionDomain pd = context.allocateProtectionDomain();
            final CompletionQueue cq = context.createCompletionQueue(16, null);
            final ConnectionId id = provider.connectionManager().resolve((InetSocketAddress) silent.getLocalAddress(), TIMEOUT);
            final QueuePair qp = id.createQueuePair(pd, QueuePairInitAttributes.of(QueuePairType.RC, cq));
            final ConnectionFailedException e = assertThrows(ConnectionFailedException.class,
                () -> id.connect(ConnectionParameters.of(new byte[0]), Duration.ofMillis(300)));
            assertEquals(ConnectionFailedException.Reason.TIMEOUT, e.reason());
            assertEquals(VerbsException.ETIMEDOUT, e.errno());
            assertEquals(ConnectionId.State.DISCONNECTED, id.state());
            assertEquals(DisconnectReason.TRANSPORT_TIMEOUT, id.disconnectReason());
            assertEquals(QueuePairState.ERR, qp.state());
            try (SocketChannel accepted = silent.accept()) {
                assertEquals(-1, readByteOrEnd(accepted), "the abandoned TCP connection is closed after its MPA request");
            }
            id.close();
            cq.close();
            pd.close();
            context.close();
        }
    }

    /** Skips the MPA request (header and RFC 6581 block, no private data) and reads on: -1 once the peer has closed. */
    private static int readByteOrEnd(final SocketChannel channel) throws IOException {
        channel.socket().setSoTimeout((int) TIMEOUT.toMillis());
        final var in = channel.socket().getInputStream();
        assertEquals(MpaFrame.HEADER_LENGTH + MpaFrame.ENHANCED_LENGTH, in.readNBytes(MpaFrame.HEADER_LENGTH + MpaFrame.ENHANCED_LENGTH).length);
        return in.read();
    }

    @Test
    void aReplyToARevisionOneRequestCarries256BytesOfPrivateData() throws Exception {
        try (SoftProvider provider = new SoftProvider();
             ConnectionListener listener = provider.connectionManager().listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 4);
             SocketChannel initiator = SocketChannel.open(listener.localAddress())) {
            final DeviceContext context = provider.devices().getFirst().open();
            final ProtectionDomain pd = context.allocateProtectionDomain();
            final CompletionQueue cq = context.createCompletionQueue(16, null);
            final ByteBuffer frame = ByteBuffer.allocate(MpaFrame.HEADER_LENGTH);
            new MpaFrame().wrap(frame, 0).key(MpaFrame.REQUEST_KEY).flags(MpaFrame.FLAG_CRC).revision(1).privateDataLength(0);
            while (frame.hasRemaining()) {
                initiator.write(frame);
            }
            final ConnectionId request = listener.nextRequest(TIMEOUT);
            assertNotNull(request, "no connection request");
            assertEquals(MpaFrame.MAX_PRIVATE_DATA, request.maxPrivateDataLength(ConnectionId.CmMessage.REPLY));
            request.createQueuePair(pd, QueuePairInitAttributes.of(QueuePairType.RC, cq));
            assertEquals(VerbsException.EINVAL, assertThrows(VerbsException.class,
                () -> request.accept(ConnectionParameters.of(new byte[MpaFrame.MAX_PRIVATE_DATA + 1]), TIMEOUT)).errno());
            final byte[] data = new byte[MpaFrame.MAX_PRIVATE_DATA];
            java.util.Arrays.fill(data, (byte) 0x6B);
            request.accept(ConnectionParameters.of(data), TIMEOUT); // no peer-to-peer: established once the reply is sent
            final MpaNegotiation.Frame reply = MpaNegotiation.read(initiator, MpaFrame.REPLY_KEY, TIMEOUT);
            assertEquals(1, reply.revision());
            assertArrayEquals(data, reply.privateData());
            request.close();
            cq.close();
            pd.close();
            context.close();
        }
    }
}
