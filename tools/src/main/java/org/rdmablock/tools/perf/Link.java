package org.rdmablock.tools.perf;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.ConnectionListener;
import org.rdmablock.verbs.ConnectionParameters;
import org.rdmablock.verbs.DeviceContext;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.QueuePair;
import org.rdmablock.verbs.QueuePairCapabilities;
import org.rdmablock.verbs.QueuePairInitAttributes;
import org.rdmablock.verbs.QueuePairType;
import org.rdmablock.verbs.VerbsProvider;

/**
 * Two ends of an RC connection inside one process, each with its own provider instance (so each has its own
 * device and I/O threads, as two hosts would), a registered buffer, and the peer's buffer address and rkey
 * exchanged in the connection's private data, as perftest exchanges them.
 */
final class Link implements AutoCloseable {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    /** One end. */
    static final class End implements AutoCloseable {
        final VerbsProvider provider;
        final DeviceContext context;
        final ProtectionDomain pd;
        final CompletionQueue sendCq;
        final CompletionQueue receiveCq;
        final Arena arena = Arena.ofShared();
        final MemoryRegion buffer;
        ConnectionId id;
        QueuePair qp;
        long peerAddress;
        int peerRkey;
        /** Receives kept posted by the latency tests (posted once, reposted as consumed). */
        boolean receivesPosted;

        End(final String providerName, final long bufferSize) {
            provider = VerbsProvider.load(providerName);
            context = provider.devices().getFirst().open();
            pd = context.allocateProtectionDomain();
            sendCq = context.createCompletionQueue(4096, null);
            receiveCq = context.createCompletionQueue(4096, null);
            final MemorySegment memory = arena.allocate(bufferSize, 4096);
            buffer = pd.registerMemory(memory, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_WRITE | AccessFlags.REMOTE_READ);
        }

        QueuePairInitAttributes attributes(final int depth) {
            return new QueuePairInitAttributes(QueuePairType.RC, sendCq, receiveCq, null,
                new QueuePairCapabilities(depth, depth, 1, 1, 64), false);
        }

        byte[] advert() {
            return ByteBuffer.allocate(12).putLong(buffer.address()).putInt(buffer.rkey()).array();
        }

        void learnPeer(final byte[] advert) {
            final ByteBuffer b = ByteBuffer.wrap(advert);
            peerAddress = b.getLong();
            peerRkey = b.getInt();
        }

        @Override
        public void close() {
            if (id != null) {
                id.close();
            }
            buffer.close();
            sendCq.close();
            receiveCq.close();
            pd.close();
            context.close();
            provider.close();
            arena.close();
        }
    }

    final End client;
    final End server;
    private final ConnectionListener listener;

    /**
     * Connects two ends over {@code address}.
     *
     * @param depth      send and receive queue depth of both QPs
     * @param readDepth  RDMA READs in flight each way (ORD/IRD)
     * @param bufferSize registered buffer of each end
     */
    Link(final String providerName, final InetAddress address, final int depth, final int readDepth, final long bufferSize) throws Exception {
        client = new End(providerName, bufferSize);
        server = new End(providerName, bufferSize);
        listener = server.provider.connectionManager().listen(new InetSocketAddress(address, 0), 4);
        client.id = client.provider.connectionManager().resolve(listener.localAddress(), TIMEOUT);
        client.qp = client.id.createQueuePair(client.pd, client.attributes(depth));
        final ConnectionParameters clientParameters = new ConnectionParameters(client.advert(), readDepth, readDepth, 7, 7);
        final CompletableFuture<Void> connected = CompletableFuture.runAsync(() -> client.id.connect(clientParameters, TIMEOUT));
        server.id = listener.nextRequest(TIMEOUT);
        if (server.id == null) {
            throw new IllegalStateException("no connection request arrived");
        }
        server.learnPeer(server.id.privateData());
        server.qp = server.id.createQueuePair(server.pd, server.attributes(depth));
        server.id.accept(new ConnectionParameters(server.advert(), readDepth, readDepth, 7, 7));
        connected.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        client.learnPeer(client.id.privateData());
    }

    @Override
    public void close() {
        client.close();
        server.close();
        listener.close();
    }
}
