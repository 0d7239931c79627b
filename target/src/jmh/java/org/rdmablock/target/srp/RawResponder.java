package org.rdmablock.target.srp;

import org.rdmablock.protocol.scsi.ScsiStatus;
import org.rdmablock.protocol.srp.SrpBufferFormat;
import org.rdmablock.protocol.srp.SrpCommand;
import org.rdmablock.protocol.srp.SrpDirectBuffer;
import org.rdmablock.protocol.srp.SrpLoginResponse;
import org.rdmablock.protocol.srp.SrpResponse;
import org.rdmablock.target.config.ChannelConfig;
import org.rdmablock.target.config.IdentityConfig;
import org.rdmablock.target.core.Channel;
import org.rdmablock.target.core.WorkRequestIds;
import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.ConnectionListener;
import org.rdmablock.verbs.ConnectionParameters;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.QueuePair;
import org.rdmablock.verbs.QueuePairCapabilities;
import org.rdmablock.verbs.QueuePairInitAttributes;
import org.rdmablock.verbs.QueuePairType;
import org.rdmablock.verbs.ReceiveWorkRequest;
import org.rdmablock.verbs.SendFlags;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.SendWorkRequest;
import org.rdmablock.verbs.VerbsProvider;
import org.rdmablock.verbs.WorkCompletions;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;

/**
 * The transport floor of {@link TargetBench}: answers the same SRP_CMD IUs with the same verbs the target posts —
 * RDMA WRITE of the data-in and SEND of an SRP_RSP in one chain, or RDMA READ of the data-out and then the SEND —
 * but with nothing between: one thread polls the CQ, reads tag and descriptor, posts, and reposts the receive. No
 * SCSI, no backend, no pipeline, no copy. What the target measures above this is what the protocol stack costs.
 */
final class RawResponder implements AutoCloseable {
    private static final Duration LISTEN_POLL = Duration.ofMillis(200);
    private static final int RESPONSE_SLOT = 64;
    private static final long DATA_BYTES = 64L << 20;

    /**
     * One connection: its receive buffers and, per command slot, the response buffer and work requests. A slot is
     * free again when its response's send completion arrives, which the soft provider may hold back until a later
     * confirmation covers it: there are as many slots as receives plus the send queue's depth.
     */
    private static final class Channel {
        final int id;
        final ConnectionId connection;
        final QueuePair qp;
        final int slots;
        final MemoryRegion receiveRegion;
        final ReceiveWorkRequest[] receives;
        final MemoryRegion responseRegion;
        final SendWorkRequest[] transfers;
        final SendWorkRequest[] responses;
        final long[] tags;
        final int[] free;
        int freeCount;

        Channel(final int id, final ConnectionId connection, final QueuePair qp, final int receiveCount, final int iuLength,
                final Arena arena) {
            this.id = id;
            this.connection = connection;
            this.qp = qp;
            this.slots = receiveCount + qp.capabilities().maxSendWr();
            final ProtectionDomain pd = qp.protectionDomain();
            receiveRegion = pd.registerMemory(arena.allocate((long) receiveCount * iuLength, 4096), AccessFlags.LOCAL_WRITE);
            responseRegion = pd.registerMemory(arena.allocate((long) slots * RESPONSE_SLOT, 4096), AccessFlags.LOCAL_WRITE);
            receives = new ReceiveWorkRequest[receiveCount];
            transfers = new SendWorkRequest[slots];
            responses = new SendWorkRequest[slots];
            tags = new long[slots];
            free = new int[slots];
            for (int r = 0; r < receiveCount; r++) {
                receives[r] = new ReceiveWorkRequest(1).wrId(WorkRequestIds.of(WorkRequestIds.RECEIVE, id, r));
                receives[r].sgl().add(receiveRegion, (long) r * iuLength, iuLength);
            }
            for (int s = 0; s < slots; s++) {
                transfers[s] = new SendWorkRequest(1);
                responses[s] = new SendWorkRequest(1).opcode(SendOpcode.SEND).flags(SendFlags.SIGNALED)
                        .wrId(WorkRequestIds.of(WorkRequestIds.RESPONSE, id, s));
                responses[s].sgl().add(responseRegion, (long) s * RESPONSE_SLOT, SrpResponse.FIXED_LENGTH);
                free[freeCount++] = s;
            }
        }
    }

    private final VerbsProvider provider = VerbsProvider.load("soft");
    private final Arena arena = Arena.ofShared();
    private final IdentityConfig identity;
    private final ChannelConfig limits;
    private final ConnectionListener listener;
    private final AtomicReferenceArray<Channel> channels;
    private final Thread loginThread;
    private volatile Thread pollThread;
    private volatile boolean running = true;
    private ProtectionDomain pd;
    private CompletionQueue cq;
    private MemoryRegion data;
    // poll thread only
    private final WorkCompletions wc = new WorkCompletions(64);
    private final SrpCommand command = new SrpCommand();
    private final SrpDirectBuffer descriptor = new SrpDirectBuffer();
    private final SrpResponse response = new SrpResponse();

    RawResponder(final IdentityConfig identity, final ChannelConfig limits) {
        this.identity = identity;
        this.limits = limits;
        this.channels = new AtomicReferenceArray<>(limits.maxChannels());
        this.listener = provider.connectionManager().listen(new InetSocketAddress("127.0.0.1", 0), 64);
        this.loginThread = Thread.ofPlatform().name("raw-login").daemon().start(this::acceptLogins);
    }

    InetSocketAddress localAddress() {
        return listener.localAddress();
    }

