package org.rdmablock.initiator;

import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.CompletionChannel;
import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.DeviceContext;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.VerbsProvider;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A session with one SRP target: logs in over {@link InitiatorConfig#channels()} RC channels, discovers the target's
 * logical units (REPORT LUNS, INQUIRY, READ CAPACITY, the block limits VPD page) and hands them out as {@link Lun}s.
 * With {@link InitiatorConfig#withNvme} the same session speaks NVMe over Fabrics instead (the name stays, as the
 * class came first): {@link NvmeAssociation} connects the admin queue and each channel as an I/O queue, and the
 * namespaces Identify reports are the {@link Lun}s, numbered by namespace id.
 *
 * <pre>
 *  application threads ─► Lun.read/write/flush/unmap ─► RequestRouter ─► a channel's ring ─► its agent ─► SRP_CMD
 *                      ◄─ IoCallback / CompletableFuture / blocking (CompletionWaiter) ◄──────── SRP_RSP ◄── target
 * </pre>
 *
 * <p>The session's parts: {@link ChannelLogin} logs each channel in (and in again; NVMe: {@link NvmeAssociation}),
 * {@link LunDiscovery} finds the LUNs, {@link RequestRouter} picks the channel of each request, {@link CompletionWaiter} waits for answers (driving
 * caller-driven channels meanwhile).
 *
 * <p>Thread safety: every method may be called from any thread. Callbacks run on a channel's agent thread and must not
 * block. The first channel logs in with multichannel action SINGLE, which ends any channel an earlier session of the
 * same initiator port id left at the target (as Linux's ib_srp); the others with MULTIPLE. So two sessions in one
 * process to one target need different initiator port ids ({@link InitiatorConfig#withInitiatorPortId}).
 */
public final class SrpInitiator implements AutoCloseable {
    /** Bytes one command carries when a LUN reports no maximum transfer length. */
    public static final int DEFAULT_MAX_TRANSFER = LunDiscovery.DEFAULT_MAX_TRANSFER;

    private final InitiatorConfig config;
    private final VerbsProvider provider;
    private final Arena arena = Arena.ofShared();
    private final List<InitiatorChannel> channels = new ArrayList<>();
    private final List<AutoCloseable> resources = new ArrayList<>();
    private final RegisteredMemory registered = new RegisteredMemory();
    private final RequestRouter router;
    private final CompletionWaiter waiter;
    /** The device the first connection came up on, its protection domain and the login on it: made at that login. */
    private DeviceContext context;
    private ProtectionDomain pd;
    private ChannelLogin login;
    /** The path the session's first connection resolved (connect only). */
    private int firstResolved;
    /** NVMe: the association with the controller (its admin queue), made at the first login; null for SRP. */
    private NvmeAssociation association;
    private List<Lun> luns = List.of();
    private volatile boolean closed;

    private SrpInitiator(final InitiatorConfig config) {
        this.config = config;
        this.provider = VerbsProvider.load(config.provider());
        this.router = new RequestRouter(channels, config.channelPolicy(), config.bounceBytes());
        this.waiter = new CompletionWaiter(channels, config.waiting());
    }

    /**
     * Connects and logs in every channel, then discovers the LUNs.
     *
     * @throws SrpIoException the target is unreachable, rejected the login (the reason in words) or did not answer
     */
    public static SrpInitiator connect(final InitiatorConfig config) throws SrpIoException {
        final SrpInitiator initiator = new SrpInitiator(config);
        try {
            for (int i = 0; i < config.channels(); i++) {
                initiator.logIn(i);
            }
            initiator.luns = Collections.unmodifiableList(initiator.association != null
                    ? initiator.namespaces() : initiator.discoverLuns());
            return initiator;
        } catch (SrpIoException | RuntimeException e) {
            initiator.close();
            throw e;
        }
    }

    /** SRP: the LUNs from REPORT LUNS and each LUN's INQUIRY, capacity and limits. */
    private List<Lun> discoverLuns() throws SrpIoException {
        final List<Lun> found = new ArrayList<>();
        for (final LunDiscovery.Found lun : new LunDiscovery(router, waiter).discover()) {
            found.add(new Lun(this, lun.number(), lun.address(), lun.blockSize(), lun.blockCount(),
                    lun.maxTransferBytes(), lun.vendor(), lun.product(), lun.revision(), lun.serial()));
        }
        return found;
    }

    /** NVMe: each active namespace a LUN numbered by its namespace id, with the controller's identity. */
    private List<Lun> namespaces() throws SrpIoException {
        final NvmeAssociation.Controller controller = association.controller();
        final List<Lun> found = new ArrayList<>();
        for (final NvmeAssociation.Namespace namespace : association.namespaces()) {
            found.add(new Lun(this, (int) namespace.id(), namespace.id(), namespace.blockSize(), namespace.blocks(),
                    controller.maxTransferBytes(), "NVMe", controller.model(), controller.firmware(), controller.serial()));
        }
        return found;
    }

    /** The configuration this session was made with. */
    public InitiatorConfig config() {
        return config;
    }

    /** The target's logical units this initiator may see, by LUN number. */
    public List<Lun> luns() {
        return luns;
    }

    /** The LUN numbered {@code number}. */
    public Lun lun(final int number) {
        for (final Lun lun : luns) {
            if (lun.number() == number) {
                return lun;
            }
        }
        throw new IllegalArgumentException("the target reports no LUN " + number + " to this initiator: " + luns);
    }

    /** Channels of this session. */
    public int channelCount() {
        return channels.size();
    }

    /** SRP_CMDs sent so far on all channels (a request larger than a command carries counts once per command). */
    public long commandsIssued() {
        long n = 0;
        for (final InitiatorChannel channel : channels) {
            n += channel.commandsIssued();
        }
        return n;
    }

    /** ABORT TASKs sent for commands past the command timeout, on all channels. */
    public long aborts() {
        return channels.stream().mapToLong(InitiatorChannel::aborts).sum();
    }

    /** LUN RESETs sent (an ABORT TASK that got no answer, or a failed one). */
    public long lunResets() {
        return channels.stream().mapToLong(InitiatorChannel::lunResets).sum();
    }

    /** Times a channel logged in again after its connection was lost. */
    public long reconnects() {
        return channels.stream().mapToLong(InitiatorChannel::reconnects).sum();
    }

    /** Command parts sent again after an abort or a reconnect. */
    public long retries() {
        return channels.stream().mapToLong(InitiatorChannel::retries).sum();
    }

    /** Requests that went in another request's command (merging) on all channels. */
    public long requestsMerged() {
        long n = 0;
        for (final InitiatorChannel channel : channels) {
            n += channel.mergedRequests();
        }
        return n;
    }

    /**
     * Native memory of {@code bytes}, 4096-aligned and registered for RDMA: reads and writes of a buffer inside it move
     * straight between the target and it (no copy), and up to a LUN's maximum transfer per command. Freed at
     * {@link #close}.
     */
    public MemorySegment allocateBuffer(final long bytes) {
        final MemoryRegion region = pd.registerMemory(arena.allocate(bytes, 4096),
                AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE);
        registered.add(region);
        return region.segment();
    }

    /**
     * Registers the caller's native {@code memory} for one or more direct transfers through
     * {@link Lun#read(long, long, MemoryRegion, long, Object, IoCallback)} and its write twin: the target then reads or
     * writes that memory itself, with no copy through a bounce buffer. The caller closes the region once its last
     * operation is answered (closing it earlier makes the target's late access fail, which ends the channel: the
     * memory stays protected). What it costs depends on the provider ({@link #registrationIsCheap}): on {@code soft} a
     * table entry, little enough to register a buffer per operation (a FUSE request's own buffer); on a native device
     * the pages are pinned and mapped, which pays only for buffers used many times ({@link #allocateBuffer}).
     *
     * @throws IllegalArgumentException {@code memory} is on the heap or empty
     */
    public MemoryRegion registerMemory(final MemorySegment memory) {
        if (closed) {
            throw new IllegalStateException("the initiator is closed");
        }
        if (!memory.isNative() || memory.byteSize() == 0) {
            throw new IllegalArgumentException("only non-empty native memory can be registered: " + memory);
        }
        return pd.registerMemory(memory, AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE);
    }

    /**
     * Whether {@link #registerMemory} costs so little that registering a buffer for a single operation beats copying
     * it: a provider whose registration pins nothing ({@code soft}, see {@link VerbsProvider#registrationPinsMemory});
     * not a native device, where registering pins and maps every page.
     */
    public boolean registrationIsCheap() {
        return !provider.registrationPinsMemory();
    }

    /** Whether {@code region} was registered by this initiator (its protection domain). */
    boolean owns(final MemoryRegion region) {
        return region.protectionDomain() == pd;
    }

    /** Submits one request on the channel the policy picks. */
    void submit(final int op, final Lun lun, final long lba, final long blocks, final MemorySegment buffer, final long offset,
                final boolean fua, final Object attachment, final IoCallback callback) {
        submit(op, lun, lba, blocks, buffer, offset, buffer == null ? RegisteredMemory.NOT_REGISTERED
                : registered.rkeyOf(buffer, offset, blocks * lun.blockSize()), fua, attachment, callback);
    }

    /** Submits one request whose buffer is registered under {@code rkey} (or {@link RegisteredMemory#NOT_REGISTERED}). */
    void submit(final int op, final Lun lun, final long lba, final long blocks, final MemorySegment buffer, final long offset,
                final int rkey, final boolean fua, final Object attachment, final IoCallback callback) {
        if (closed) {
            throw new IllegalStateException("the initiator is closed");
        }
        router.submit(op, lun.address(), lun.blockSize(), lun.maxTransferBytes(), lba, blocks, buffer, offset, rkey, fua,
                attachment, callback);
    }

    /**
     * With {@link InitiatorConfig.Waiting#CALLER}: runs one duty cycle of every channel on the calling thread: sends
     * what was submitted (within the target's credits), takes the answers and calls their callbacks here, checks
     * command timeouts and, when a connection was lost, reconnects (which may take until the reconnect timeout). Call
     * it whenever the thread would otherwise wait; a channel another thread is driving at that moment is skipped, so
     * any number of threads may call it. Returns the work done (0: nothing came or went). Does nothing and returns 0
     * in the other waiting modes, whose channel threads drive the channels. Allocates nothing.
     */
    public int poll() {
        return waiter.poll();
    }

    /**
     * Waits up to {@code timeout} for {@code future}; with {@link InitiatorConfig.Waiting#CALLER} the waiting thread
     * drives the channels meanwhile ({@link #poll}), spinning while polls bring work and yielding the core after 64 that
     * bring none (another thread may hold the channel). Returns whether the future is done; false when the timeout
     * passed or the thread was interrupted (its interrupt flag stays set). Never blocks in {@code future.get}, so a
     * caller reads the result with {@code get(0, ...)} or {@code join()} once this returns true.
     */
    public boolean awaitDone(final java.util.concurrent.Future<?> future, final long timeout, final TimeUnit unit) {
        return waiter.awaitDone(future, timeout, unit);
    }

    /**
     * Waits for {@code future}, turning its failure into the {@link SrpIoException} it carries. With
     * {@link InitiatorConfig.Waiting#CALLER} the waiting thread drives the channels meanwhile: nobody else would.
     */
    long await(final CompletableFuture<Long> future, final String what, final long timeoutSeconds) throws SrpIoException {
        return waiter.await(future, what, timeoutSeconds);
    }

    /** Channel {@code index}'s agent thread (tests look at how it waits); null when the callers drive it. */
    Thread channelThread(final int index) {
        return channels.get(index).thread();
    }

    /** Logs channel {@code index} in (the first also opens the device) and starts it. */
    private void logIn(final int index) throws SrpIoException {
        final boolean nvme = config.protocol() == InitiatorConfig.Protocol.NVME;
        final ConnectionId id = nvme ? ChannelLogin.resolve(provider, config)
                : login == null ? resolveFirstPath() : ChannelLogin.resolve(provider, config, login.currentPath());
        if (context == null) {
            context = id.context();
            pd = context.allocateProtectionDomain();
            login = new ChannelLogin(config, provider, context, pd);
            if (nvme) {
                association = new NvmeAssociation(config, provider, context, pd);
                association.open(ChannelLogin.resolve(provider, config));
            }
        }
        final ChannelMemory memory = ChannelMemory.register(pd, arena, config.queueDepth(), nvme
                ? NvmeAssociation.CAPSULE_LENGTH + association.controller().inCapsuleBytes() : config.iuLength(),
                config.bounceBytes(), resources);
        final CompletionChannel events = config.waiting() == InitiatorConfig.Waiting.EVENTS
                ? context.createCompletionChannel() : null;
        if (events != null) {
            resources.add(events); // closed at close(), after the channels and their CQs
        }
        final ChannelLink link = nvme ? association.logIn(id, index, memory.receiveRequests(), events)
                : index == 0 ? firstLogin(id, memory, events)
                : login.logIn(id, index, memory.receiveRequests(), false, events);
        final InitiatorChannel channel = new InitiatorChannel(index, link, memory, config.queueDepth(), config.ringSize(),
                ChannelLogin.sendQueueSize(config), config.merge(), config.readPriority(), FaultPolicy.of(config), events,
                nvme ? association : login, config.waiting() != InitiatorConfig.Waiting.CALLER, config.protocol());
        channels.add(channel);
        channel.start();
    }

    /** The first path that resolves (a path whose address no device reaches is passed over); its index in firstResolved. */
    private ConnectionId resolveFirstPath() throws SrpIoException {
        final List<java.net.InetSocketAddress> paths = config.allPaths();
        SrpIoException last = null;
        for (int path = 0; path < paths.size(); path++) {
            try {
                final ConnectionId id = ChannelLogin.resolve(provider, config, paths.get(path));
                firstResolved = path;
                return id;
            } catch (SrpIoException e) {
                last = e;
            }
        }
        throw last;
    }

    /**
     * The session's first SRP login (multichannel action SINGLE): through the configured target, else each other path in
     * turn ({@link InitiatorConfig#withPaths}); the path that takes it is the one the session's channels use.
     */
    private ChannelLink firstLogin(final ConnectionId first, final ChannelMemory memory, final CompletionChannel events)
            throws SrpIoException {
        final List<java.net.InetSocketAddress> paths = config.allPaths();
        SrpIoException last = null;
        for (int path = firstResolved; path < paths.size(); path++) {
            try {
                final ConnectionId id = path == firstResolved ? first : ChannelLogin.resolve(provider, config, paths.get(path));
                final ChannelLink link = login.logIn(id, 0, memory.receiveRequests(), true, events);
                login.pathTaken(path);
                return link;
            } catch (SrpIoException e) {
                last = e;
            }
        }
        throw last;
    }

    /**
     * Logs every channel out (after up to 5 s for what is in flight; what is left fails) and releases the channels,
     * the registered memory, including {@link #allocateBuffer}'s, and the provider.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        for (final InitiatorChannel channel : channels) {
            if (channel.drivenByCurrentThread()) {
                throw new IllegalStateException("close() from a callback of a caller-driven channel (Waiting.CALLER):"
                        + " the poll that runs the callback still uses the channel; close after it returns");
            }
        }
        closed = true;
        if (login != null) {
            login.close();
        }
        for (final InitiatorChannel channel : channels) {
            channel.stop(5_000);
        }
        if (association != null) {
            association.close(); // after the I/O queues, as nvme-rdma deletes them before shutting the controller down
        }
        for (final MemoryRegion region : registered.removeAll()) {
            region.close();
        }
        for (final AutoCloseable resource : resources) {
            try {
                resource.close();
            } catch (Exception e) {
                // closing what is left regardless
            }
        }
        if (pd != null) {
            pd.close();
        }
        arena.close();
        provider.close();
    }
}
