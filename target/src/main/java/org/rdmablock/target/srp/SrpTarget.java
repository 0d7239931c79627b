package org.rdmablock.target.srp;

import org.agrona.concurrent.AgentRunner;
import org.rdmablock.protocol.scsi.LogicalUnitTable;
import org.rdmablock.protocol.srp.SrpLoginReject;
import org.rdmablock.protocol.srp.SrpLoginRequest;
import org.rdmablock.protocol.srp.SrpLoginResponse;
import org.rdmablock.target.config.InitiatorPortId;
import org.rdmablock.target.config.PipelineConfig;
import org.rdmablock.target.config.TargetConfig;
import org.rdmablock.target.metrics.SessionStats;
import org.rdmablock.target.metrics.TargetStatistics;
import org.rdmablock.verbs.CompletionChannel;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.ConnectionListener;
import org.rdmablock.verbs.ConnectionParameters;
import org.rdmablock.verbs.DeviceContext;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.QueuePair;
import org.rdmablock.verbs.QueuePairCapabilities;
import org.rdmablock.verbs.QueuePairInitAttributes;
import org.rdmablock.verbs.QueuePairType;
import org.rdmablock.verbs.SharedReceiveQueue;
import org.rdmablock.verbs.VerbsProvider;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An SRP target on one verbs provider: listens on the configured address, logs initiators in (one
 * {@link SrpChannel} per RC connection) and serves their commands through the {@link CommandPipeline}.
 *
 * <pre>
 *  login thread:  listen ─► connect request ─► LoginNegotiation ─► QP, receives ─► accept(LOGIN_RSP) / reject(LOGIN_REJ)
 *  poller thread: CQ ─► CompletionPoller ─► CommandPipeline (intake ─► backend threads) ─► responses
 * </pre>
 *
 * The device resources (PD, CQ, registered data and response memory, the pipeline) are made when the first
 * initiator connects, from that connection's device context: on the native provider rdma_cm chooses the device by
 * address, and every channel must share one PD and CQ.
 */
