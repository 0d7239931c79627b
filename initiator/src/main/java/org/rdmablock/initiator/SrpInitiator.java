package org.rdmablock.initiator;

import org.rdmablock.protocol.scsi.LunAddress;
import org.rdmablock.protocol.srp.SrpBufferFormat;
import org.rdmablock.protocol.srp.SrpLoginReject;
import org.rdmablock.protocol.srp.SrpLoginRequest;
import org.rdmablock.protocol.srp.SrpLoginRequestRdmaCm;
import org.rdmablock.protocol.srp.SrpLoginResponse;
import org.rdmablock.protocol.srp.SrpDecodeError;
import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.CompletionChannel;
import org.rdmablock.verbs.CompletionQueue;
import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.ConnectionParameters;
import org.rdmablock.verbs.ConnectionRejectedException;
import org.rdmablock.verbs.DeviceContext;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.QueuePair;
import org.rdmablock.verbs.QueuePairCapabilities;
import org.rdmablock.verbs.QueuePairInitAttributes;
import org.rdmablock.verbs.QueuePairType;
import org.rdmablock.verbs.ReceiveWorkRequest;
import org.rdmablock.verbs.VerbsProvider;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A session with one SRP target: logs in over {@link InitiatorConfig#channels()} RC channels, discovers the target's
 * logical units (REPORT LUNS, INQUIRY, READ CAPACITY, the block limits VPD page) and hands them out as {@link Lun}s.
 *
 * <pre>
 *  application threads ─► Lun.read/write/flush/unmap ─► channel (by policy) ─► ring ─► channel agent ─► SRP_CMD
 *                      ◄─ IoCallback / CompletableFuture / blocking ◄─────────────── SRP_RSP ◄── target
 * </pre>
 *
 * <p>Thread safety: every method may be called from any thread. Callbacks run on a channel's agent thread and must not
 * block. The first channel logs in with multichannel action SINGLE, which ends any channel an earlier session of the
 * same initiator port id left at the target (as Linux's ib_srp); the others with MULTIPLE. So two sessions in one
 * process to one target need different initiator port ids ({@link InitiatorConfig#withInitiatorPortId}).
 */
public final class SrpInitiator implements AutoCloseable {
    /** Caller-driven waits: empty polls before the waiting thread yields between polls. */
    private static final int SPINS_BEFORE_YIELD = 64;
    /** The tag of the login requests. */
    static final long LOGIN_TAG = 0x5250_4C47; // "RPLG"
    /** Bytes one command carries when a LUN reports no maximum transfer length. */
    public static final int DEFAULT_MAX_TRANSFER = 1 << 20;
    /** How long a discovery command may take. */
    static final long DISCOVERY_TIMEOUT_SECONDS = 30;
    private static final ValueLayout.OfLong BE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final InitiatorConfig config;
    private final VerbsProvider provider;
    private final Arena arena = Arena.ofShared();
    private final List<InitiatorChannel> channels = new ArrayList<>();
    private final List<AutoCloseable> resources = new ArrayList<>();
    private final RegisteredMemory registered = new RegisteredMemory();
    private final AtomicInteger roundRobin = new AtomicInteger();
    /**
     * PER_THREAD: each submitting thread gets the next channel in turn on its first submission and keeps it (thread
     * ids are not dense, so id modulo channels could put two threads on one channel).
     */
    private final ThreadLocal<InitiatorChannel> threadChannel = ThreadLocal.withInitial(
            () -> channels.get((roundRobin.getAndIncrement() & Integer.MAX_VALUE) % channels.size()));
    private DeviceContext context;
    private ProtectionDomain pd;
    private List<Lun> luns = List.of();
    private volatile boolean closed;

    private SrpInitiator(final InitiatorConfig config) {
        this.config = config;
        this.provider = VerbsProvider.load(config.provider());
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
                initiator.login(i);
            }
            initiator.luns = initiator.discover();
            return initiator;
        } catch (SrpIoException | RuntimeException e) {
            initiator.close();
            throw e;
        }
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
            n += channel.commandsIssued;
        }
        return n;
    }

    /** ABORT TASKs sent for commands past the command timeout, on all channels. */
    public long aborts() {
        return channels.stream().mapToLong(c -> c.aborts).sum();
    }

    /** LUN RESETs sent (an ABORT TASK that got no answer, or a failed one). */
    public long lunResets() {
        return channels.stream().mapToLong(c -> c.lunResets).sum();
    }

    /** Times a channel logged in again after its connection was lost. */
    public long reconnects() {
        return channels.stream().mapToLong(c -> c.reconnects).sum();
    }

    /** Command parts sent again after an abort or a reconnect. */
    public long retries() {
        return channels.stream().mapToLong(c -> c.retries).sum();
    }

    /** Requests that went in another request's command (merging) on all channels. */
    public long requestsMerged() {
        long n = 0;
        for (final InitiatorChannel channel : channels) {
            n += channel.mergedRequests;
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
        final InitiatorChannel channel = pick();
        final long sequence = channel.claim(); // on a channel's own thread (a callback): never waits, may throw
        channel.ring.get(sequence).set(op, lun.address(), lun.blockSize(), lba, blocks, buffer, offset, rkey, fua,
                lun.maxTransferBytes(), attachment, callback);
        channel.publish(sequence);
    }

    /** Submits a CDB-given command (flush, unmap, discovery); {@code prepare} fills the request's CDB and data fields. */
    void submitRaw(final long lunField, final RawCommand prepare, final MemorySegment buffer, final Object attachment,
                   final IoCallback callback) {
        if (closed) {
            throw new IllegalStateException("the initiator is closed");
        }
        final InitiatorChannel channel = pick();
        final long sequence = channel.claim();
        final IoRequest request = channel.ring.get(sequence);
        request.set(IoRequest.RAW, lunField, 1, 0, 1, buffer, 0, RegisteredMemory.NOT_REGISTERED, false,
                config.bounceBytes(), attachment, callback);
        prepare.fill(request);
        channel.publish(sequence);
    }

    /** Fills a RAW request's {@code cdb}, {@code cdbLength}, {@code rawDirection}, {@code rawLength} (and inline data). */
    @FunctionalInterface
    interface RawCommand {
        void fill(IoRequest request);
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
        if (config.waiting() != InitiatorConfig.Waiting.CALLER) {
            return 0;
        }
        int work = 0;
        for (int i = 0, n = channels.size(); i < n; i++) {
            work += channels.get(i).drive();
        }
        return work;
    }

    /**
     * Waits up to {@code timeout} for {@code future}; with {@link InitiatorConfig.Waiting#CALLER} the waiting thread
     * drives the channels meanwhile ({@link #poll}), spinning while polls bring work and yielding the core after 64 that
     * bring none (another thread may hold the channel). Returns whether the future is done; false when the timeout
     * passed or the thread was interrupted (its interrupt flag stays set). Never blocks in {@code future.get}, so a
     * caller reads the result with {@code get(0, ...)} or {@code join()} once this returns true.
     */
    public boolean awaitDone(final java.util.concurrent.Future<?> future, final long timeout, final TimeUnit unit) {
        final long deadline = System.nanoTime() + unit.toNanos(timeout);
        if (config.waiting() != InitiatorConfig.Waiting.CALLER) {
            try {
                future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (ExecutionException | TimeoutException | java.util.concurrent.CancellationException e) {
                // done (failed) or not done: isDone tells
            }
            return future.isDone();
        }
        int idle = 0;
        while (!future.isDone() && System.nanoTime() - deadline < 0 && !Thread.currentThread().isInterrupted()) {
            idle = poll() > 0 ? 0 : idle + 1;
            if (idle > SPINS_BEFORE_YIELD) {
                Thread.yield();
            } else if (idle > 0) {
                Thread.onSpinWait();
            }
        }
        return future.isDone();
    }

    /** Channel {@code index}'s agent thread (tests look at how it waits); null when the callers drive it. */
    Thread channelThread(final int index) {
        return channels.get(index).thread();
    }

    private InitiatorChannel pick() {
        final int n = channels.size();
        if (n == 1) {
            return channels.get(0);
        }
        return switch (config.channelPolicy()) {
            case PER_THREAD -> threadChannel.get();
            case ROUND_ROBIN -> channels.get((roundRobin.getAndIncrement() & Integer.MAX_VALUE) % n);
        };
    }

    private void login(final int index) throws SrpIoException {
        final ConnectionId id = resolve();
        if (context == null) {
            context = id.context();
            pd = context.allocateProtectionDomain();
        }
        final InitiatorChannel.ChannelMemory memory = channelMemory(config.queueDepth());
        final CompletionChannel events = config.waiting() == InitiatorConfig.Waiting.EVENTS ? context.createCompletionChannel() : null;
        if (events != null) {
            resources.add(events); // closed at close(), after the channels and their CQs
        }
        final InitiatorChannel.Link link = connectOn(id, index, memory.receiveRequests(), index == 0, events);
        final InitiatorChannel channel = new InitiatorChannel(index, link, memory, config.queueDepth(), config.ringSize(),
                sendQueueSize(), config.merge(), config.readPriority(), faults(), events, this::reconnect,
                config.waiting() != InitiatorConfig.Waiting.CALLER);
        link.connection().onDisconnect(c -> channel.connectionLost(c, "the connection was disconnected"));
        channels.add(channel);
        channel.start();
    }

    private InitiatorChannel.Faults faults() {
        return new InitiatorChannel.Faults(config.commandTimeout().toNanos(), config.commandTimeout().toNanos() / 2 + 1,
                config.reconnectTimeout().toNanos(), config.maxRetries());
    }

    /** A SEND's completion may come after its response, so the send queue holds two commands per slot. */
    private int sendQueueSize() {
        return 2 * config.queueDepth() + InitiatorChannel.CONTROL_IUS + 1;
    }

    private ConnectionId resolve() throws SrpIoException {
        try {
            return provider.connectionManager().resolve(config.target(), config.connectTimeout());
        } catch (RuntimeException e) {
            throw new SrpIoException("cannot reach " + config.target() + " over " + provider.name() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Channel thread, after its connection was lost: logs channel {@code index} in again (multichannel action
     * MULTIPLE, so that the session's other channels stay) on the same device, posting its receives first.
     */
    private InitiatorChannel.Link reconnect(final int index, final InitiatorChannel channel,
                                            final ReceiveWorkRequest[] receives) throws SrpIoException {
        if (closed) {
            throw new SrpIoException("the initiator is closed");
        }
        final ConnectionId id = resolve();
        final InitiatorChannel.Link link = connectOn(id, index, receives, false, channel.events());
        id.onDisconnect(c -> channel.connectionLost(c, "the connection was disconnected"));
        return link;
    }

    /**
     * Makes a CQ and an RC QP on {@code id}, posts {@code receives} and logs in; on any failure closes them and the id.
     *
     * @param single multichannel action SINGLE (the session's first login), else MULTIPLE
     */
    private InitiatorChannel.Link connectOn(final ConnectionId id, final int index, final ReceiveWorkRequest[] receives,
                                            final boolean single, final CompletionChannel events) throws SrpIoException {
        CompletionQueue cq = null;
        try {
            if (id.context() != context) {
                throw new SrpIoException("channel " + index + " to " + config.target() + " came up on another RDMA device");
            }
            final int depth = config.queueDepth();
            cq = context.createCompletionQueue(sendQueueSize() + depth + InitiatorChannel.SPARE_RECEIVES, events);
            final QueuePair qp = id.createQueuePair(pd, new QueuePairInitAttributes(QueuePairType.RC, cq, cq, null,
                    new QueuePairCapabilities(sendQueueSize(), depth + InitiatorChannel.SPARE_RECEIVES, 1, 1, 0), false));
            for (final ReceiveWorkRequest receive : receives) {
                qp.postReceive(receive);
            }
            try {
                id.connect(new ConnectionParameters(loginRequest(index, single), 16, 16, 7, 7), config.connectTimeout());
            } catch (ConnectionRejectedException e) {
                throw new SrpIoException("the target at " + config.target() + " rejected the login of channel " + index + ": "
                        + rejectReason(e.privateData()), e);
            } catch (RuntimeException e) {
                throw new SrpIoException("connect to " + config.target() + " failed: " + e.getMessage(), e);
            }
            final byte[] reply = id.privateData();
            final SrpLoginResponse response = new SrpLoginResponse().wrap(MemorySegment.ofArray(reply), 0);
            if (reply.length < SrpLoginResponse.LENGTH || response.validate(reply.length) != SrpDecodeError.NONE) {
                throw new SrpIoException("the target's login response does not decode (" + reply.length + " bytes)");
            }
            final int maxIt = (int) Math.min(response.maxInitiatorToTargetIuLength(), config.iuLength());
            final int immediateLimit = config.immediateData() && response.immediateDataSupported()
                    ? Math.max(0, maxIt - InitiatorChannel.IMMEDIATE_DATA_OFFSET) : 0;
            return new InitiatorChannel.Link(id, qp, cq, response.requestLimitDelta(), immediateLimit);
        } catch (SrpIoException | RuntimeException e) {
            id.close();
            if (cq != null) {
                cq.close();
            }
            throw e;
        }
    }

    /** Registers the channel's IU, receive and bounce buffers and makes its receive work requests. */
    private InitiatorChannel.ChannelMemory channelMemory(final int depth) {
        final int iuLength = config.iuLength();
        final MemoryRegion ius = register((long) (depth + InitiatorChannel.CONTROL_IUS) * iuLength, AccessFlags.LOCAL_WRITE);
        final int receiveCount = depth + InitiatorChannel.SPARE_RECEIVES;
        final MemoryRegion receiveRegion = register((long) receiveCount * iuLength, AccessFlags.LOCAL_WRITE);
        final MemoryRegion bounce = register((long) depth * config.bounceBytes(),
                AccessFlags.LOCAL_WRITE | AccessFlags.REMOTE_READ | AccessFlags.REMOTE_WRITE);
        final ReceiveWorkRequest[] receives = new ReceiveWorkRequest[receiveCount];
        for (int i = 0; i < receiveCount; i++) {
            receives[i] = new ReceiveWorkRequest(1).wrId(InitiatorChannel.RECEIVE_KIND | i);
            receives[i].sgl().add(receiveRegion, (long) i * iuLength, iuLength);
        }
        return new InitiatorChannel.ChannelMemory(ius, iuLength, receiveRegion, iuLength, receives, bounce, config.bounceBytes());
    }

    private MemoryRegion register(final long bytes, final int access) {
        final MemoryRegion region = pd.registerMemory(arena.allocate(bytes, 4096), access);
        resources.add(region);
        return region;
    }

    /** The 56-byte login request of Linux's ib_srp (srp_login_req_rdma) for channel {@code index}. */
    private byte[] loginRequest(final int index, final boolean single) {
        final MemorySegment out = MemorySegment.ofArray(new byte[SrpLoginRequestRdmaCm.LENGTH]);
        final int multichannel = single ? SrpLoginRequest.MULTICHANNEL_SINGLE : SrpLoginRequest.MULTICHANNEL_MULTI;
        new SrpLoginRequestRdmaCm().wrap(out, 0).reset().setTag(LOGIN_TAG + index)
                .setRequestedMaxInitiatorToTargetIuLength(config.iuLength())
                .setRequiredBufferFormats(SrpBufferFormat.SUPPORTS_DIRECT | SrpBufferFormat.SUPPORTS_INDIRECT)
                .setFlags(multichannel | (config.immediateData() ? SrpLoginRequest.IMMEDIATE_DATA_REQUESTED : 0))
                .setImmediateDataOffset(config.immediateData() ? InitiatorChannel.IMMEDIATE_DATA_OFFSET : 0)
                .setInitiatorPortId(portId(config.initiatorIdHigh(), config.initiatorIdLow()))
                .setTargetPortId(portId(config.idExt(), config.iocGuid()));
        return out.toArray(ValueLayout.JAVA_BYTE);
    }

    private static byte[] portId(final long high, final long low) {
        final byte[] id = new byte[16];
        MemorySegment.ofArray(id).set(BE_LONG, 0, high);
        MemorySegment.ofArray(id).set(BE_LONG, 8, low);
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

    /** REPORT LUNS, then per LUN a TEST UNIT READY, INQUIRY (standard, serial number, block limits) and READ CAPACITY(16). */
    private List<Lun> discover() throws SrpIoException {
        final byte[] report = rawBlocking(0, (r, cdb) -> ScsiCdb.reportLuns(cdb, 4096), IoRequest.DATA_IN, 4096, "REPORT LUNS");
        final MemorySegment list = MemorySegment.ofArray(report);
        final int listBytes = list.get(BE_INT, 0);
        final List<Lun> found = new ArrayList<>();
        for (int at = 8; at < 8 + listBytes && at + 8 <= report.length; at += 8) {
            final long field = list.get(BE_LONG, at);
            final int number = LunAddress.decode(field);
            try {
                rawBlocking(field, (r, cdb) -> ScsiCdb.testUnitReady(cdb), IoRequest.NO_DATA, 0, "TEST UNIT READY");
            } catch (ScsiStatusException e) {
                if (e.senseKey() != 0x06) { // a unit attention is reported once and cleared: the next command goes on
                    throw e;
                }
            }
            final byte[] inquiry = rawBlocking(field, (r, cdb) -> ScsiCdb.inquiry(cdb, false, 0, 96), IoRequest.DATA_IN, 96, "INQUIRY");
            if ((inquiry[0] & 0x1F) != 0) {
                continue; // not a direct-access block device
            }
            final byte[] capacity = rawBlocking(field, (r, cdb) -> ScsiCdb.readCapacity16(cdb, 32), IoRequest.DATA_IN, 32,
                    "READ CAPACITY(16)");
            final long lastLba = MemorySegment.ofArray(capacity).get(BE_LONG, 0);
            final int blockSize = MemorySegment.ofArray(capacity).get(BE_INT, 8);
            final String serial = vpdSerial(field);
            final int maxTransfer = maxTransferBytes(field, blockSize);
            found.add(new Lun(this, number, field, blockSize, lastLba + 1, maxTransfer, text(inquiry, 8, 8), text(inquiry, 16, 16),
                    text(inquiry, 32, 4), serial));
        }
        return Collections.unmodifiableList(found);
    }

    private String vpdSerial(final long field) throws SrpIoException {
        try {
            final byte[] page = rawBlocking(field, (r, cdb) -> ScsiCdb.inquiry(cdb, true, 0x80, 255), IoRequest.DATA_IN, 255,
                    "INQUIRY VPD 80h");
            final int length = Math.min(Byte.toUnsignedInt(page[3]), page.length - 4);
            return text(page, 4, length);
        } catch (ScsiStatusException e) {
            return "";
        }
    }

    /** The block limits page's MAXIMUM TRANSFER LENGTH in bytes, capped at {@link #DEFAULT_MAX_TRANSFER} (also without one). */
    private int maxTransferBytes(final long field, final int blockSize) throws SrpIoException {
        try {
            final byte[] page = rawBlocking(field, (r, cdb) -> ScsiCdb.inquiry(cdb, true, 0xB0, 64), IoRequest.DATA_IN, 64,
                    "INQUIRY VPD B0h");
            final long blocks = Integer.toUnsignedLong(MemorySegment.ofArray(page).get(BE_INT, 8));
            if (blocks > 0 && blocks * blockSize < DEFAULT_MAX_TRANSFER) {
                return (int) (blocks * blockSize);
            }
        } catch (ScsiStatusException e) {
            // no block limits page: the default
        }
        return DEFAULT_MAX_TRANSFER;
    }

    private static String text(final byte[] data, final int at, final int length) {
        return new String(data, at, Math.max(0, Math.min(length, data.length - at)), StandardCharsets.US_ASCII).trim();
    }

    /** Writes a CDB into {@code cdb}; returns its length. */
    @FunctionalInterface
    interface CdbWriter {
        int write(IoRequest request, byte[] cdb);
    }

    /** Runs one CDB-given command and waits for it; returns its data-in (the whole buffer). */
    byte[] rawBlocking(final long lunField, final CdbWriter cdb, final int direction, final int length, final String what)
            throws SrpIoException {
        final byte[] data = new byte[Math.max(length, 1)];
        final CompletableFuture<Long> done = new CompletableFuture<>();
        submitRaw(lunField, r -> {
            r.cdbLength = cdb.write(r, r.cdb);
            r.rawDirection = direction;
            r.rawLength = length;
        }, direction == IoRequest.NO_DATA ? null : MemorySegment.ofArray(data), done, Lun.FUTURE_CALLBACK);
        await(done, what, DISCOVERY_TIMEOUT_SECONDS);
        return data;
    }

    /**
     * Waits for {@code future}, turning its failure into the {@link SrpIoException} it carries. With
     * {@link InitiatorConfig.Waiting#CALLER} the waiting thread drives the channels meanwhile: nobody else would.
     */
    long await(final CompletableFuture<Long> future, final String what, final long timeoutSeconds) throws SrpIoException {
        awaitDone(future, timeoutSeconds, TimeUnit.SECONDS);
        try {
            return future.get(0, TimeUnit.SECONDS); // done, timed out or interrupted: no longer get with nobody driving
        } catch (ExecutionException e) {
            if (e.getCause() instanceof SrpIoException io) {
                throw io;
            }
            throw new SrpIoException(what + " failed", e.getCause());
        } catch (TimeoutException e) {
            throw new SrpIoException(what + ": no answer within " + timeoutSeconds + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SrpIoException(what + ": interrupted");
        }
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
        for (final InitiatorChannel channel : channels) {
            channel.stop(5_000);
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