    private void acceptLogins() {
        int next = 0;
        try {
            while (running) {
                final ConnectionId request = listener.nextRequest(LISTEN_POLL);
                if (request != null) {
                    login(request, next++);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void login(final ConnectionId request, final int id) {
        final LoginNegotiation login = LoginNegotiation.of(request.privateData(), identity, limits);
        if (login.rejectReason != 0 || id >= channels.length()) {
            request.reject(login.rejectPrivateData());
            request.close();
            return;
        }
        final int credits = limits.credits();
        if (pd == null) {
            pd = request.context().allocateProtectionDomain();
            cq = request.context().createCompletionQueue(limits.maxChannels() * (6 * credits + 16) + 64, null);
            data = pd.registerMemory(arena.allocate(DATA_BYTES, 4096), AccessFlags.LOCAL_WRITE);
            pollThread = Thread.ofPlatform().name("raw-poller").daemon().start(this::poll);
        }
        final int receives = credits + SrpChannel.SPARE_RECEIVES;
        final QueuePair qp = request.createQueuePair(pd, new QueuePairInitAttributes(QueuePairType.RC, cq, cq, null,
                new QueuePairCapabilities(8 * receives + 1, receives, 1, 1, 0), false));
        final Channel channel = new Channel(id, request, qp, receives, (int) login.requestedIuLength, arena);
        for (final ReceiveWorkRequest receive : channel.receives) {
            qp.postReceive(receive);
        }
        channels.set(id, channel);
        final ConnectionId.ReadDepths depths = request.readDepths();
        final int ord = depths.peerResponderResources() > 0 ? Math.min(16, depths.peerResponderResources()) : 16;
        request.accept(new ConnectionParameters(login.responsePrivateData(credits, SrpLoginResponse.MULTICHANNEL_NO_CHANNEL),
                Math.max(0, Math.min(16, depths.peerInitiatorDepth())), ord, 7, 7));
    }

    private void poll() {
        int idle = 0;
        while (running) {
            final int n = cq.poll(wc);
            for (int i = 0; i < n; i++) {
                if (!wc.isSuccess(i)) {
                    continue; // a channel going away
                }
                final long id = wc.wrId(i);
                final Channel channel = channels.get(WorkRequestIds.channel(id));
                final int index = WorkRequestIds.index(id);
                switch (WorkRequestIds.kind(id)) {
                    case WorkRequestIds.RECEIVE -> received(channel, index);
                    case WorkRequestIds.DATA_OUT -> respond(channel, index, channel.responses[index]);
                    case WorkRequestIds.RESPONSE -> channel.free[channel.freeCount++] = index;
                    default -> throw new IllegalStateException("unknown completion " + Long.toHexString(id));
                }
            }
            if (n > 0) {
                idle = 0;
            } else if (++idle <= 200) {
                Thread.onSpinWait();
            } else if (idle <= 300) {
                Thread.yield();
            } else {
                LockSupport.parkNanos(50_000);
            }
        }
    }

    /** Answers the SRP_CMD in receive buffer {@code index}: WRITE + SEND, READ (then SEND), or SEND alone. */
    private void received(final Channel channel, final int index) {
        final MemorySegment iu = channel.receiveRegion.segment();
        command.wrap(iu, channel.receives[index].sgl().address(0) - channel.receiveRegion.address());
        final int slot = channel.free[--channel.freeCount];
        channel.tags[slot] = command.tag();
        final SendWorkRequest transfer = channel.transfers[slot];
        final boolean dataIn = command.dataInFormat() == SrpBufferFormat.DIRECT;
        final boolean dataOut = command.dataOutFormat() == SrpBufferFormat.DIRECT;
        if (dataIn || dataOut) {
            final SrpDirectBuffer d = dataIn ? command.dataInDirect(descriptor) : command.dataOutDirect(descriptor);
            final long offset = ((long) channel.id * channel.slots + slot) * d.length() % DATA_BYTES;
            transfer.opcode(dataIn ? SendOpcode.RDMA_WRITE : SendOpcode.RDMA_READ).remote(d.virtualAddress(), d.key())
                    .flags(dataIn ? 0 : SendFlags.SIGNALED).next(dataIn ? channel.responses[slot] : null)
                    .wrId(WorkRequestIds.of(WorkRequestIds.DATA_OUT, channel.id, slot));
            transfer.sgl().clear().add(data, offset, (int) d.length());
        }
        channel.qp.postReceive(channel.receives[index]);
        if (dataOut) {
            channel.qp.postSend(transfer);
        } else {
            respond(channel, slot, dataIn ? transfer : channel.responses[slot]);
        }
    }

    /** Writes slot {@code slot}'s SRP_RSP (GOOD, one credit back) and posts {@code chain}, which ends with its SEND. */
    private void respond(final Channel channel, final int slot, final SendWorkRequest chain) {
        response.wrap(channel.responseRegion.segment(), (long) slot * RESPONSE_SLOT).reset()
                .setTag(channel.tags[slot]).setRequestLimitDelta(1).setStatus(ScsiStatus.GOOD);
        channel.qp.postSend(chain);
    }

    @Override
    public void close() {
        running = false;
        listener.close();
        join(loginThread);
        join(pollThread);
        for (int i = 0; i < channels.length(); i++) {
            final Channel channel = channels.get(i);
            if (channel != null) {
                channel.connection.close();
                channel.receiveRegion.close();
                channel.responseRegion.close();
            }
        }
        if (pd != null) {
            data.close();
            cq.close();
            pd.close();
        }
        provider.close();
        arena.close();
    }

    private static void join(final Thread thread) {
        if (thread != null) {
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
