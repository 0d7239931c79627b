package org.rdmablock.initiator;

import org.rdmablock.protocol.srp.SrpBufferFormat;
import org.rdmablock.protocol.srp.SrpDecodeError;
import org.rdmablock.protocol.srp.SrpLoginReject;
import org.rdmablock.protocol.srp.SrpLoginRequest;
import org.rdmablock.protocol.srp.SrpLoginRequestRdmaCm;
import org.rdmablock.protocol.srp.SrpLoginResponse;
import org.rdmablock.verbs.CompletionChannel;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.ConnectionFailedException;
import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.ConnectionParameters;
import org.rdmablock.verbs.ConnectionRejectedException;
import org.rdmablock.verbs.DeviceContext;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.QueuePair;
import org.rdmablock.verbs.QueuePairCapabilities;
import org.rdmablock.verbs.QueuePairInitAttributes;
import org.rdmablock.verbs.QueuePairType;
import org.rdmablock.verbs.ReceiveWorkRequest;
import org.rdmablock.verbs.VerbsProvider;

import java.lang.foreign.MemorySegment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.nio.ByteOrder;

/**
 * Logs a channel in, on the connecting thread at {@link SrpInitiator#connect} and on the channel's agent thread when it
 * logs in again ({@link Reconnector}).
 *
 * <p>Makes the channel's CQ and RC QP on the session's device, posts its receives, sends the 56-byte rdma_cm login of
 * Linux's ib_srp ({@code srp_login_req_rdma}) and reads the SRP_LOGIN_RSP (or the SRP_LOGIN_REJ's reason, in words).
 * The first channel logs in with multichannel action SINGLE (it ends what an earlier session of the same initiator port
 * id left at the target), every other one and every login again with MULTIPLE.
 */
final class ChannelLogin implements Reconnector {
    private static final Logger LOG = LoggerFactory.getLogger(ChannelLogin.class);
    /** The tag of the login requests. */
    static final long LOGIN_TAG = 0x5250_4C47; // "RPLG"
    /** A port id (SRP r16a 5.2): two big-endian 64-bit halves. */
    private static final ValueLayout.OfLong PORT_ID_HALF = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final int PORT_ID_LENGTH = 16;

    private final InitiatorConfig config;
    private final VerbsProvider provider;
    private final DeviceContext context;
    private final ProtectionDomain pd;
    /** Every path to the target ({@link InitiatorConfig#allPaths}), and the one the session's channels log in through. */
    private final List<InetSocketAddress> paths;
    private final AtomicInteger currentPath;
    /** Set when the session closes: no login again from then on. */
    private volatile boolean closed;

    /**
     * Logs channels in on {@code context}, the device the session's first connection came up on, through the first
     * path of {@link InitiatorConfig#allPaths} until {@link #pathTaken} or a lost channel says otherwise.
     */
    ChannelLogin(final InitiatorConfig config, final VerbsProvider provider, final DeviceContext context,
                 final ProtectionDomain pd) {
        this.config = config;
        this.provider = provider;
        this.context = context;
        this.pd = pd;
        this.paths = config.allPaths();
        this.currentPath = new AtomicInteger();
    }

    /** Resolves the target's address to a new connection id (on the device that reaches it). */
    static ConnectionId resolve(final VerbsProvider provider, final InitiatorConfig config) throws SrpIoException {
        return resolve(provider, config, config.target());
    }

    /** Resolves {@code address}, one of the target's paths, to a new connection id. */
    static ConnectionId resolve(final VerbsProvider provider, final InitiatorConfig config, final InetSocketAddress address)
            throws SrpIoException {
        try {
            return provider.connectionManager().resolve(address, config.connectTimeout());
        } catch (RuntimeException e) {
            throw new SrpIoException("cannot reach " + address + " over " + provider.name() + ": " + e.getMessage(), e);
        }
    }

    /** The session's first login went through path {@code path}: its channels log in through it. */
    void pathTaken(final int path) {
        currentPath.set(path);
    }

