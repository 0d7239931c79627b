package org.rdmablock.target.srp;

import com.lmax.disruptor.EventHandler;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.PhasedBackoffWaitStrategy;
import com.lmax.disruptor.SleepingWaitStrategy;
import com.lmax.disruptor.WaitStrategy;
import com.lmax.disruptor.dsl.Disruptor;
import com.lmax.disruptor.dsl.ProducerType;
import org.rdmablock.protocol.scsi.CdbDecoder;
import org.rdmablock.protocol.scsi.CommandKind;
import org.rdmablock.protocol.scsi.LogicalUnit;
import org.rdmablock.protocol.scsi.LunAddress;
import org.rdmablock.protocol.scsi.ScsiStatus;
import org.rdmablock.protocol.scsi.SenseCode;
import org.rdmablock.protocol.srp.SrpCommand;
import org.rdmablock.protocol.srp.SrpDecodeError;
import org.rdmablock.protocol.srp.SrpInformationUnit;
import org.rdmablock.protocol.srp.SrpIuDecoder;
import org.rdmablock.protocol.srp.SrpOpcode;
import org.rdmablock.protocol.srp.SrpTargetLogout;
import org.rdmablock.protocol.srp.SrpTaskManagement;
import org.rdmablock.target.backend.InPlaceStorage;
import org.rdmablock.target.metrics.IoStats;
import org.rdmablock.target.metrics.TargetStatistics;
import org.rdmablock.target.metrics.TargetStatistics.Count;
import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.ProtectionDomain;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The target's data path, in one file: completions from the {@link CompletionPoller} enter a Disruptor ring; the
 * <b>intake</b> stage (one thread) decodes each IU, takes a {@link CommandSlot} and a data buffer run for it, and
 * either fetches the data-out by RDMA READ or marks it ready; the <b>backend</b> stage ({@code backendThreads}
 * threads, each taking the slots whose index falls to it) executes the SCSI
 * command on its logical unit, straight
 * into or out of the registered data buffer, and posts the data-in RDMA WRITEs and the SRP_RSP SEND as one chain.
 * The response's send completion comes back through the ring, and the intake stage frees the slot. With
 * {@code backendThreads} 0 there is no ring and no stage thread: the poller's thread runs the intake stage on each
 * completion, and the intake runs each command it made ready (one thread from completion to response); with
 * blocking-call threads beside it ({@link BlockingCalls}), a backend call that would wait on a device (a file read the
 * page cache does not hold, an fdatasync, every RocksDB call) is not made there but handed to one of them, and that
 * command goes on from there.
 *
 * <pre>
 *  CQ ─► CompletionPoller ─► ring ─► intake ──(RDMA READ data-out)──► CQ … DATA_OUT event ─► intake ─┐
 *                                       │                                                              │
 *                                       └──────────────── ready slot ─────────────────────────────────┴► backend
 *                                                                                                          │
 *  initiator ◄── RDMA WRITE data-in, SEND SRP_RSP (one chain) ◄── CommandSlot.completed ◄── LogicalUnit ◄──┘
 *  CQ ─► RESPONSE event ─► intake: slot, buffer run and credit back
 * </pre>
 *
 * <p>The intake stage also records each command into its LUN's and its session's statistics ({@link TargetStatistics}):
 * it sees every command arrive and every response's send complete, so it alone writes them, without locks.
 *
 * <p>Nothing here allocates per command: events, slots, work requests and buffers are made up front. The poller
 * is the ring's only producer (single-producer sequencer, no lock or CAS); a failed post, which produces no
 * completion, goes back to the intake stage through a side queue that the poller's idle tick drains.
 */