public final class SrpTarget implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SrpTarget.class);
    /** How long the login thread waits for a request before it checks whether the target is stopping. */
    private static final Duration LISTEN_POLL = Duration.ofMillis(200);
    /** Registered memory for command data: at least this much, and room for four commands of the largest size. */
    static final long MIN_DATA_BYTES = 64L << 20;
    /** Most receive buffers of the shared receive queue. */
    static final int MAX_SHARED_RECEIVES = 4096;
    /** How long a stopping target waits for its SRP_T_LOGOUTs to go before it disconnects what is left. */
    static final Duration SHUTDOWN_LOGOUT_WAIT = Duration.ofSeconds(2);
    /** Most RDMA READs in flight per channel, each way (ORD and IRD offered at accept). */
    static final int MAX_READ_DEPTH = 16;

    private final TargetConfig config;
    private final Function<InitiatorPortId, LogicalUnitTable> unitsFor;
    private final TargetStatistics statistics;
    private final VerbsProvider provider;
    private final ConnectionListener listener;
    private final Thread loginThread;
    private volatile boolean running = true;
    private DeviceContext context;
    private ProtectionDomain pd;
    private CompletionChannel completionChannel;
    private CompletionQueue cq;
    private SharedReceiveQueue srq;
    /** Made on the first connection; volatile for the methods that read it on other threads (reload, statistics). */
    private volatile CommandPipeline pipeline;
    /** The channels logged in; made with the pipeline, which looks them up. */
    private volatile ChannelTable channels;
    /** The shared receive buffers (SRQ mode), or null; made with the pipeline. */
    private ReceiveBuffers sharedReceives;
    private CompletionPoller poller;
    /** Runs the poller's duty cycle on its thread ({@link #POLLER_THREAD_NAME}). */
    private AgentRunner pollerRunner;
    /** The completion poller's thread; with {@code backend_threads = 0} it runs every command too. */
    static final String POLLER_THREAD_NAME = "srp-poller";

    /**
     * Starts listening, with statistics of its own (no LUN's I/O counted: {@link TargetStatistics#lunsServed}).
     *
     * @param unitsFor the logical units an initiator may see (its access list applied); null when it may see none
     */
    public static SrpTarget start(final TargetConfig config, final Function<InitiatorPortId, LogicalUnitTable> unitsFor) {
        return start(config, unitsFor, new TargetStatistics());
    }

    /**
     * Starts listening, counting logins, sessions and each command into {@code statistics}.
     *
     * @param unitsFor the logical units an initiator may see (its access list applied); null when it may see none
     */
    public static SrpTarget start(final TargetConfig config, final Function<InitiatorPortId, LogicalUnitTable> unitsFor,
                                  final TargetStatistics statistics) {
        final VerbsProvider provider = VerbsProvider.load(config.listen().provider());
        try {
            return new SrpTarget(config, unitsFor, statistics, provider);
        } catch (RuntimeException e) {
            provider.close();
            throw e;
        }
    }

    private SrpTarget(final TargetConfig config, final Function<InitiatorPortId, LogicalUnitTable> unitsFor,
                      final TargetStatistics statistics, final VerbsProvider provider) {
        this.config = config.withPipelineResolved();
        this.unitsFor = Objects.requireNonNull(unitsFor);
        this.statistics = Objects.requireNonNull(statistics);
        this.provider = provider;
        this.listener = provider.connectionManager().listen(
                new InetSocketAddress(config.listen().address(), config.listen().port()), 64);
        this.loginThread = Thread.ofPlatform().name("srp-login").daemon().start(this::acceptLogins);
    }

    /** The address listened on (with the real port when 0 was configured). */
    public InetSocketAddress localAddress() {
        return listener.localAddress();
    }

    /** The verbs provider's name (soft or native). */
    public String providerName() {
        return provider.name();
    }

    /** The pipeline this target runs: the configured one with its automatic values resolved. */
    public PipelineConfig pipeline() {
        return config.pipeline();
    }

    /** The 16-byte target port id as 32 hex digits: id_ext then ioc_guid. */
    public String targetPortId() {
        return String.format("%016x%016x", config.identity().idExt(), config.identity().iocGuid());
    }

    /** What the target counts: logins, sessions, each LUN's and session's commands. */
    public TargetStatistics statistics() {
        return statistics;
    }

    /** Channels logged in now. */
    public int channelCount() {
        final ChannelTable table = channels;
        return table == null ? 0 : table.count();
    }

    /** Commands answered since start. */
    public long commandsCompleted() {
        final CommandPipeline p = pipeline;
        return p == null ? 0 : p.commandsCompleted();
    }

    /**
     * Backend calls the poller handed to the blocking-call threads since start (they would have waited: reads the page
     * cache did not hold, fdatasync, FUA writes, ...); 0 without blocking-call threads.
     */
    public long blockingCalls() {
        return statistics.count(TargetStatistics.Count.BLOCKING_CALLS); // counted by BlockingCalls, at each hand-over
    }

    /** Free command slots and data chunks in use (what a leak test watches). */
    public String resourceSnapshot() {
        final CommandPipeline p = pipeline;
        return p == null ? "no pipeline" : "free slots " + p.freeSlots() + ", data chunks in use " + p.dataChunksInUse();
    }

    /**
     * A reload changed the units {@code initiator} sees: each of its channels answers its next command (but INQUIRY,
     * REPORT LUNS and REQUEST SENSE) with UNIT ATTENTION, REPORTED LUNS DATA HAS CHANGED, as LIO does.
     */
    public void lunInventoryChanged(final InitiatorPortId initiator) {
        final ChannelTable table = channels;
        if (table == null) {
            return;
        }
        for (int i = 0; i < table.capacity(); i++) {
            final SrpChannel channel = table.get(i);
            if (channel != null && channel.initiator.equals(initiator)) {
                channel.nexusLunsChanged.set(true); // one flag per nexus: its channels share it
            }
        }
    }

    /**
     * Waits until no command that began executing before this call is still running on a logical unit: a reload calls
     * it after taking units out of the initiators' tables and before closing their backends. Commands that come later
     * find the tables as they are now. True at once when no initiator has connected yet (there is no pipeline).
     *
     * @return false when {@code timeout} passed first
     */
    public boolean awaitCommandsInFlight(final Duration timeout) {
        final CommandPipeline p = pipeline;
        return p == null || p.awaitHandled(timeout);
    }

    int freeSlots() {
        return pipeline == null ? config.pipeline().ringSize() : pipeline.freeSlots();
    }

    int dataChunksInUse() {
        return pipeline == null ? 0 : pipeline.dataChunksInUse();
    }

    private void acceptLogins() {
        while (running) {
            final ConnectionId request;
            try {
                request = listener.nextRequest(LISTEN_POLL);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                if (running) {
                    LOG.warn("listener failed; no more logins are taken", e);
                }
                return;
            }
            if (request != null) {
                // Each login on its own virtual thread: an accept waits for the initiator (up to 10 s), and one slow
                // initiator must not hold up the others' logins.
                Thread.ofVirtual().name("srp-login-", request.hashCode()).start(() -> {
                    try {
                        login(request);
                    } catch (RuntimeException e) {
                        LOG.warn("login from {} failed", request.remoteAddress(), e);
                        request.close();
                    }
                });
            }
        }
    }

    private void login(final ConnectionId request) {
        final SrpChannel channel = admit(request);
        if (channel != null) {
            accept(request, channel);
        }
    }

    /**
     * Decides a login and, when it may go on, makes its channel (QP, receives) and enters it: under the target's lock,
     * so that concurrent logins see each other's channels. Returns null after rejecting.
     */
    private synchronized SrpChannel admit(final ConnectionId request) {
        final LoginNegotiation login = LoginNegotiation.of(request.privateData(), config.identity(), config.channel());
        if (login.rejectReason == 0 && !ensureDeviceResources(request.context())) {
            login.rejectReason = SrpLoginReject.REASON_INSUFFICIENT_RESOURCES;
            login.rejectWhy = "the target serves one RDMA device; this connection came in on another";
        }
        final LogicalUnitTable units = login.rejectReason == 0 ? unitsFor.apply(login.initiator) : null;
        if (login.rejectReason == 0 && units == null) {
            login.rejectReason = SrpLoginReject.REASON_UNABLE_ESTABLISH_CHANNEL;
            login.rejectWhy = "initiator " + login.initiator + " is on no LUN's access list";
        }
        final int channelId = login.rejectReason == 0 ? channels.freeId() : -1;
        if (login.rejectReason == 0 && channelId < 0) {
            login.rejectReason = SrpLoginReject.REASON_CHANNEL_LIMIT_REACHED;
            login.rejectWhy = "all " + channels.capacity() + " channels are in use";
        }
        if (login.rejectReason != 0) {
            statistics.loginRejected();
            LOG.warn("login from {}{} rejected ({}): {}", request.remoteAddress(),
                    login.initiator != null ? " (initiator " + login.initiator + ")" : "", login.rejectReasonName(),
                    login.rejectWhy);
            request.reject(login.rejectPrivateData());
            request.close();
            return null;
        }
        final int credits = config.channel().credits();
        final QueuePair qp = request.createQueuePair(pd, new QueuePairInitAttributes(QueuePairType.RC, cq, cq, srq,
                new QueuePairCapabilities(credits * (CommandSlot.TRANSFERS_PER_ROUND + 1) + 1,
                        credits + SrpChannel.SPARE_RECEIVES, 1, 1, 0), false));
        final SessionStats session = statistics.channelJoined(login.initiator);
        final SrpChannel channel;
        try {
            channel = new SrpChannel(channelId, request, qp, login.initiator, units, credits,
                    (int) login.requestedIuLength, login.requestedIuLength, login.immediateDataOffset,
                    readDepth(request.readDepths()), sharedReceives, session);
        } catch (RuntimeException e) {
            statistics.channelLeft(session);
            throw e;
        }
        channel.postAllReceives();
        // before the channel is published: it takes its nexus's unit attention flag from the others
        channel.multichannelResult = applyMultichannelAction(login, channel);
        channel.login = login;
        channels.enter(channel);
        request.onDisconnect(id -> pipeline.disconnected(channel));
        return channel;
    }

    /** Accepts an admitted channel's connection with its LOGIN_RSP; waits for the initiator, outside the lock. */
    private void accept(final ConnectionId request, final SrpChannel channel) {
        final LoginNegotiation login = channel.login;
        final int credits = channel.credits;
        final int multichannel = channel.multichannelResult;
        final int channelId = channel.id;
        final ConnectionId.ReadDepths depths = request.readDepths();
        final int ord = channel.readDepth;
        final int ird = depths.peerInitiatorDepth() > 0 ? Math.min(MAX_READ_DEPTH, depths.peerInitiatorDepth()) : 0;
        try {
            request.accept(new ConnectionParameters(login.responsePrivateData(credits, multichannel), ird, ord, 7, 7));
        } catch (RuntimeException e) {
            // Nothing was served yet: the QP goes with the id, its receives without completions.
            if (channels.remove(channel)) {
                statistics.channelLeft(channel.session);
                channel.release();
            }
            throw e;
        }
        statistics.loginAccepted();
        LOG.info("{} logged in: {} credits, IU {} bytes, immediate data {}, multichannel {}", channel, credits,
                login.requestedIuLength, login.immediateDataOffset != 0 ? "at byte " + login.immediateDataOffset : "off",
                multichannel == SrpLoginResponse.MULTICHANNEL_NO_CHANNEL ? "first channel"
                        : multichannel == SrpLoginResponse.MULTICHANNEL_MAINTAINED ? "other channels kept"
                        : "other channels ended");
        channel.acceptReturned(); // after the log line, so that a logout at once reads after the login
    }

    /** The RDMA READs the target may have outstanding: what the initiator's responder takes, at most {@link #MAX_READ_DEPTH}. */
    private static int readDepth(final ConnectionId.ReadDepths depths) {
        return depths.peerResponderResources() > 0 ? Math.min(MAX_READ_DEPTH, depths.peerResponderResources()) : MAX_READ_DEPTH;
    }

    /** SINGLE ends the initiator's other channels to this target; MULTIPLE keeps them (SRP r16a 6.4). */
    private int applyMultichannelAction(final LoginNegotiation login, final SrpChannel admitted) {
        final List<SrpChannel> others = new ArrayList<>();
        for (int i = 0; i < channels.capacity(); i++) {
            final SrpChannel other = channels.get(i);
            if (other != null && other != admitted && other.initiator.equals(login.initiator)) {
                // same initiator port, same target port: the same I_T nexus, whose unit attention the channels share
                admitted.nexusLunsChanged = other.nexusLunsChanged;
                if (!other.closing) {
                    others.add(other);
                }
            }
        }
        if (others.isEmpty()) {
            return SrpLoginResponse.MULTICHANNEL_NO_CHANNEL;
        }
        if (login.multichannelAction == SrpLoginRequest.MULTICHANNEL_MULTI) {
            return SrpLoginResponse.MULTICHANNEL_MAINTAINED;
        }
        for (final SrpChannel other : others) {
            LOG.info("{} ending: the initiator logged in again with multichannel action SINGLE", other);
            pipeline.endBySingleLogin(other); // SRP_T_LOGOUT, then the disconnect (SRP r16a 6.4)
        }
        return SrpLoginResponse.MULTICHANNEL_TERMINATED;
    }

    /** Makes the PD, CQ and pipeline on the first connection's device; false for a connection on another device. */
    private boolean ensureDeviceResources(final DeviceContext connectionContext) {
        if (context != null) {
            return context == connectionContext;
        }
        context = connectionContext;
        final PipelineConfig p = config.pipeline();
        pd = context.allocateProtectionDomain();
        completionChannel = p.completions() == PipelineConfig.CompletionMode.EVENT ? context.createCompletionChannel() : null;
        final int deviceMaxCqe = context.queryDevice().maxCqe();
        final int channelsServed = channelsTheCqHolds(deviceMaxCqe);
        cq = context.createCompletionQueue(Math.min(p.cqSize(), deviceMaxCqe), completionChannel);
        ReceiveBuffers shared = null;
        if (p.receiveQueue() == PipelineConfig.ReceiveQueueMode.SHARED) {
            final int count = sharedReceiveCount();
            srq = pd.createSharedReceiveQueue(count, 1);
            shared = ReceiveBuffers.shared(srq, count, config.channel().maxIuLength());
            shared.postAll();
        }
        final long maxIo = config.channel().maxIoSize();
        final long chunk = CommandPipeline.DATA_CHUNK_BYTES;
        final long dataBytes = (Math.max(MIN_DATA_BYTES, 4 * maxIo) + chunk - 1) / chunk * chunk;
        sharedReceives = shared;
        channels = new ChannelTable(channelsServed, shared != null);
        pipeline = new CommandPipeline(pd, p.ringSize(), dataBytes, maxIo, p.ringSize(), p.backendThreads(), p.blockingThreads(),
                channels, config.timeouts().idle(), config.timeouts().command(), shared, statistics,
                p.completions() == PipelineConfig.CompletionMode.EVENT,
                !provider.registrationPinsMemory()); // a LUN's mapping registered whole would be locked in RAM
        poller = new CompletionPoller(cq, completionChannel, pipeline);
        pollerRunner = new AgentRunner(poller.idleStrategy(), SrpTarget::pollerFailed, null, poller);
        AgentRunner.startOnThread(pollerRunner, runnable -> Thread.ofPlatform().name(POLLER_THREAD_NAME).daemon().unstarted(runnable));
        return true;
    }

    /**
     * Channels served at once: max_channels, or fewer where the device's CQ cannot hold cq_size entries. The CQ is
     * then as large as the device allows and no more channels are admitted than it holds without overflowing (rxe:
     * 32767 entries, less than the default 64 channels × 130 receives × 4 = 33280), since an overflowing CQ ends every
     * channel on it.
     */
    private int channelsTheCqHolds(final int deviceMaxCqe) {
        final PipelineConfig p = config.pipeline();
        final int maxChannels = config.channel().maxChannels();
        if (p.cqSize() <= deviceMaxCqe) {
            return maxChannels;
        }
        final long perChannel = PipelineConfig.minimumCqSize(1, config.channel().credits());
        final int served = (int) Math.min(maxChannels, deviceMaxCqe / perChannel);
        LOG.warn("{} holds at most {} completions per CQ: cq_size {} lowered to {}, channels served at once {} -> {} ({} "
                + "completions each at {} credits)", context.device().name(), deviceMaxCqe, p.cqSize(), deviceMaxCqe,
                maxChannels, served, perChannel, config.channel().credits());
        return Math.max(1, served);
    }

    /**
     * Receive buffers of the shared queue: every channel's credits (SPDK's default SRQ depth, 4096, at most), since an
     * SRQ that runs dry stalls every channel on it.
     */
    private int sharedReceiveCount() {
        final long all = (long) config.channel().maxChannels() * (config.channel().credits() + SrpChannel.SPARE_RECEIVES);
        return (int) Math.min(all, MAX_SHARED_RECEIVES);
    }

    /** Stops listening, disconnects every channel and releases the device resources. */
    @Override
    public void close() {
        running = false;
        listener.close();
        try {
            loginThread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (pipeline != null) {
            pipeline.shutDown(); // SRP_T_LOGOUT to every channel, then each disconnects once it has gone
            awaitChannelsDrained(SHUTDOWN_LOGOUT_WAIT);
            for (int i = 0; i < channels.capacity(); i++) {
                final SrpChannel channel = channels.get(i);
                if (channel != null) {
                    channel.disconnect();
                }
            }
            awaitChannelsDrained(Duration.ofSeconds(5));
            poller.stop();
            final Thread pollerThread = pollerRunner.thread();
            try {
                if (pollerThread != null) {
                    pollerThread.join(5_000);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (pollerThread == null || !pollerThread.isAlive()) {
                pollerRunner.close(); // the loop has ended: this only marks the runner closed
            }
            for (int i = 0; i < channels.capacity(); i++) {
                final SrpChannel channel = channels.take(i);
                if (channel != null) {
                    statistics.channelLeft(channel.session);
                    channel.release(); // did not drain in time: its QP goes without completions
                }
            }
            pipeline.close();
            cq.close();
            if (completionChannel != null) {
                completionChannel.close();
            }
            if (srq != null) {
                srq.close();
            }
            pd.close();
        }
        provider.close();
    }

    /** The poller's runner reports what ended its loop; the poller itself logged why. */
    private static void pollerFailed(final Throwable error) {
        if (!(error instanceof org.agrona.concurrent.AgentTerminationException)) {
            LOG.error("completion poller failed", error);
        }
    }

    private void awaitChannelsDrained(final Duration timeout) {
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (channelCount() > 0) {
            if (!CommandPipeline.sleepUntil(deadline)) {
                return;
            }
        }
    }
}