    /** Moves the session to the next path, when it has more than one (its channels follow as they log in again). */
    @Override
    public boolean leavePath(final String why) {
        if (paths.size() < 2 || closed) {
            return false;
        }
        final int from = currentPath.get();
        if (currentPath.compareAndSet(from, (from + 1) % paths.size())) {
            LOG.warn("leaving the path through " + paths.get(from) + ": " + why + "; the session goes on through "
                    + paths.get((from + 1) % paths.size()));
        }
        return true;
    }

    /** The path the session's channels log in through now. */
    InetSocketAddress currentPath() {
        return paths.get(currentPath.get());
    }

    /** A SEND's completion may come after its response, so the send queue holds two commands per slot. */
    static int sendQueueSize(final InitiatorConfig config) {
        return 2 * config.queueDepth() + ControlIus.COUNT + 1;
    }

    /** The session is closing: a channel's login again fails from now on. */
    void close() {
        closed = true;
    }

    /**
     * A channel's agent, after its connection was lost: logs channel {@code index} in again (multichannel action
     * MULTIPLE, so that the session's other channels stay) on the same device, posting its receives first: through the
     * session's current path, else each other path in turn; the first that takes the login becomes the current path
     * (the session's other channels follow it when theirs are lost).
     */
    @Override
    public ChannelLink reconnect(final int index, final ReceiveWorkRequest[] receives, final CompletionChannel events)
            throws SrpIoException {
        if (closed) {
            throw new SrpIoException("the initiator is closed");
        }
        final int start = currentPath.get();
        SrpIoException last = null;
        for (int k = 0; k < paths.size(); k++) {
            final int path = (start + k) % paths.size();
            try {
                final ChannelLink link = logIn(resolve(provider, config, paths.get(path)), index, receives, false, events);
                if (path != start && currentPath.compareAndSet(start, path)) {
                    LOG.warn("channel " + index + ": no login through " + paths.get(start) + " (" + last.getMessage()
                            + "); the session goes on through " + paths.get(path));
                }
                return link;
            } catch (SrpIoException e) {
                last = e;
            }
        }
        throw last;
    }

    /**
     * Makes a CQ and an RC QP on {@code id}, posts {@code receives} and logs in; on any failure closes them and the id.
     *
     * @param single multichannel action SINGLE (the session's first login), else MULTIPLE
     */
    ChannelLink logIn(final ConnectionId id, final int index, final ReceiveWorkRequest[] receives, final boolean single,
                      final CompletionChannel events) throws SrpIoException {
        CompletionQueue cq = null;
        try {
            final InetSocketAddress target = address(id);
            if (id.context() != context) {
                throw new SrpIoException("channel " + index + " to " + target + " came up on another RDMA device");
            }
            final int depth = config.queueDepth();
            final int sendQueueSize = sendQueueSize(config);
            cq = context.createCompletionQueue(sendQueueSize + depth + ChannelMemory.SPARE_RECEIVES, events);
            final QueuePair qp = id.createQueuePair(pd, new QueuePairInitAttributes(QueuePairType.RC, cq, cq, null,
                    new QueuePairCapabilities(sendQueueSize, depth + ChannelMemory.SPARE_RECEIVES, 1, 1, 0), false));
            for (final ReceiveWorkRequest receive : receives) {
                qp.postReceive(receive);
            }
            try {
                id.connect(new ConnectionParameters(loginRequest(index, single), 16, 16, 7, 7), config.connectTimeout());
            } catch (ConnectionRejectedException e) {
                if (e.reason() == ConnectionFailedException.Reason.NO_LISTENER) {
                    throw new SrpIoException("connection refused: no target listens at " + target.getHostString() + ":"
                            + target.getPort() + " ("
                            + config.provider() + " provider): is the target running, on that address and port?", e);
                }
                throw new SrpIoException("the target at " + target + " rejected the login of channel " + index + ": "
                        + rejectReason(e.privateData()), e);
            } catch (RuntimeException e) {
                throw new SrpIoException("connect to " + target + " failed: " + e.getMessage(), e);
            }
            final byte[] reply = id.privateData();
            final SrpLoginResponse response = new SrpLoginResponse().wrap(MemorySegment.ofArray(reply), 0);
            if (reply.length < SrpLoginResponse.LENGTH || response.validate(reply.length) != SrpDecodeError.NONE) {
                throw new SrpIoException("the target's login response does not decode (" + reply.length + " bytes)");
            }
            final int maxIt = (int) Math.min(response.maxInitiatorToTargetIuLength(), config.iuLength());
            final int immediateLimit = config.immediateData() && response.immediateDataSupported()
                    ? Math.max(0, maxIt - SrpCommandEncoder.IMMEDIATE_DATA_OFFSET) : 0;
            return new ChannelLink(id, qp, cq, response.requestLimitDelta(), immediateLimit);
        } catch (SrpIoException | RuntimeException e) {
            id.close();
            if (cq != null) {
                cq.close();
            }
            throw e;
        }
    }

