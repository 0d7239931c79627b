package org.rdmablock.verbs.soft;

import java.lang.foreign.Arena;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.Await;
import org.rdmablock.verbs.CompletionChannel;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.ConnectionParameters;
import org.rdmablock.verbs.DeviceContext;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.QueuePair;
import org.rdmablock.verbs.QueuePairInitAttributes;
import org.rdmablock.verbs.QueuePairType;
import org.rdmablock.verbs.WorkCompletions;
import org.rdmablock.verbs.soft.wire.RdmapOpcode;

/** One soft RC QP connected, as the active side, to a {@link WirePeer}; the peer has read the RTR. */
final class ScriptedConnection implements AutoCloseable {
    static final Duration TIMEOUT = Duration.ofSeconds(10);

    final SoftProvider provider;
    final Arena arena = Arena.ofShared();
    final WirePeer peer = new WirePeer();
    final CompletionQueue cq;
    /** The CQ's completion channel, when asked for; else null. */
    final CompletionChannel channel;
    final QueuePair qp;
    final ProtectionDomain pd;
    final ConnectionId id;

    /** Connects with {@code parameters}; {@code beforeConnect} may set QP attributes first; the peer grants {@code peerDepth} reads. */
    ScriptedConnection(final ConnectionParameters parameters, final Consumer<QueuePair> beforeConnect, final int peerDepth) throws Exception {
        this(parameters, beforeConnect, peerDepth, false);
    }

    /** As above; {@code withChannel}: the CQ gets a completion channel ({@link #channel}). */
    ScriptedConnection(final ConnectionParameters parameters, final Consumer<QueuePair> beforeConnect, final int peerDepth,
                       final boolean withChannel) throws Exception {
        this(new SoftProvider(), parameters, beforeConnect, peerDepth, withChannel);
    }

    /** As above, on {@code provider}'s device (closed with this connection). */
    ScriptedConnection(final SoftProvider provider, final ConnectionParameters parameters, final Consumer<QueuePair> beforeConnect,
                       final int peerDepth, final boolean withChannel) throws Exception {
        this(provider, parameters, beforeConnect, peerDepth, withChannel, java.util.function.UnaryOperator.identity());
    }

    /** As above, the QP made with {@code attributes} applied to an RC QP's defaults. */
    ScriptedConnection(final SoftProvider provider, final ConnectionParameters parameters, final Consumer<QueuePair> beforeConnect,
                       final int peerDepth, final boolean withChannel,
                       final java.util.function.UnaryOperator<QueuePairInitAttributes> attributes) throws Exception {
        this.provider = provider;
        final DeviceContext context = provider.devices().getFirst().open();
        pd = context.allocateProtectionDomain();
        channel = withChannel ? context.createCompletionChannel() : null;
        cq = context.createCompletionQueue(64, channel);
        id = provider.connectionManager().resolve(peer.address(), TIMEOUT);
        qp = id.createQueuePair(pd, attributes.apply(QueuePairInitAttributes.of(QueuePairType.RC, cq)));
        beforeConnect.accept(qp);
        final CompletableFuture<Void> connected = CompletableFuture.runAsync(() -> id.connect(parameters, TIMEOUT));
        peer.accept(peerDepth, peerDepth);
        connected.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        peer.await(RdmapOpcode.RDMA_WRITE, TIMEOUT); // the RTR of the peer-to-peer start
    }

    /** Waits up to {@link #TIMEOUT} for a completion on the CQ; returns how many the poll took (1). */
    int awaitCompletion(final WorkCompletions wc) {
        return Await.atMost("a completion", TIMEOUT).until(() -> cq.poll(wc, 1), n -> n > 0);
    }

    MemoryRegion register(final int size) {
        return pd.registerMemory(arena.allocate(size, 64), AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE);
    }

    @Override
    public void close() throws Exception {
        provider.close();
        peer.close();
        arena.close();
    }
}
