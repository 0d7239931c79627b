package org.rdmablock.target.srp;

import org.rdmablock.protocol.scsi.LogicalUnitTable;
import org.rdmablock.protocol.scsi.Nexus;
import org.rdmablock.protocol.scsi.NexusRegistry;
import org.rdmablock.protocol.scsi.SenseCode;
import org.rdmablock.protocol.scsi.TargetPortGroups;
import org.rdmablock.protocol.srp.SrpLoginReject;
import org.rdmablock.protocol.srp.SrpLoginRequest;
import org.rdmablock.protocol.srp.SrpLoginResponse;
import org.rdmablock.protocol.srp.SrpTargetLogout;
import org.rdmablock.target.config.InitiatorPortId;
import org.rdmablock.target.config.PipelineConfig;
import org.rdmablock.target.config.PortsConfig;
import org.rdmablock.target.config.TargetConfig;
import org.rdmablock.target.config.TimeoutConfig;
import org.rdmablock.target.core.ChannelTable;
import org.rdmablock.target.core.CommandSlot;
import org.rdmablock.target.core.DeviceResources;
import org.rdmablock.target.core.LoginListener;
import org.rdmablock.target.core.TargetDevice;
import org.rdmablock.target.core.Timeouts;
import org.rdmablock.target.metrics.SessionStats;
import org.rdmablock.target.metrics.TargetStatistics;
import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.ConnectionParameters;
import org.rdmablock.verbs.QueuePair;
import org.rdmablock.verbs.QueuePairCapabilities;
import org.rdmablock.verbs.QueuePairInitAttributes;
import org.rdmablock.verbs.QueuePairType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * An SRP target on one verbs provider: listens on each of its target ports ([listen] and each [[port]], a
 * {@link LoginListener} each), logs initiators in
 * (one {@link SrpChannel} per RC connection: admitted, then accepted) and serves their commands through
 * the {@link org.rdmablock.target.core.CommandPipeline} of its {@link DeviceResources}.
 *
 * <pre>
 *  login thread:  listen ─► connect request ─► LoginNegotiation ─► QP, receives ─► accept(LOGIN_RSP) / reject(LOGIN_REJ)
 *  poller thread: CQ ─► CompletionPoller ─► CommandPipeline (intake ─► backend threads) ─► responses
 * </pre>
 *
 * The device resources are made when the first initiator connects, from that connection's device context.
 *
 * <p>Threads: each login on a virtual thread of its own (admission under the target's lock); the accessors on any
 * thread; {@link #close} on the closing thread.
 */
public final class SrpTarget implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SrpTarget.class);
    /** The thread that takes login requests (each login then runs on a virtual thread of its own). */
    static final String LOGIN_THREAD_NAME = "srp-login";

    private final TargetConfig config;
    private final Function<InitiatorPortId, LogicalUnitTable> unitsFor;
    private final TargetStatistics statistics;
    /** The provider, the device resources and the pipeline, shared with the daemon's other front ends. */
    private final TargetDevice devices;
    /** Whether this target opened {@link #devices} itself (and closes it), or was given it. */
    private final boolean ownsDevices;
    /** [timeouts] as they are now: a configuration change sets them for the running pipeline. */
    private final Timeouts timeouts;
    /** The target ports: [listen]'s (relative target port 1), then each [[port]]'s, in that order. */
    private final List<TargetPort> ports = new ArrayList<>();

    /** One target port: where it listens, and its listener (null while management has taken it down). */
    private static final class TargetPort {
        final int id;
        /** The address bound at start (the real port when 0 was configured): where it listens again after a down. */
        final InetSocketAddress bound;
        LoginListener listener;

        TargetPort(final int id, final LoginListener listener) {
            this.id = id;
            this.bound = listener.localAddress();
            this.listener = listener;
        }
    }

    /**
     * A target port as management sees it.
     *
     * @param id        its relative target port identifier
     * @param address   where it listens (or listened, while down)
     * @param group     its target port group
     * @param state     the group's asymmetric access state ("active/optimized", ...)
     * @param listening false while taken down ({@link #portDown})
     * @param channels  the SRP channels logged in through it
     */
    public record PortStatus(int id, InetSocketAddress address, int group, String state, boolean listening, int channels) {
    }

    /** This target's front end on the pipeline, once the first connection made it (null until then). */
    private volatile SrpFrontEnd frontEnd;
    /** The I_T nexuses of the initiator ports that logged in (or that a REGISTER AND MOVE named). */
    private final NexusRegistry nexuses;

    /**
     * Starts listening, with statistics of its own (no LUN's I/O counted: {@link TargetStatistics#lunsServed}).
     *
     * @param unitsFor the logical units an initiator may see (its access list applied); null when it may see none
     */
    public static SrpTarget start(final TargetConfig config, final Function<InitiatorPortId, LogicalUnitTable> unitsFor) {
        return start(config, unitsFor, new TargetStatistics());
    }

    /**
     * Starts listening, counting logins, sessions and each command into {@code statistics}, on a device of its own.
     *
     * @param unitsFor the logical units an initiator may see (its access list applied); null when it may see none
     */
    public static SrpTarget start(final TargetConfig config, final Function<InitiatorPortId, LogicalUnitTable> unitsFor,
                                  final TargetStatistics statistics) {
        return TargetDevice.startAlone(config, statistics,
                device -> new SrpTarget(config, unitsFor, statistics, device, true, new NexusRegistry()));
    }

    /**
     * Starts listening on {@code devices}, which the daemon's other front ends share (its owner makes it
     * {@link TargetDevice#ready} and closes it, after this target).
     */
    public static SrpTarget start(final TargetDevice devices, final Function<InitiatorPortId, LogicalUnitTable> unitsFor,
                                  final TargetStatistics statistics) {
        return start(devices, unitsFor, statistics, new NexusRegistry());
    }

    /** As above, naming its initiators' I_T nexuses in {@code nexuses} (the units' persistent reservations' own). */
    public static SrpTarget start(final TargetDevice devices, final Function<InitiatorPortId, LogicalUnitTable> unitsFor,
                                  final TargetStatistics statistics, final NexusRegistry nexuses) {
        return new SrpTarget(devices.config(), unitsFor, statistics, devices, false, nexuses);
    }

    private SrpTarget(final TargetConfig config, final Function<InitiatorPortId, LogicalUnitTable> unitsFor,
                      final TargetStatistics statistics, final TargetDevice devices, final boolean ownsDevices,
                      final NexusRegistry nexuses) {
        this.config = config.withPipelineResolved();
        this.nexuses = Objects.requireNonNull(nexuses);
        this.unitsFor = Objects.requireNonNull(unitsFor);
        this.statistics = Objects.requireNonNull(statistics);
        this.devices = devices;
        this.ownsDevices = ownsDevices;
        this.timeouts = devices.timeouts();
        devices.addFrontEnd(core -> frontEnd = new SrpFrontEnd(core, timeouts));
        nexuses.portGroups(config.ports().portGroups());
        try {
            listen(TargetPortGroups.FIRST_PORT, config.listen().address(), config.listen().port());
            for (final PortsConfig.Port port : config.ports().ports()) {
                listen(port.id(), port.address(), port.port());
            }
        } catch (RuntimeException e) {
            ports.forEach(p -> p.listener.close());
            throw e;
        }
    }

    /** Listens on {@code address}:{@code port} as relative target port {@code relativePort}. */
    private void listen(final int relativePort, final String address, final int port) {
        ports.add(new TargetPort(relativePort, listener(relativePort, new InetSocketAddress(address, port))));
    }

    private LoginListener listener(final int relativePort, final InetSocketAddress address) {
        final String thread = relativePort == TargetPortGroups.FIRST_PORT ? LOGIN_THREAD_NAME : LOGIN_THREAD_NAME + "-" + relativePort;
        return new LoginListener(thread, devices.provider().connectionManager().listen(address, 64),
                request -> login(request, relativePort));
    }

    /** The address listened on (with the real port when 0 was configured): [listen]'s, relative target port 1. */
    public InetSocketAddress localAddress() {
        return localAddress(TargetPortGroups.FIRST_PORT);
    }

    /** The address target port {@code relativePort} listens on, or null when it has none. */
    public InetSocketAddress localAddress(final int relativePort) {
        final TargetPort port = port(relativePort);
        return port == null ? null : port.bound;
    }

    private TargetPort port(final int relativePort) {
        for (final TargetPort port : ports) {
            if (port.id == relativePort) {
                return port;
            }
        }
        return null;
    }

    /** Each target port with its group, state, whether it listens and its channels now. */
    public synchronized List<PortStatus> ports() {
        final TargetPortGroups groups = nexuses.portGroups();
        final DeviceResources d = devices.resources();
        final List<PortStatus> out = new ArrayList<>();
        for (final TargetPort port : ports) {
            int channels = 0;
            for (int i = 0; d != null && i < d.channels().capacity(); i++) {
                channels += d.channels().get(i) instanceof SrpChannel c && !c.closing() && c.nexus().relativeTargetPort() == port.id ? 1 : 0;
            }
            out.add(new PortStatus(port.id, port.bound, groups.groupOf(port.id), groups.stateOf(port.id).configName(),
                    port.listener != null, channels));
        }
        return out;
    }

    /**
     * Management: takes target port {@code relativePort} down, as a cable pulled would: it stops listening and every
     * channel through it is disconnected (its in-flight commands end as a lost connection ends them); initiators find
     * their other paths. Returns how many channels it disconnected.
     *
     * @throws IllegalArgumentException no such port, or it is down already
     */
    public synchronized int portDown(final int relativePort) {
        final TargetPort port = port(relativePort);
        if (port == null || port.listener == null) {
            throw new IllegalArgumentException(port == null ? "no target port " + relativePort + "; the ports are " + portIds()
                    : "target port " + relativePort + " is down already");
        }
        port.listener.close();
        port.listener = null;
        int disconnected = 0;
        final DeviceResources d = devices.resources();
        for (int i = 0; d != null && i < d.channels().capacity(); i++) {
            if (d.channels().get(i) instanceof SrpChannel channel && !channel.closing()
                    && channel.nexus().relativeTargetPort() == relativePort) {
                LOG.info("{}: disconnecting it, its target port {} taken down over the management socket", channel, relativePort);
                channel.disconnect();
                disconnected++;
            }
        }
        LOG.info("target port {} ({}) down: not listening, {} channel(s) disconnected", relativePort, port.bound, disconnected);
        return disconnected;
    }

    /**
     * Management: listens on target port {@code relativePort} again, at the address it had.
     *
     * @throws IllegalArgumentException no such port, or it is up
     */
    public synchronized void portUp(final int relativePort) {
        final TargetPort port = port(relativePort);
        if (port == null || port.listener != null) {
            throw new IllegalArgumentException(port == null ? "no target port " + relativePort + "; the ports are " + portIds()
                    : "target port " + relativePort + " is up");
        }
        port.listener = listener(relativePort, port.bound);
        LOG.info("target port {} ({}) up: listening again", relativePort, port.bound);
    }

    private List<Integer> portIds() {
        return ports.stream().map(p -> p.id).toList();
    }

    /**
     * The target port groups' states changed to {@code changed}'s (a reload; the ports are as they were): commands that
     * begin from now on see the new states, and every I_T nexus logged in is told ASYMMETRIC ACCESS STATE CHANGED on its
     * next command to each LUN it sees (SPC-4 5.16.2.6: every nexus, as REPORT TARGET PORT GROUPS' answer changed for
     * all; LIO tells only the nexuses through the ports of the group that changed).
     */
    public void portStatesChanged(final PortsConfig changed) {
        nexuses.portGroups(nexuses.portGroups().changedTo(changed.portGroups().groups()));
        final DeviceResources d = devices.resources();
        if (d == null) {
            return;
        }
        final ChannelTable table = d.channels();
        for (int i = 0; i < table.capacity(); i++) {
            if (table.get(i) instanceof SrpChannel channel) {
                final Nexus nexus = channel.nexus();
                channel.units().forEach(unit -> nexus.attentions().raise(unit.lun(), SenseCode.ASYMMETRIC_ACCESS_STATE_CHANGED));
            }
        }
    }

    /** The verbs provider's name (soft or native). */
    public String providerName() {
        return devices.provider().name();
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
        final DeviceResources d = devices.resources();
        return d == null ? 0 : d.channels().count();
    }

    /** Commands answered since start. */
    public long commandsCompleted() {
        final DeviceResources d = devices.resources();
        return d == null ? 0 : d.pipeline().commandsCompleted();
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
        final DeviceResources d = devices.resources();
        return d == null ? "no pipeline" : "free slots " + d.pipeline().freeSlots() + ", data chunks in use " + d.pipeline().dataChunksInUse();
    }

    /**
     * A reload changed the units {@code initiator} sees: each of its channels answers its next command (but INQUIRY,
     * REPORT LUNS and REQUEST SENSE) with UNIT ATTENTION, REPORTED LUNS DATA HAS CHANGED, as LIO does.
     */
    public void lunInventoryChanged(final InitiatorPortId initiator) {
        unitAttention(initiator, -1, SenseCode.REPORTED_LUNS_DATA_HAS_CHANGED); // nexus-wide: no LUN of its own
    }

    /** [timeouts] changed: the command and idle limits the running pipeline checks from now on. */
    public void timeoutsChanged(final TimeoutConfig changed) {
        timeouts.set(changed.command(), changed.idle());
    }

    /**
     * A change {@code initiator} is to be told of: REPORTED LUNS DATA HAS CHANGED (its inventory,
     * {@link #lunInventoryChanged}), or unit {@code lun} changed while it sees it: the next command to that LUN on a
     * channel of the initiator's nexus gets UNIT ATTENTION with {@code condition} (CAPACITY DATA HAS CHANGED for a
     * resize, MODE PARAMETERS CHANGED for write protection), as LIO reports them.
     */
    public void unitAttention(final InitiatorPortId initiator, final int lun, final SenseCode condition) {
        final DeviceResources d = devices.resources();
        if (d == null) {
            return;
        }
        final ChannelTable table = d.channels();
        for (int i = 0; i < table.capacity(); i++) {
            if (table.get(i) instanceof SrpChannel channel && channel.initiator().equals(initiator)) {
                channel.nexus().attentions().raise(lun, condition); // one set per nexus, shared by its channels: raised once
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
        final DeviceResources d = devices.resources();
        return d == null || d.pipeline().awaitHandled(timeout);
    }

    int freeSlots() {
        final DeviceResources d = devices.resources();
        return d == null ? config.pipeline().ringSize() : d.pipeline().freeSlots();
    }

    int dataChunksInUse() {
        final DeviceResources d = devices.resources();
        return d == null ? 0 : d.pipeline().dataChunksInUse();
    }

    /** A login's virtual thread: admits the request and accepts it, or rejects it. */
    private void login(final ConnectionId request, final int relativePort) {
        final SrpChannel channel = admit(request, relativePort);
        if (channel != null) {
            accept(request, channel);
        }
    }

    /**
     * Decides a login and, when it may go on, makes its channel (QP, receives) and enters it: under the target's lock,
     * so that concurrent logins see each other's channels. Returns null after rejecting.
     */
    private SrpChannel admit(final ConnectionId request, final int relativePort) {
        synchronized (devices) { // the device's channels are shared with the other front ends' admissions
            return admitLocked(request, relativePort);
        }
    }

    private SrpChannel admitLocked(final ConnectionId request, final int relativePort) {
        final LoginNegotiation login = LoginNegotiation.of(request.privateData(), config.identity(), config.channel());
        final DeviceResources d = login.rejectReason == 0 ? devices.resourcesFor(request.context()) : null;
        if (login.rejectReason == 0 && d == null) {
            login.rejectReason = SrpLoginReject.REASON_INSUFFICIENT_RESOURCES;
            login.rejectWhy = "the target serves one RDMA device; this connection came in on another";
        }
        final LogicalUnitTable units = login.rejectReason == 0 ? unitsFor.apply(login.initiator) : null;
        if (login.rejectReason == 0 && units == null) {
            login.rejectReason = SrpLoginReject.REASON_UNABLE_ESTABLISH_CHANNEL;
            login.rejectWhy = "initiator " + login.initiator + " is on no LUN's access list";
        }
        final int held = login.rejectReason == 0 ? channelsHeldBy(d, login) : 0;
        if (held >= config.channel().maxChannelsPerInitiator()) {
            login.rejectReason = SrpLoginReject.REASON_CHANNEL_LIMIT_REACHED;
            login.rejectWhy = "initiator " + login.initiator + " holds " + held + " channels, the most one initiator may"
                    + " (max_channels_per_initiator)";
        }
        final int channelId = login.rejectReason == 0 ? d.channels().freeId() : -1;
        if (login.rejectReason == 0 && channelId < 0) {
            login.rejectReason = SrpLoginReject.REASON_CHANNEL_LIMIT_REACHED;
            login.rejectWhy = "all " + d.channels().capacity() + " channels are in use";
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
        final QueuePair qp = request.createQueuePair(d.pd(), new QueuePairInitAttributes(QueuePairType.RC, d.cq(), d.cq(), d.srq(),
                new QueuePairCapabilities(credits * (CommandSlot.TRANSFERS_PER_ROUND + 1) + 1,
                        credits + SrpChannel.SPARE_RECEIVES, 1, 1, 0), false));
        final SessionStats session = statistics.channelJoined(login.initiator);
        session.cameFrom(String.valueOf(request.remoteAddress()));
        final SrpChannel channel;
        try {
            channel = new SrpChannel(channelId, request, qp, login.initiator,
                    nexuses.ofSrp(login.initiator.high(), login.initiator.low(), relativePort), units, credits,
                    (int) login.requestedIuLength, login.requestedIuLength, login.immediateDataOffset,
                    TargetDevice.readDepth(request.readDepths()), d.sharedReceives(), session);
        } catch (RuntimeException e) {
            statistics.channelLeft(session);
            throw e;
        }
        channel.respondsWith(frontEnd.responseEncoders());
        channel.postAllReceives();
        channel.multichannelResult = applyMultichannelAction(d, login, channel);
        channel.login = login;
        d.channels().enter(channel);
        request.onDisconnect(id -> d.pipeline().disconnected(channel));
        return channel;
    }

    /** Accepts an admitted channel's connection with its LOGIN_RSP; waits for the initiator, outside the lock. */
    private void accept(final ConnectionId request, final SrpChannel channel) {
        final LoginNegotiation login = channel.login;
        final int credits = channel.credits;
        final int multichannel = channel.multichannelResult;
        final int channelId = channel.id();
        final ConnectionId.ReadDepths depths = request.readDepths();
        final int ord = channel.readDepth();
        final int ird = TargetDevice.responderDepth(depths);
        try {
            request.accept(new ConnectionParameters(login.responsePrivateData(credits, multichannel), ird, ord, 7, 7));
        } catch (RuntimeException e) {
            // Nothing was served yet: the QP goes with the id, its receives without completions.
            if (devices.resources().channels().remove(channel)) { // admitted: the device resources exist
                statistics.channelLeft(channel.session());
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

    /**
     * The channels {@code login}'s initiator port holds that the login keeps: all that are not ending, with multichannel
     * action MULTIPLE; none with SINGLE, which ends them.
     */
    private static int channelsHeldBy(final DeviceResources d, final LoginNegotiation login) {
        if (login.multichannelAction != SrpLoginRequest.MULTICHANNEL_MULTI) {
            return 0;
        }
        final ChannelTable channels = d.channels();
        int held = 0;
        for (int i = 0; i < channels.capacity(); i++) {
            if (channels.get(i) instanceof SrpChannel other && !other.closing() && other.initiator().equals(login.initiator)) {
                held++;
            }
        }
        return held;
    }

    /**
     * Management: logs every channel of {@code initiator} out (SRP_T_LOGOUT, no reason given, then the disconnect) and
     * returns how many it asked; 0 when the initiator has none. Any thread.
     */
    public synchronized int logOut(final InitiatorPortId initiator) {
        final DeviceResources d = devices.resources();
        if (d == null) {
            return 0;
        }
        int asked = 0;
        for (int i = 0; i < d.channels().capacity(); i++) {
            if (d.channels().get(i) instanceof SrpChannel channel && !channel.closing() && channel.initiator().equals(initiator)) {
                LOG.info("{}: logging it out (SRP_T_LOGOUT), asked over the management socket", channel);
                frontEnd.endByRequest(channel, SrpTargetLogout.REASON_NONE);
                asked++;
            }
        }
        return asked;
    }

    /**
     * SINGLE ends the initiator's other channels to this target port (its I_T nexus: a path through another port stays);
     * MULTIPLE keeps them (SRP r16a 6.4).
     */
    private int applyMultichannelAction(final DeviceResources d, final LoginNegotiation login, final SrpChannel admitted) {
        final ChannelTable channels = d.channels();
        final List<SrpChannel> others = new ArrayList<>();
        for (int i = 0; i < channels.capacity(); i++) {
            if (channels.get(i) instanceof SrpChannel other && other != admitted && other.nexus() == admitted.nexus()) {
                if (!other.closing()) {
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
            frontEnd.endBySingleLogin(other); // SRP_T_LOGOUT, then the disconnect (SRP r16a 6.4)
        }
        return SrpLoginResponse.MULTICHANNEL_TERMINATED;
    }

    /**
     * Stops listening; on a device of its own, also disconnects every channel and releases the device resources (a
     * shared device is its owner's to close, after every front end's target).
     */
    @Override
    public void close() {
        synchronized (this) {
            ports.stream().filter(p -> p.listener != null).forEach(p -> p.listener.close());
        }
        if (ownsDevices) {
            devices.close();
        }
    }
}