final class CommandPipeline implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(CommandPipeline.class);
    /**
     * Data buffers are handed out in runs of chunks of this size: a 4 KiB command takes 4 KiB (64 MiB holds 16384 of
     * them), and every run starts on a 4096-byte boundary of the region, as O_DIRECT backends need.
     */
    static final int DATA_CHUNK_BYTES = 4 * 1024;
    /** How long closing waits for the stages to finish what was published. */
    static final int CLOSE_TIMEOUT_SECONDS = 10;
    /**
     * With event completions: how long an idle stage spins before it yields (see {@link #sleepingStages()}); system
     * property {@code rdmablock.pipeline.stageSpinMicros}, default 0 (the Disruptor's own 10 000 tries still run
     * first). Event mode is for machines without a core to spare, where a spinning stage takes the CPU from the
     * threads that do the I/O: in the QEMU guest (two vCPUs) ib_srp's 4 KiB I/O ran 0.28 - 0.49 of LIO with 20 µs of
     * spinning and 200 µs of yielding, 0.39 - 0.53 with none, 0.25 - 0.32 with 100 µs and 1 ms.
     */
    static final long STAGE_SPIN_MICROS = Long.getLong("rdmablock.pipeline.stageSpinMicros", 0);
    /**
     * With event completions: how long after it went idle a stage stops yielding and sleeps; system property
     * {@code rdmablock.pipeline.stageYieldMicros}, default 0 (see {@link #STAGE_SPIN_MICROS}).
     */
    static final long STAGE_YIELD_MICROS = Math.max(STAGE_SPIN_MICROS, Long.getLong("rdmablock.pipeline.stageYieldMicros", 0));
    /**
     * A pseudo kind for the poller's idle tick, so that the intake stage does housekeeping when no completion comes;
     * also what the completion of an unsignaled post (work request id 0) comes as, which only an error produces.
     */
    static final int TICK = 0;
    /** A receive of the shared set: the event's channel field holds the QP number until the intake stage resolves it. */
    static final int RECEIVE_SHARED = 0x80;
    /** Bytes of an IU up to the end of its tag. */
    private static final int TAG_END = SrpInformationUnit.TAG_OFFSET + 8;

    /**
     * Whether READs and WRITEs of memory LUNs, and READs of cached file pages, move by RDMA in place
     * ({@code InPlaceStorage}) where the provider allows it: default true; {@code -Drdmablock.target.inPlace=false}
     * copies through the data buffers as for other LUNs (for A/B measurements).
     */
    static final boolean IN_PLACE_LUNS = !"false".equals(System.getProperty("rdmablock.target.inPlace"));

    private final Arena arena = Arena.ofShared();
    private final ProtectionDomain pd;
    /** Whether LUNs are served in place here (a provider whose registration pins nothing, and the switch on). */
    private final boolean inPlaceLuns;
    /** The in-place LUNs that registered their memory in {@link #pd}: deregistered at {@link #close()}, before it closes. */
    private final java.util.Set<InPlaceStorage> inPlaceStorages =
            java.util.Collections.synchronizedSet(java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>()));
    private final MemoryRegion dataRegion;
    private final MemoryRegion responseRegion;
    /** Each slot's descriptor list: copied out of its IU, or fetched by RDMA READ when the IU only points at it. */
    private final MemoryRegion descriptorRegion;
    private final CommandSlot[] slots;
    private final Disruptor<PipelineEvent> disruptor;
    private final RingBuffer<PipelineEvent> ring;
    /** The target's channels: it enters them at login; the intake stage looks them up and removes drained ones. */
    private final ChannelTable channels;
    /** Slots back without a completion (refused posts, dropped commands' returned backend calls), for the intake stage. */
    private final ReturnedSlots returned = new ReturnedSlots();
    /** Channels whose connection ended (rdma_cm's disconnect, on a provider thread), for the intake stage. */
    private final ConcurrentLinkedQueue<SrpChannel> disconnected = new ConcurrentLinkedQueue<>();
    /** Channels a login with multichannel action SINGLE ended (login threads): the intake stage logs them out. */
    private final ConcurrentLinkedQueue<SrpChannel> endedBySingle = new ConcurrentLinkedQueue<>();
    /** The shared receive buffers (SRQ mode), or null. */
    private final ReceiveBuffers sharedReceives;
    private final long maxIoSize;
    private final long idleTimeoutNanos;
    /** A command still with its backend thread this long after the hand-over is answered (0: never). */
    private final long commandTimeoutNanos;
    private volatile boolean shuttingDown;
    private static final java.lang.foreign.ValueLayout.OfLong BE_LONG =
            java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);
    /** The tag is opaque: read in native order, as the SRP codecs do. */
    private static final java.lang.foreign.ValueLayout.OfLong TAG = java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;
    private final Intake intake;
    /**
     * With {@code backendThreads} 0: the backend stage the intake stage (on the poller's thread) runs on each event it made ready, right
     * after handling it (no hand-off to another thread: the lowest latency for memory LUNs and files in the page
     * cache; a slow backend call holds up every channel meanwhile). Null otherwise.
     */
    private final BackendStage inlineBackend;
    /**
     * With {@code backendThreads} 0 there is no ring: the poller thread runs the intake stage (and so each command)
     * on this one event, right in {@link #publish}: no hand-off and no thread to wake between a completion and the
     * response it leads to. Null with backend threads.
     */
    private final PipelineEvent pollerEvent;
    /**
     * With {@code backendThreads} 0 and blocking-call threads: where the backend calls go that the poller does not make
     * because they would wait ({@link BlockingCalls}); null otherwise.
     */
    private final BlockingCalls blockingCalls;
    /** The poller's deferral point, aimed at each command it executes, when there are blocking-call threads (poller only). */
    private org.rdmablock.target.backend.DeferredCall.Point deferralPoint;
    /** Poller-run events begun and finished (sequence numbers from 1), for {@link #awaitHandled}. */
    private final AtomicLong pollerEventsBegun = new AtomicLong();
    private final AtomicLong pollerEventsHandled = new AtomicLong();
    private final PipelineExceptionHandler exceptionHandler = new PipelineExceptionHandler();
    /** The poller thread's posts of one duty cycle, when it runs the pipeline ({@code backendThreads} 0). */
    private final SendBatch sendBatch = new SendBatch(returned);
    /** The posts of every thread but a poller that runs the pipeline. */
    private final DirectPosts directPosts = new DirectPosts(returned);
    /** The intake stage's poster: the poller's batch without backend threads, else direct. */
    private final SendPoster intakePosts;
    /** Commands answered, for statistics and tests. */
    private final AtomicLong commandsCompleted = new AtomicLong();
    /** What the intake stage records each command into. */
    private final TargetStatistics statistics;

    CommandPipeline(final ProtectionDomain pd, final int slotCount, final long dataBytes, final long maxIoSize,
                    final int ringSize, final int backendThreads, final int blockingThreads, final ChannelTable channels,
                    final java.time.Duration idleTimeout,
                    final java.time.Duration commandTimeout,
                    final ReceiveBuffers sharedReceives, final TargetStatistics statistics,
                    final boolean sleepWhenIdle, final boolean inPlaceLuns) {
        this.statistics = java.util.Objects.requireNonNull(statistics);
        this.pd = pd;
        this.inPlaceLuns = inPlaceLuns && IN_PLACE_LUNS;
        this.sharedReceives = sharedReceives;
        this.maxIoSize = maxIoSize;
        this.idleTimeoutNanos = idleTimeout.toNanos();
        this.commandTimeoutNanos = commandTimeout.toNanos();
        this.dataRegion = pd.registerMemory(arena.allocate(dataBytes, 4096), AccessFlags.LOCAL_WRITE);
        this.responseRegion = pd.registerMemory(arena.allocate((long) slotCount * CommandSlot.RESPONSE_BYTES, 4096),
                AccessFlags.LOCAL_WRITE);
        this.descriptorRegion = pd.registerMemory(arena.allocate((long) slotCount * CommandSlot.DESCRIPTOR_BYTES, 4096),
                AccessFlags.LOCAL_WRITE);
        this.slots = new CommandSlot[slotCount];
        for (int i = 0; i < slotCount; i++) {
            slots[i] = new CommandSlot(i, returned, responseRegion, descriptorRegion);
        }
        this.channels = java.util.Objects.requireNonNull(channels);
        this.intake = new Intake(slotCount, new DataBufferPool(dataBytes, DATA_CHUNK_BYTES), channels.capacity());
        if (backendThreads < 0) {
            throw new IllegalArgumentException("backend threads " + backendThreads
                    + ": an unresolved \"auto\" (PipelineConfig.resolve gives the count)");
        }
        if (blockingThreads < 0) {
            throw new IllegalArgumentException("blocking threads " + blockingThreads
                    + ": an unresolved \"auto\" (PipelineConfig.resolve gives the count)");
        }
        if (backendThreads == 0) {
            // inline: the poller thread runs the intake stage, which runs each ready command itself, and hands the
            // backend calls that would wait to the blocking-call threads, if any
            this.disruptor = null;
            this.ring = null;
            this.pollerEvent = new PipelineEvent();
            this.intakePosts = sendBatch;
            this.inlineBackend = new BackendStage(0, 1, sendBatch);
            this.blockingCalls = blockingThreads > 0 ? new BlockingCalls(blockingThreads, slotCount, statistics, directPosts) : null;
            return;
        }
        this.intakePosts = directPosts;
        this.blockingCalls = null;
        this.pollerEvent = null;
        this.inlineBackend = null;
        this.disruptor = new Disruptor<>(PipelineEvent::new, ringSize, Thread.ofPlatform().daemon().name("srp-pipeline-", 0).factory(),
                ProducerType.SINGLE, sleepWhenIdle ? sleepingStages() : new SleepingWaitStrategy());
        final BackendStage[] backends = new BackendStage[backendThreads];
        for (int i = 0; i < backendThreads; i++) {
            backends[i] = new BackendStage(i, backendThreads, directPosts);
        }
        disruptor.handleEventsWith(intake).then(backends);
        disruptor.setDefaultExceptionHandler(exceptionHandler);
        this.ring = disruptor.start();
    }

    /**
     * The stages' wait with {@code completions = "event"}: spin {@link #STAGE_SPIN_MICROS}, yield until
     * {@link #STAGE_YIELD_MICROS}, then sleep until the next publish. The default {@link SleepingWaitStrategy} never
     * sleeps longer than a park of 100 ns, so five idle stages keep waking thousands of times a second, which on a
     * small or shared machine (or under emulation: Soft-RoCE in the QEMU harness) takes the CPU the I/O needs. The
     * lite lock is only taken when a stage sleeps: the poller's publish reads one flag otherwise.
     */
    private static WaitStrategy sleepingStages() {
        return PhasedBackoffWaitStrategy.withLiteLock(STAGE_SPIN_MICROS, STAGE_YIELD_MICROS, TimeUnit.MICROSECONDS);
    }

    MemoryRegion dataRegion() {
        return dataRegion;
    }

    /** Poller thread: hands one completion to the pipeline. */
    void publish(final int kind, final int channel, final int index, final int byteLength, final int status) {
        if (pollerEvent != null) {
            runOnPoller(kind, channel, index, byteLength, status);
            return;
        }
        final long sequence = ring.next();
        ring.get(sequence).set(kind, channel, index, byteLength, status);
        ring.publish(sequence);
    }

    /** Poller thread, without backend threads: the intake stage's work on one completion, here and now. */
    private void runOnPoller(final int kind, final int channel, final int index, final int byteLength, final int status) {
        final PipelineEvent event = pollerEvent;
        event.set(kind, channel, index, byteLength, status);
        // a volatile store: a reload's awaitHandled that reads it after changing the tables waits for this event,
        // and one that reads the previous value changed the tables before this event reads them
        final long sequence = pollerEventsBegun.incrementAndGet();
        try {
            intake.onEvent(event, sequence, true);
        } catch (final Throwable e) { // as the Disruptor's processors do: one bad command must not stop the poller
            exceptionHandler.handleEventException(e, sequence, event);
        } finally {
            pollerEventsHandled.lazySet(sequence);
        }
    }

    /**
     * Poller thread, as it starts: with blocking-call threads it binds the point where its backend calls that would
     * wait are left for them.
     */
    void pollerStarted() {
        if (blockingCalls != null) {
            deferralPoint = org.rdmablock.target.backend.DeferredCall.bindToCurrentThread();
        }
    }

    /**
     * Poller thread, at the end of each duty cycle: posts what the cycle's work gathered, one chain per channel
     * (without backend threads; with them the poller posts nothing).
     */
    int flushPosts() {
        return sendBatch.flush();
    }

    /** Poller thread, when idle: lets the intake stage take back failed posts and check timeouts. */
    void tick() {
        publish(TICK, 0, 0, 0, 0);
    }

    /** Whether the intake stage has side-queue work (failed posts, ended connections) that only a tick brings it to. */
    boolean hasHousekeeping() {
        return !returned.isEmpty() || !disconnected.isEmpty() || !endedBySingle.isEmpty();
    }

    /**
     * Login thread: a login with multichannel action SINGLE ends {@code channel}; the intake stage sends it SRP_T_LOGOUT
     * (reason: multichannel action) and disconnects it once that has gone.
     */
    void endBySingleLogin(final SrpChannel channel) {
        endedBySingle.add(channel);
    }

    /** Provider thread: the channel's connection ended; the intake stage drains and frees it. */
    void disconnected(final SrpChannel channel) {
        disconnected.add(channel);
    }

    /** From now on the intake stage logs every channel out (SrpTarget.close). */
    void shutDown() {
        shuttingDown = true;
    }

    /**
     * Any thread: waits until every stage has handled every event published before this call, so that no
     * {@code LogicalUnitTable.execute} that began before it is still running (the backend stage executes each command
     * inside its {@code onEvent}, and backends complete on the calling thread). A reload calls it after taking units
     * out of the tables: an event published after the cursor is read here executes on the tables as they are now.
     * Publishes nothing (the ring has one producer, the poller); sleeps about 1 ms between checks.
     *
     * @return false when {@code timeout} passed first (or the thread was interrupted)
     */
    boolean awaitHandled(final java.time.Duration timeout) {
        java.lang.invoke.VarHandle.fullFence(); // the caller's table changes come before the cursor is read
        final long published = ring != null ? ring.getCursor() : pollerEventsBegun.get();
        final long deadline = System.nanoTime() + timeout.toNanos();
        // the ring's gating sequences are its last stage's (the backend threads'), which follow the intake stage's
        while (handledUpTo() < published) {
            if (!sleepUntil(deadline)) {
                return false;
            }
        }
        // the events handled so far handed their deferred calls over before they ended: wait for those calls too
        return blockingCalls == null || blockingCalls.awaitMade(deadline);
    }

    /** Sleeps about 1 ms; false when {@code deadline} has passed or the thread was interrupted. */
    private static boolean sleepUntil(final long deadline) {
        if (System.nanoTime() - deadline >= 0) {
            return false;
        }
        try {
            Thread.sleep(1);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private long handledUpTo() {
        return ring != null ? ring.getMinimumGatingSequence() : pollerEventsHandled.get();
    }

    /** Commands answered since start (any thread). */
    long commandsCompleted() {
        return commandsCompleted.get();
    }

    /** Slots currently free, for tests (read on any thread: a snapshot). */
    int freeSlots() {
        return intake.freeCount;
    }

    /** Data chunks in use, for tests. */
    int dataChunksInUse() {
        return intake.buffers.inUse();
    }

    /** Stops the stages once every published event is handled, so that no backend call outlives the pipeline. */
    @Override
    public void close() {
        if (disruptor == null) {
            // the poller ran the stages: it has stopped, or is stuck in a backend call that this wait bounds
            if (!awaitHandled(java.time.Duration.ofSeconds(CLOSE_TIMEOUT_SECONDS))) {
                LOG.warn("the poller still runs a command after {} s; closing the pipeline under it", CLOSE_TIMEOUT_SECONDS);
            }
            if (blockingCalls != null) {
                blockingCalls.close(CLOSE_TIMEOUT_SECONDS);
            }
        } else {
            try {
                disruptor.shutdown(CLOSE_TIMEOUT_SECONDS, java.util.concurrent.TimeUnit.SECONDS);
            } catch (com.lmax.disruptor.TimeoutException e) {
                LOG.warn("pipeline stages still busy after {} s; halting them", CLOSE_TIMEOUT_SECONDS);
                disruptor.halt();
            }
        }
        synchronized (inPlaceStorages) {
            inPlaceStorages.forEach(storage -> storage.releaseRegionIn(pd));
        }
        responseRegion.close();
        descriptorRegion.close();
        dataRegion.close();
        if (sharedReceives != null) {
            sharedReceives.close();
        }
        arena.close();
    }

    /** The tag of an IU of at least {@link #TAG_END} bytes, as sent (SRP tags are opaque: native order, as the codecs). */
    private static long rawTag(final MemorySegment region, final long at) {
        return region.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, at + SrpInformationUnit.TAG_OFFSET);
    }

    /**
     * Stage 1, one thread: decodes IUs, owns the free slots, the data buffer pool, the IUs waiting for a slot and
     * every channel's receive and credit bookkeeping.
     */
    private final class Intake implements EventHandler<PipelineEvent> {
        /** Channel id of a waiting IU that task management cancelled. */
        private static final int CANCELLED = -1;
        private final SrpIuDecoder decoder = new SrpIuDecoder();
        /** Decodes a READ's or WRITE's CDB to see whether its data may move in place (the engine decodes it again). */
        private final CdbDecoder cdb = new CdbDecoder();
        /** Where {@link #inPlaceRegion}'s blocks start in its region. */
        private long inPlaceOffset;
        /** The in-place LUN last served, so that the set below is only touched when the LUN changes. */
        private InPlaceStorage lastInPlace;
        /** mincore's answer for a READ in place of a file LUN: a byte per page of the largest I/O (pages of 4 KiB or more). */
        private final MemorySegment residency = arena.allocate(maxIoSize / 4096 + 2);
        private final int[] freeSlots;
        private int freeCount;
        final DataBufferPool buffers;
        /** IUs that arrived when no slot or buffer run was free, FIFO: channel id, receive index, length, arrival. */
        private final int[] waitingChannel;
        private final int[] waitingIndex;
        private final int[] waitingLength;
        private final long[] waitingArrived;
        private int waitingHead;
        private int waitingCount;

        Intake(final int slotCount, final DataBufferPool buffers, final int maxChannels) {
            this.freeSlots = new int[slotCount];
            for (int i = 0; i < slotCount; i++) {
                freeSlots[i] = slotCount - 1 - i;
            }
            this.freeCount = slotCount;
            this.buffers = buffers;
            // every receive of every channel may be waiting at once
            final int capacity = maxChannels * (4096 + SrpChannel.SPARE_RECEIVES);
            this.waitingChannel = new int[Math.min(capacity, 1 << 20)];
            this.waitingIndex = new int[waitingChannel.length];
            this.waitingLength = new int[waitingChannel.length];
            this.waitingArrived = new long[waitingChannel.length];
        }

        @Override
        public void onEvent(final PipelineEvent event, final long sequence, final boolean endOfBatch) {
            switch (event.kind) {
                case WorkRequestIds.DATA_OUT, WorkRequestIds.TABLE, WorkRequestIds.DATA_IN ->
                        slots[event.index].postsThrough(intakePosts); // back from a backend thread, maybe
                default -> { }
            }
            switch (event.kind) {
                case WorkRequestIds.RECEIVE, RECEIVE_SHARED -> received(event);
                case WorkRequestIds.DATA_OUT -> dataOutArrived(event);
                case WorkRequestIds.TABLE -> tableArrived(event);
                case WorkRequestIds.DATA_IN -> dataInRoundWritten(slots[event.index], event);
                case WorkRequestIds.RESPONSE -> responseSent(slots[event.index], event);
                case TICK -> housekeeping(event);
                default -> LOG.warn("unknown pipeline event kind {}", event.kind);
            }
            if (inlineBackend != null && event.ready != null) {
                inlineBackend.onEvent(event, sequence, endOfBatch);
            }
        }

        private void received(final PipelineEvent event) {
            if (event.kind == RECEIVE_SHARED) {
                event.channel = channels.channelOfQueuePair(event.channel); // the poller passed the QP number
            }
            final SrpChannel channel = event.channel < 0 ? null : channels.get(event.channel);
            if (channel == null) {
                if (event.kind == RECEIVE_SHARED && sharedReceives != null && event.status == 0) {
                    ReceiveBuffers.repostShared(sharedReceives, event.index); // its channel is gone; the buffer is not
                }
                return;
            }
            if (event.kind == RECEIVE_SHARED && event.status != 0) {
                return; // a shared buffer flushed with the SRQ at shutdown
            }
            if (event.kind == WorkRequestIds.RECEIVE) {
                channel.postedReceives--;
            }
            if (event.status != 0) {
                ended(channel, "a receive", event.status); // flushed: the connection is going
                releaseIfDrained(channel);
                return;
            }
            final long now = System.nanoTime();
            channel.lastActivityNanos = now;
            if (waitingCount > 0 || !process(channel, event.index, event.byteLength, event, now)) {
                enqueueWaiting(channel.id, event.index, event.byteLength, now);
            }
        }

        /**
         * The channel is ending (closing from now on); when neither side logged it out, it is lost: one warning, counted.
         * {@code what} failed with completion status {@code status}, or (status 0) is what happened.
         */
        private void ended(final SrpChannel channel, final String what, final int status) {
            if (!channel.closing && !channel.loggingOut) {
                statistics.add(Count.LOST_CHANNELS, 1);
                LOG.warn("{} lost: {}{}, without a logout; {} command(s) in flight", channel, what,
                        status == 0 ? "" : " completed with " + org.rdmablock.verbs.WcStatus.of(status), channel.outstandingCommands);
            }
            channel.closing = true;
        }

        /**
         * Handles one IU that arrived at {@code arrivedNanos}; false when it must wait for a slot or a data buffer run
         * (nothing was consumed).
         */
        private boolean process(final SrpChannel channel, final int receiveIndex, final int length, final PipelineEvent event,
                                final long arrivedNanos) {
            final MemorySegment region = channel.receiveSegment();
            final long at = channel.receives.offset(receiveIndex);
            decoder.immediateDataOffset(channel.immediateDataOffset);
            final SrpDecodeError error = decoder.decode(region, at, length);
            // An IU too short to carry a tag cannot be answered by tag: it is no IU the target takes (logged out below).
            final int opcode = error == SrpDecodeError.NONE ? decoder.opcode()
                    : length >= TAG_END ? Byte.toUnsignedInt(region.get(java.lang.foreign.ValueLayout.JAVA_BYTE, at)) : -1;
            switch (opcode) {
                case SrpOpcode.CMD -> {
                    return command(channel, receiveIndex, error, event, arrivedNanos);
                }
                case SrpOpcode.TSK_MGMT -> {
                    if (freeCount == 0) {
                        return false;
                    }
                    final long tag = rawTag(region, at); // the decoder hands out no flyweight for an invalid IU
                    final int code = error != SrpDecodeError.NONE ? SrpTaskManagement.RSP_INVALID_FIELDS
                            : taskManagement(channel, decoder.taskManagement());
                    statistics.add(Count.TASK_MANAGEMENT, 1);
                    channel.repostReceive(receiveIndex);
                    channel.outstandingCommands++;
                    channel.creditsInUse.incrementAndGet();
                    takeSlot().respondToTaskManagement(channel, tag, code);
                    return true;
                }
                case SrpOpcode.I_LOGOUT -> {
                    LOG.info("{} logged out: SRP_I_LOGOUT; {} command(s) in flight", channel, channel.outstandingCommands);
                    channel.closing = true;
                    intakePosts.flush(); // the responses this cycle made go before the disconnect, as they did unbatched
                    channel.disconnect();
                    return true;
                }
                case SrpOpcode.CRED_RSP, SrpOpcode.AER_RSP -> {
                    channel.repostReceive(receiveIndex);
                    return true;
                }
                default -> {
                    // Not an IU an initiator sends (or not one at all): SRP says the target logs the channel out.
                    if (freeCount == 0) {
                        return false;
                    }
                    LOG.warn("{} sent an IU the target does not take (opcode {}, {}); logging it out", channel, opcode, error);
                    channel.outstandingCommands++;
                    channel.loggingOut = true;
                    takeSlot().sendTargetLogout(channel, SrpTargetLogout.REASON_INVALID_IU_TYPE);
                    return true;
                }
            }
        }

        private boolean command(final SrpChannel channel, final int receiveIndex, final SrpDecodeError error,
                                final PipelineEvent event, final long arrivedNanos) {
            if (freeCount == 0) {
                return false;
            }
            if (error != SrpDecodeError.NONE) {
                // The tag is readable in any IU of 16 bytes or more (shorter ones are logged out); the decoder hands
                // out no flyweight for an invalid IU.
                final CommandSlot slot = takeSlot();
                slot.channel = channel;
                slot.tag = rawTag(channel.receiveSegment(), channel.receives.offset(receiveIndex));
                slot.descriptorCount = 0;
                slot.firstChunk = -1;
                channel.repostReceive(receiveIndex);
                channel.outstandingCommands++;
                track(slot, channel, IoStats.OTHER, null, arrivedNanos);
                takeCredit(channel);
                slot.command.failWithoutExecuting(SenseCode.INVALID_FIELD_IN_COMMAND_INFORMATION_UNIT);
                return true;
            }
            final SrpCommand iu = decoder.command();
            final CommandSlot slot = slots[freeSlots[freeCount - 1]];
            SenseCode failure = slot.load(channel, iu);
            if (failure == null && channel.nexusLunsChanged.get() && reportsUnitAttention(iu.cdbByte(0))
                    && channel.nexusLunsChanged.compareAndSet(true, false)) {
                failure = SenseCode.REPORTED_LUNS_DATA_HAS_CHANGED;
            }
            final long needed = Math.max(slot.dataOutLength, slot.dataInLength);
            if (failure == null && needed > maxIoSize) {
                failure = SenseCode.INVALID_FIELD_IN_COMMAND_INFORMATION_UNIT;
            }
            final MemoryRegion inPlace = failure == null && needed > 0 && inPlaceLuns ? inPlaceRegion(slot, iu) : null;
            int first = -1;
            int count = 0;
            if (failure == null && needed > 0 && inPlace == null) {
                count = buffers.chunksFor(needed);
                first = buffers.take(count);
                if (first < 0) {
                    return false; // wait for a buffer run; the slot was not taken
                }
            }
            takeSlot();
            channel.outstandingCommands++;
            track(slot, channel, IoStats.kindOf(iu.cdbByte(0)), statistics.lun(LunAddress.decode(iu.lun())), arrivedNanos);
            if (!takeCredit(channel)) {
                // beyond the credit window: answered, never dropped (the spare receives make this possible)
                channel.session.answeredBusy();
                statistics.add(Count.BUSY, 1);
                slot.firstChunk = -1;
                releaseRun(first, count);
                channel.repostReceive(receiveIndex);
                slot.command.finishWithStatus(ScsiStatus.BUSY);
                return true;
            }
            slot.firstChunk = first;
            slot.chunkCount = count;
            if (failure != null) {
                releaseRun(first, count);
                slot.firstChunk = -1;
                channel.repostReceive(receiveIndex);
                slot.command.failWithoutExecuting(failure);
                return true;
            }
            if (inPlace != null) {
                slot.attachData(inPlace, inPlaceOffset, needed);
                statistics.add(Count.IN_PLACE, 1);
            } else if (first >= 0) {
                slot.attachData(dataRegion, buffers.offset(first), (long) count * DATA_CHUNK_BYTES);
            } else {
                slot.data = dataRegion;
                slot.command.setDataBuffer(dataRegion.segment(), 0, 0).setExpectedLengths(0, 0);
            }
            if (iu.dataOutFormat() == org.rdmablock.protocol.srp.SrpBufferFormat.IMMEDIATE) {
                MemorySegment.copy(iu.segment(), iu.immediateDataOffsetInSegment(channel.immediateDataOffset),
                        slot.data.segment(), slot.dataOffset, slot.dataOutLength);
            }
            channel.repostReceive(receiveIndex); // everything the command needs is out of the IU now
            if (slot.fetchesTable) {
                slot.postTableRead();
                return true;
            }
            descriptorsKnown(slot, event);
            return true;
        }

        /**
         * The memory of the in-place LUN a plain READ or WRITE addresses, registered in this pipeline's domain, with
         * {@link #inPlaceOffset} set to where its blocks start; null when the command goes through the data buffers:
         * not a READ or WRITE, a LUN that is not mapped, a command the unit would refuse (nothing may reach the
         * LUN's memory before it is accepted), descriptors that offer other than exactly the blocks it moves, a WRITE
         * the LUN does not place, or a READ of pages it would have to wait for.
         */
        private MemoryRegion inPlaceRegion(final CommandSlot slot, final SrpCommand iu) {
            if (!cdb.decode(iu.segment(), iu.cdbOffsetInSegment(), iu.cdbLength())) {
                return null;
            }
            final CommandKind kind = cdb.kind();
            if (kind != CommandKind.READ && kind != CommandKind.WRITE) {
                return null;
            }
            final LogicalUnit unit = slot.channel.units.get(LunAddress.decode(slot.lunField));
            final boolean write = kind == CommandKind.WRITE;
            if (unit == null || !(unit.backend() instanceof InPlaceStorage storage) || write && !storage.placesWrites()
                    || !unit.reachesBackend(cdb)) {
                return null;
            }
            final long bytes = cdb.transferLength() * unit.config().blockSize();
            if ((write ? slot.dataOutLength : slot.dataInLength) != bytes || (write ? slot.dataInLength : slot.dataOutLength) != 0) {
                return null;
            }
            inPlaceOffset = cdb.lba() * unit.config().blockSize();
            if (!write && !storage.readsInPlace(inPlaceOffset, bytes, residency)) {
                return null;
            }
            if (storage != lastInPlace) {
                lastInPlace = storage;
                inPlaceStorages.add(storage); // allocates only for a LUN not seen before
            }
            return storage.regionIn(pd);
        }

        /**
         * A command takes a credit of its channel: false when it came beyond the channel's credits. One that takes the
         * last is counted: the initiator can send no more on the channel until a response returns one.
         */
        private boolean takeCredit(final SrpChannel channel) {
            final int inUse = channel.creditsInUse.incrementAndGet();
            if (inUse == channel.credits) {
                channel.session.creditsExhausted();
                statistics.add(Count.CREDITS_EXHAUSTED, 1);
            }
            return inUse <= channel.credits;
        }

        /** Records a command that took {@code slot}: one more in its LUN's (null: not served) and session's hands. */
        private void track(final CommandSlot slot, final SrpChannel channel, final int kind, final IoStats lun,
                           final long arrivedNanos) {
            slot.tracked = true;
            slot.kind = kind;
            slot.lunStats = lun;
            slot.arrivedNanos = arrivedNanos;
            channel.session.io.commandArrived();
            if (lun != null) {
                lun.commandArrived();
            }
        }

        /** A tracked command's response went: its kind, status, bytes and latency into its LUN's and session's figures. */
        private void answered(final CommandSlot slot) {
            // a timed-out slot's backend call may still be running and writing the command: its answer was the timeout's
            final int status = slot.phase == CommandSlot.TIMED_OUT ? ScsiStatus.CHECK_CONDITION : slot.command.status();
            final boolean good = status == ScsiStatus.GOOD;
            final long bytes = !good ? 0 : slot.kind == IoStats.READ ? slot.command.dataInLength()
                    : slot.kind == IoStats.WRITE ? slot.dataOutLength : 0;
            final long latency = System.nanoTime() - slot.arrivedNanos;
            slot.channel.session.io.commandAnswered(slot.kind, good, bytes, latency);
            if (slot.lunStats != null) {
                slot.lunStats.commandAnswered(slot.kind, good, bytes, latency);
            }
            if (!good) {
                statistics.add(Count.ERRORS, 1);
            }
        }

        /**
         * The command's descriptors are in the slot, or a round of its data-out READs completed: fetch the (next round
         * of) data-out, or hand it to the backend once all is in.
         */
        private void descriptorsKnown(final CommandSlot slot, final PipelineEvent event) {
            if (slot.readsDataOut && slot.moreDataOut()) {
                slot.postDataOutReads();
                return;
            }
            ready(slot, event);
        }

        private void tableArrived(final PipelineEvent event) {
            final CommandSlot slot = readCompleted(event);
            if (slot == null) {
                return;
            }
            final SenseCode failure = slot.tableArrived();
            if (failure != null) {
                slot.command.failWithoutExecuting(failure);
                return;
            }
            descriptorsKnown(slot, event);
        }

        /** SAM-5 5.14: INQUIRY, REPORT LUNS and REQUEST SENSE do not report (or clear) a unit attention. */
        private static boolean reportsUnitAttention(final int opcode) {
            return opcode != 0x12 && opcode != 0xA0 && opcode != 0x03;
        }

        private void ready(final CommandSlot slot, final PipelineEvent event) {
            if (event != null && event.ready == null) {
                slot.handToBackend(System.nanoTime());
                event.ready = slot;
            } else {
                // Only one slot rides on an event; others (woken waiters) go through the same path on the next tick.
                slot.command.failWithoutExecuting(SenseCode.INTERNAL_TARGET_FAILURE);
            }
        }

        private void dataOutArrived(final PipelineEvent event) {
            final CommandSlot slot = readCompleted(event);
            if (slot != null) {
                descriptorsKnown(slot, event);
            }
        }

        /** A round of data-in WRITEs went: the next round (with the response behind the last), or the slot back on error. */
        private void dataInRoundWritten(final CommandSlot slot, final PipelineEvent event) {
            if (event.status != 0) {
                ended(slot.channel, "an RDMA WRITE of data-in", event.status); // no response will follow
                release(slot, event);
                return;
            }
            slot.postDataIn();
        }

        /**
         * The slot whose RDMA READ (descriptor table or data-out) completed, or null when the command was aborted
         * meanwhile (dropped here) or the READ failed (answered here: ABORTED COMMAND, DATA PHASE ERROR).
         */
        private CommandSlot readCompleted(final PipelineEvent event) {
            final CommandSlot slot = slots[event.index];
            if (slot.aborted) {
                dropAborted(slot, event);
                return null;
            }
            if (event.status != 0) {
                ended(slot.channel, "an RDMA READ", event.status);
                slot.command.failWithoutExecuting(SenseCode.DATA_PHASE_ERROR);
                return null;
            }
            return slot;
        }

        private void responseSent(final CommandSlot slot, final PipelineEvent event) {
            commandsCompleted.incrementAndGet();
            if (event.status != 0) {
                ended(slot.channel, "a response SEND", event.status);
            } else if (slot.tracked) {
                answered(slot);
            }
            if (slot.phase == CommandSlot.TIMED_OUT && !slot.releaseHold()) {
                return; // answered by the timeout; its backend call has not returned yet and frees it when it does
            }
            release(slot, event);
        }

        private void release(final CommandSlot slot, final PipelineEvent event) {
            final SrpChannel channel = slot.channel;
            if (slot.tracked) {
                slot.tracked = false;
                channel.session.io.commandLeft();
                if (slot.lunStats != null) {
                    slot.lunStats.commandLeft();
                    slot.lunStats = null;
                }
            }
            releaseRun(slot.firstChunk, slot.chunkCount);
            slot.firstChunk = -1;
            slot.inUse = false;
            freeSlots[freeCount++] = slot.index;
            if (slot.disconnectAfter) {
                channel.closing = true;
                channel.disconnect(); // its flushed receives drain it
            }
            channel.outstandingCommands--;
            releaseIfDrained(channel);
            resumeWaiting(event);
        }

        private void releaseRun(final int first, final int count) {
            if (first >= 0) {
                buffers.release(first, count);
            }
        }

        private CommandSlot takeSlot() {
            final CommandSlot slot = slots[freeSlots[--freeCount]];
            slot.inUse = true;
            slot.postsThrough(intakePosts);
            slot.aborted = false;
            slot.phase = CommandSlot.IDLE;
            slot.disconnectAfter = false;
            slot.tracked = false;
            // No residual from the slot's last command: one failed or refused before attachData offers nothing.
            slot.command.setExpectedLengths(0, 0);
            return slot;
        }

        /** A command aborted by task management: no response (SAM with TAS=0), its credit rides on the next one. */
        private void dropAborted(final CommandSlot slot, final PipelineEvent event) {
            slot.channel.creditsInUse.decrementAndGet();
            slot.channel.pendingCredits.incrementAndGet();
            release(slot, event);
        }

        /**
         * Applies a task management function (SAM-5 7) to this nexus's commands: those waiting for a slot are dropped,
         * those not yet started by a backend thread are marked so that it drops them, those already executing finish.
         * Returns the SRP response code.
         */
        private int taskManagement(final SrpChannel channel, final SrpTaskManagement tm) {
            final int function = tm.function();
            final boolean oneTask = function == SrpTaskManagement.ABORT_TASK;
            final boolean allInitiators = function == SrpTaskManagement.LUN_RESET || function == SrpTaskManagement.CLEAR_TASK_SET;
            if (!oneTask && !allInitiators && function != SrpTaskManagement.ABORT_TASK_SET) {
                return SrpTaskManagement.RSP_NOT_SUPPORTED; // CLEAR ACA: no NACA support, as LIO answers
            }
            final long lun = tm.lun();
            final long taskTag = tm.taskTag();
            int aborted = 0;
            for (final CommandSlot slot : slots) {
                if (slot.inUse && slot.phase != CommandSlot.TIMED_OUT && slot.lunField == lun && (slot.channel == channel || allInitiators)
                        && (!oneTask || slot.tag == taskTag) && slot.tag != tm.tag() && !slot.aborted) {
                    slot.aborted = true;
                    aborted++;
                }
            }
            for (int i = 0; i < waitingCount; i++) {
                final int at = (waitingHead + i) % waitingChannel.length;
                final SrpChannel waiter = channels.get(waitingChannel[at]);
                if (waiter == null || (waiter != channel && !allInitiators)) {
                    continue;
                }
                final MemorySegment iu = waiter.receiveSegment();
                final long offset = waiter.receives.offset(waitingIndex[at]);
                final boolean isCommand = Byte.toUnsignedInt(iu.get(java.lang.foreign.ValueLayout.JAVA_BYTE, offset)) == SrpOpcode.CMD;
                if (isCommand && iu.get(BE_LONG, offset + SrpCommand.LUN_OFFSET) == lun
                        && (!oneTask || iu.get(TAG, offset + SrpCommand.TAG_OFFSET) == taskTag)) {
                    waitingChannel[at] = CANCELLED;
                    waiter.repostReceive(waitingIndex[at]);
                    waiter.pendingCredits.incrementAndGet();
                    aborted++;
                }
            }
            LOG.info("{}: {} on LUN {}{}: {} command(s) aborted (any already executing finish), FUNCTION COMPLETE", channel,
                    taskManagementName(function), LunAddress.decode(lun), oneTask ? " for tag " + Long.toHexString(taskTag) : "", aborted);
            return SrpTaskManagement.RSP_COMPLETE;
        }

        private static String taskManagementName(final int function) {
            return switch (function) {
                case SrpTaskManagement.ABORT_TASK -> "ABORT TASK";
                case SrpTaskManagement.ABORT_TASK_SET -> "ABORT TASK SET";
                case SrpTaskManagement.CLEAR_TASK_SET -> "CLEAR TASK SET";
                default -> "LUN RESET";
            };
        }

        /** Every tick: slots whose post failed come back; channels idle too long, or all at shutdown, are logged out. */
        private void housekeeping(final PipelineEvent event) {
            SrpChannel ended;
            while ((ended = disconnected.poll()) != null) {
                ended(ended, "the initiator disconnected", 0);
                releaseIfDrained(ended);
            }
            SrpChannel single;
            while (freeCount > 0 && (single = endedBySingle.poll()) != null) {
                if (!single.closing && !single.loggingOut && channels.get(single.id) == single) {
                    single.loggingOut = true;
                    single.outstandingCommands++;
                    takeSlot().sendTargetLogout(single, SrpTargetLogout.REASON_MULTICHANNEL_ACTION);
                }
            }
            CommandSlot failed;
            while ((failed = returned.poll()) != null) {
                if (failed.phase == CommandSlot.TIMED_OUT && !failed.releaseHold()) {
                    continue; // the other of its response and its backend call is still out
                }
                if (failed.aborted) {
                    failed.channel.creditsInUse.decrementAndGet();
                    failed.channel.pendingCredits.incrementAndGet();
                }
                release(failed, event);
            }
            final long now = System.nanoTime();
            if (commandTimeoutNanos > 0) {
                answerTimedOutCommands(now);
            }
            for (int i = 0; i < channels.capacity(); i++) {
                final SrpChannel channel = channels.get(i);
                if (channel == null || channel.closing || channel.loggingOut || freeCount == 0) {
                    continue;
                }
                final boolean idle = idleTimeoutNanos > 0 && channel.outstandingCommands == 0
                        && now - channel.lastActivityNanos > idleTimeoutNanos;
                if (shuttingDown || idle) {
                    LOG.info("{}: logging it out (SRP_T_LOGOUT, {})", channel,
                            idle ? "idle longer than " + java.time.Duration.ofNanos(idleTimeoutNanos) : "the target is stopping");
                    channel.loggingOut = true;
                    channel.outstandingCommands++;
                    takeSlot().sendTargetLogout(channel, idle ? SrpTargetLogout.REASON_INACTIVE_CHANNEL : SrpTargetLogout.REASON_NONE);
                } else if (channel.outstandingCommands == 0 && channel.pendingCredits.get() > 0) {
                    // credits of dropped commands would otherwise wait for a response that may never come
                    channel.outstandingCommands++;
                    takeSlot().sendCreditRequest(channel, channel.pendingCredits.getAndSet(0));
                }
            }
        }

        /** Answers every command that has been with a backend thread longer than the command timeout (one log line). */
        private void answerTimedOutCommands(final long now) {
            int answered = 0;
            CommandSlot example = null;
            for (final CommandSlot slot : slots) {
                if (slot.phase == CommandSlot.IN_BACKEND && !slot.aborted && now - slot.readyNanos > commandTimeoutNanos
                        && slot.answerTimedOut(intakePosts)) {
                    answered++;
                    example = slot;
                }
            }
            if (answered > 0) {
                statistics.add(Count.COMMAND_TIMEOUTS, answered);
                LOG.warn("{} command(s) still in the backend after the command timeout of {} answered ABORTED COMMAND,"
                                + " COMMAND TIMEOUT DURING PROCESSING (e.g. tag {} on {}); their buffers stay taken until the"
                                + " backend returns", answered, java.time.Duration.ofNanos(commandTimeoutNanos), example.tag,
                        example.channel);
            }
        }

        private void enqueueWaiting(final int channel, final int index, final int length, final long arrivedNanos) {
            final int tail = (waitingHead + waitingCount) % waitingChannel.length;
            waitingChannel[tail] = channel;
            waitingIndex[tail] = index;
            waitingLength[tail] = length;
            waitingArrived[tail] = arrivedNanos;
            waitingCount++;
            statistics.add(Count.WAITED_IUS, 1);
            statistics.set(Count.WAITING_IUS, waitingCount);
        }

        /** Processes waiting IUs in arrival order until one has to wait again. */
        private void resumeWaiting(final PipelineEvent event) {
            while (waitingCount > 0) {
                final int waiter = waitingChannel[waitingHead];
                final SrpChannel channel = waiter == CANCELLED ? null : channels.get(waiter);
                if (channel != null && !channel.closing) {
                    // a waiter that becomes ready rides on this event only if the event carries no slot yet
                    if (event.ready != null || !process(channel, waitingIndex[waitingHead], waitingLength[waitingHead], event,
                            waitingArrived[waitingHead])) {
                        return;
                    }
                }
                waitingHead = (waitingHead + 1) % waitingChannel.length;
                waitingCount--;
                statistics.set(Count.WAITING_IUS, waitingCount);
            }
        }

        private void releaseIfDrained(final SrpChannel channel) {
            if (channel.drained() && channels.remove(channel)) {
                LOG.debug("{} closed: its queue pair and buffers released", channel);
                statistics.channelLeft(channel.session);
                try {
                    channel.release();
                } catch (RuntimeException e) {
                    LOG.warn("releasing {}", channel, e);
                }
            }
        }
    }

    /** Stage 2, {@code threads} instances: executes the ready commands whose slot index falls to this one. */
    private final class BackendStage implements EventHandler<PipelineEvent> {
        private final int ordinal;
        private final int threads;
        /** The posts of the thread this stage runs on: the poller's batch inline, else direct. */
        private final SendPoster posts;

        BackendStage(final int ordinal, final int threads, final SendPoster posts) {
            this.ordinal = ordinal;
            this.threads = threads;
            this.posts = posts;
        }

        @Override
        public void onEvent(final PipelineEvent event, final long sequence, final boolean endOfBatch) {
            final CommandSlot slot = event.ready;
            if (slot != null && slot.index % threads == ordinal) {
                if (slot.phase == CommandSlot.TIMED_OUT) {
                    slot.backendReturned(); // answered by the timeout while it queued behind a slow call
                } else if (slot.aborted) {
                    // dropped: the intake stage frees it and returns its credit (or, if the timeout answered it
                    // first, takes this as the return of its backend call)
                    slot.leaveBackend();
                    slot.backendReturned();
                } else if (deferralPoint != null && this == inlineBackend) {
                    slot.postsThrough(posts);
                    // the poller with blocking-call threads: a backend call that would wait is stashed in the slot
                    deferralPoint.aim(slot.deferredCall);
                    try {
                        slot.channel.units.execute(slot.lunField, slot.command);
                    } finally {
                        deferralPoint.aim(null);
                        if (slot.deferredCall.pending()) {
                            blockingCalls.submit(slot); // counts the hand-over (BLOCKING_CALLS) before publishing it
                        }
                    }
                } else {
                    slot.postsThrough(posts);
                    slot.channel.units.execute(slot.lunField, slot.command);
                }
            }
        }
    }

    /** Logs what a stage threw and keeps the pipeline running: one bad command must not stop the target. */
    private static final class PipelineExceptionHandler implements com.lmax.disruptor.ExceptionHandler<PipelineEvent> {
        @Override
        public void handleEventException(final Throwable ex, final long sequence, final PipelineEvent event) {
            LOG.error("pipeline stage failed on event kind {} index {}", event.kind, event.index, ex);
        }

        @Override
        public void handleOnStartException(final Throwable ex) {
            LOG.error("pipeline start", ex);
        }

        @Override
        public void handleOnShutdownException(final Throwable ex) {
            LOG.error("pipeline shutdown", ex);
        }
    }
}