    /** The address {@code id} was resolved for (the configured target when the provider does not say). */
    private InetSocketAddress address(final ConnectionId id) {
        final InetSocketAddress remote = id.remoteAddress();
        return remote != null ? remote : config.target();
    }

    /** The 56-byte login request of Linux's ib_srp (srp_login_req_rdma) for channel {@code index}. */
    private byte[] loginRequest(final int index, final boolean single) {
        final MemorySegment out = MemorySegment.ofArray(new byte[SrpLoginRequestRdmaCm.LENGTH]);
        final int multichannel = single ? SrpLoginRequest.MULTICHANNEL_SINGLE : SrpLoginRequest.MULTICHANNEL_MULTI;
        new SrpLoginRequestRdmaCm().wrap(out, 0).reset().setTag(LOGIN_TAG + index)
                .setRequestedMaxInitiatorToTargetIuLength(config.iuLength())
                .setRequiredBufferFormats(SrpBufferFormat.SUPPORTS_DIRECT | SrpBufferFormat.SUPPORTS_INDIRECT)
                .setFlags(multichannel | (config.immediateData() ? SrpLoginRequest.IMMEDIATE_DATA_REQUESTED : 0))
                .setImmediateDataOffset(config.immediateData() ? SrpCommandEncoder.IMMEDIATE_DATA_OFFSET : 0)
                .setInitiatorPortId(portId(config.initiatorIdHigh(), config.initiatorIdLow()))
                .setTargetPortId(portId(config.idExt(), config.iocGuid()));
        return out.toArray(ValueLayout.JAVA_BYTE);
    }

    /** A 16-byte port id from its high and low 64 bits. */
    private static byte[] portId(final long high, final long low) {
        final byte[] id = new byte[PORT_ID_LENGTH];
        final MemorySegment bytes = MemorySegment.ofArray(id);
        bytes.set(PORT_ID_HALF, 0, high);
        bytes.set(PORT_ID_HALF, Long.BYTES, low);
        return id;
    }

    /** SRP_LOGIN_REJ's reason in words (SRP r16a 6.5). */
    static String rejectReason(final byte[] privateData) {
        if (privateData == null || privateData.length < SrpLoginReject.LENGTH) {
            return "no SRP_LOGIN_REJ came with the reject";
        }
        final int reason = new SrpLoginReject().wrap(MemorySegment.ofArray(privateData), 0).reason();
        return switch (reason) {
            case SrpLoginReject.REASON_UNABLE_ESTABLISH_CHANNEL -> "unable to establish the channel (this initiator is on no LUN's access list?)";
            case SrpLoginReject.REASON_INSUFFICIENT_RESOURCES -> "insufficient resources";
            case SrpLoginReject.REASON_REQ_IT_IU_LENGTH_TOO_LARGE -> "the requested IU length is too large";
            case SrpLoginReject.REASON_UNABLE_ASSOCIATE_CHANNEL -> "unable to associate the channel (wrong id_ext/ioc_guid for this target?)";
            case SrpLoginReject.REASON_UNSUPPORTED_DESCRIPTOR_FORMAT -> "unsupported descriptor format";
            case SrpLoginReject.REASON_MULTI_CHANNEL_UNSUPPORTED -> "multichannel not supported";
            case SrpLoginReject.REASON_CHANNEL_LIMIT_REACHED -> "the target's channel limit is reached";
            default -> String.format("reason 0x%08x", reason);
        };
    }
}
