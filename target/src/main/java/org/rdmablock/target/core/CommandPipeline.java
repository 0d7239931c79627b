package org.rdmablock.target.core;

import org.rdmablock.target.Configuration;
import org.rdmablock.target.config.PipelineConfig;
import org.rdmablock.target.metrics.TargetStatistics;
import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.ProtectionDomain;

import java.lang.foreign.Arena;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The target's data path, whatever the protocol: what it owns (the registered data, response and descriptor memory,
 * the command slots, the intake stage and the channels' side queues) and how it runs ({@link PipelineExecution}).
 * Completions from the {@link CompletionPoller} reach the {@link Intake}, which hands each request to the protocol's
 * {@link FrontEnd} (given by the caller: the SRP target gives its SRP front end). The front end decodes it, takes a
 * {@link CommandSlot} and a data buffer run for it, and starts its {@link DataPhase}: the data-out fetched by RDMA READ,
 * or the command made ready; a backend executes the SCSI command on its logical unit, straight into or out of the
 * registered data buffer, and the slot posts the data-in RDMA WRITEs and the response SEND (the front end's
 * {@link ResponseEncoder} writes it) as one chain. The response's send completion comes back, and the intake stage
 * frees the slot.
 *
 * <pre>
 *  CQ ─► CompletionPoller ─► execution ─► Intake ─► FrontEnd ──(RDMA READ data-out)──► CQ … DATA_OUT ─► Intake ─┐
 *                                                      │                                                     │
 *                                                      └──────────────── ready slot ─────────────────────────┴► backend
 *                                                                                                                │
 *  initiator ◄── RDMA WRITE data-in, SEND response (one chain) ◄── CommandSlot.completed ◄──────── LogicalUnit ◄─┘
 *  CQ ─► RESPONSE ─► Intake: slot and buffer run back (the front end's flow control with it)
 * </pre>
 *
 * <p>Two executions, chosen by {@code backend_threads}: 0, {@link PollerExecution} (the poller's thread runs the
 * intake and each command, posts batched per duty cycle, with {@link BlockingCalls} for the calls that would wait);
 * N, {@link RingExecution} (a Disruptor ring to an intake thread and N {@link BackendStage} threads).
 *
 * <p>Nothing here allocates per command: events, slots, work requests and buffers are made up front. A failed post,
 * which produces no completion, goes back to the intake stage through {@link IntakeInbox}, which the poller's tick
 * drains.
 */
public final class CommandPipeline implements AutoCloseable {
    /**
     * Data buffers are handed out in runs of chunks of this size: a 4 KiB command takes 4 KiB (64 MiB holds 16384 of
     * them), and every run starts on a 4096-byte boundary of the region, as O_DIRECT backends need.
     */
    public static final int DATA_CHUNK_BYTES = 4 * 1024;
    /** How long closing waits for the stages to finish what was published. */
    static final int CLOSE_TIMEOUT_SECONDS = 10;
    /** With event completions: how long an idle ring stage spins before it yields ({@code Configuration}). */
    static final long STAGE_SPIN_MICROS = Configuration.stageSpinMicros();
    /** With event completions: how long after it went idle a ring stage stops yielding and sleeps. */
    static final long STAGE_YIELD_MICROS = Configuration.stageYieldMicros();
    /**
     * A pseudo kind for the poller's idle tick, so that the intake stage does housekeeping when no completion comes;
     * also what the completion of an unsignaled post (work request id 0) comes as, which only an error produces.
     */
    public static final int TICK = 0;
    /** A receive of the shared set: the event's channel field holds the QP number until the intake stage resolves it. */
    public static final int RECEIVE_SHARED = 0x80;
    /** Whether in-place LUNs move their data in place where the provider allows it ({@code Configuration.inPlace}). */
    static final boolean IN_PLACE_LUNS = Configuration.inPlace();

    private final Arena arena = Arena.ofShared();
    /** The in-place LUNs registered in the pipeline's domain; null when LUNs are not served in place. */
    private final InPlaceRegions inPlace;
    private final MemoryRegion dataRegion;
    private final MemoryRegion responseRegion;
    /** Each slot's descriptor list: copied out of its IU, or fetched by RDMA READ when the IU only points at it. */
    private final MemoryRegion descriptorRegion;
    /** The shared receive buffers (SRQ mode), or null: closed with the pipeline. */
    private final ReceiveBuffers sharedReceives;
    /** What other threads hand the intake stage. */
    private final IntakeInbox inbox = new IntakeInbox();
    private final Intake intake;
    /** The protocol's front end on the intake stage. */
    private final FrontEnd frontEnd;
    private final PipelineExecution execution;
    /** Commands answered, for statistics and tests. */
    private final AtomicLong commandsCompleted = new AtomicLong();

    public CommandPipeline(final ProtectionDomain pd, final int slotCount, final long dataBytes, final long maxIoSize,
                    final int ringSize, final int backendThreads, final int blockingThreads, final ChannelTable channels,
                    final Timeouts timeouts, final ReceiveBuffers sharedReceives, final TargetStatistics statistics,
                    final boolean sleepWhenIdle, final boolean inPlaceLuns, final FrontEnd.Factory frontEnds) {
        Objects.requireNonNull(statistics);
        Objects.requireNonNull(channels);
        if (backendThreads < 0) {
            throw new IllegalArgumentException("backend threads " + backendThreads
                    + ": an unresolved \"auto\" (PipelineConfig.resolve gives the count)");
        }
        if (blockingThreads < 0) {
            throw new IllegalArgumentException("blocking threads " + blockingThreads
                    + ": an unresolved \"auto\" (PipelineConfig.resolve gives the count)");
        }
        this.inPlace = inPlaceLuns && IN_PLACE_LUNS ? new InPlaceRegions(pd) : null;
        this.sharedReceives = sharedReceives;
        this.dataRegion = pd.registerMemory(arena.allocate(dataBytes, 4096), AccessFlags.LOCAL_WRITE);
        this.responseRegion = pd.registerMemory(arena.allocate((long) slotCount * CommandSlot.RESPONSE_BYTES, 4096),
                AccessFlags.LOCAL_WRITE);
        this.descriptorRegion = pd.registerMemory(arena.allocate((long) slotCount * CommandSlot.DESCRIPTOR_BYTES, 4096),
                AccessFlags.LOCAL_WRITE);
        final CommandSlot[] slots = new CommandSlot[slotCount];
        final TaskAborts taskAborts = new TaskAborts(inbox.aborts);
        for (int i = 0; i < slotCount; i++) {
            slots[i] = new CommandSlot(i, inbox.returned, responseRegion, descriptorRegion);
            slots[i].command.controlTasksWith(taskAborts);
        }
        final PipelineExceptionHandler exceptionHandler = new PipelineExceptionHandler();
        final DirectPosts directPosts = new DirectPosts(inbox.returned);
        // without backend threads the poller runs the intake stage, and its posts gather per duty cycle
        final SendBatch sendBatch = backendThreads == 0 ? new SendBatch(inbox.returned) : null;
        final SendPoster intakePosts = sendBatch != null ? sendBatch : directPosts;
        final SlotPool slotPool = new SlotPool(slots, intakePosts);
        // mincore's answer for a READ in place of a file LUN: a byte per page of the largest I/O (pages of 4 KiB or more)
        final WriteGates gates = new WriteGates(slots);
        final DataRoom room = new DataRoom(dataRegion, new DataBufferPool(dataBytes, DATA_CHUNK_BYTES), maxIoSize, inPlace,
                arena.allocate(maxIoSize / 4096 + 2), statistics, gates);
        // every receive of every channel may be waiting at once
        final WaitingRequests waiting = new WaitingRequests(channels.capacity(), 4096 + PipelineConfig.SPARE_RECEIVES_PER_CHANNEL, statistics);
        final CommandStatistics commands = new CommandStatistics(statistics);
        this.frontEnd = frontEnds.create(new FrontEnd.CoreParts(slotPool, room, commands, waiting, channels, statistics,
                intakePosts));
        this.intake = new Intake(slotPool, room, waiting, commands, frontEnd, channels, sharedReceives, inbox, statistics,
                timeouts, intakePosts, commandsCompleted, gates);
        if (backendThreads == 0) {
            final BlockingCalls blockingCalls = blockingThreads > 0
                    ? new BlockingCalls(blockingThreads, slotCount, statistics, directPosts) : null;
            this.execution = new PollerExecution(intake, sendBatch, blockingCalls, exceptionHandler);
        } else {
            this.execution = new RingExecution(intake, backendThreads, ringSize, sleepWhenIdle, directPosts, exceptionHandler);
        }
    }

    MemoryRegion dataRegion() {
        return dataRegion;
    }

    /** Poller thread: hands one completion to the pipeline. */
    public void publish(final int kind, final int channel, final int index, final int byteLength, final int status) {
        execution.publish(kind, channel, index, byteLength, status);
    }

    /**
     * Poller thread, at the end of each duty cycle: posts what the cycle's work gathered, one chain per channel
     * (without backend threads; with them the poller posts nothing).
     */
    public int flushPosts() {
        return execution.flushPosts();
    }

    /** Poller thread, when idle: lets the intake stage take back failed posts and check timeouts. */
    public void tick() {
        publish(TICK, 0, 0, 0, 0);
    }

    /** Whether the intake stage has side-queue work (failed posts, ended connections) that only a tick brings it to. */
    boolean hasHousekeeping() {
        return inbox.hasWork() || frontEnd.hasWork();
    }

    /** The front end the pipeline's intake stage runs (made by the factory it was given). */
    public FrontEnd frontEnd() {
        return frontEnd;
    }

    /** Provider thread: the channel's connection ended; the intake stage drains and frees it. */
    public void disconnected(final Channel channel) {
        inbox.disconnected.add(channel);
    }

    /** From now on the front end logs every channel out, on each tick (the target is closing). */
    void shutDown() {
        inbox.shuttingDown = true;
    }

    /**
     * Any thread: waits until every stage has handled every event published before this call, so that no
     * {@code LogicalUnitTable.execute} that began before it is still running (a backend executes each command inside
     * its event, and backends complete on the calling thread), nor a backend call handed to a blocking-call thread. A
     * reload calls it after taking units out of the tables: an event published after the cursor is read here executes
     * on the tables as they are now. Publishes nothing (the poller is the only producer); sleeps about 1 ms between
     * checks.
     *
     * @return false when {@code timeout} passed first (or the thread was interrupted)
     */
    public boolean awaitHandled(final Duration timeout) {
        java.lang.invoke.VarHandle.fullFence(); // the caller's table changes come before the cursor is read
        final long published = execution.published();
        final long deadline = System.nanoTime() + timeout.toNanos();
        while (execution.handledUpTo() < published) {
            if (!sleepUntil(deadline)) {
                return false;
            }
        }
        return execution.awaitHandedCalls(deadline);
    }

    /** Sleeps about 1 ms; false when {@code deadline} has passed or the thread was interrupted. */
    static boolean sleepUntil(final long deadline) {
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

    /** Commands answered since start (any thread). */
    public long commandsCompleted() {
        return commandsCompleted.get();
    }

    /** Slots currently free, for tests (read on any thread: a snapshot). */
    public int freeSlots() {
        return intake.freeSlotCount();
    }

    /** Data chunks in use, for tests. */
    public int dataChunksInUse() {
        return intake.dataChunksInUse();
    }

    /** Stops the stages once every published event is handled, so that no backend call outlives the pipeline. */
    @Override
    public void close() {
        execution.close(CLOSE_TIMEOUT_SECONDS);
        if (inPlace != null) {
            inPlace.releaseAll();
        }
        responseRegion.close();
        descriptorRegion.close();
        dataRegion.close();
        if (sharedReceives != null) {
            sharedReceives.close();
        }
        arena.close();
    }
}
