package org.rdmablock.target.srp;

import com.lmax.disruptor.EventHandler;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.SleepingWaitStrategy;
import com.lmax.disruptor.dsl.Disruptor;
import com.lmax.disruptor.dsl.ProducerType;
import org.rdmablock.protocol.scsi.ScsiStatus;
import org.rdmablock.protocol.scsi.SenseCode;
import org.rdmablock.protocol.srp.SrpCommand;
import org.rdmablock.protocol.srp.SrpDecodeError;
import org.rdmablock.protocol.srp.SrpInformationUnit;
import org.rdmablock.protocol.srp.SrpIuDecoder;
import org.rdmablock.protocol.srp.SrpOpcode;
import org.rdmablock.protocol.srp.SrpTargetLogout;
import org.rdmablock.protocol.srp.SrpTaskManagement;
import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.ProtectionDomain;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The target's data path, in one file: completions from the {@link CompletionPoller} enter a Disruptor ring; the
 * <b>intake</b> stage (one thread) decodes each IU, takes a {@link CommandSlot} and a data buffer run for it, and
 * either fetches the data-out by RDMA READ or marks it ready; the <b>backend</b> stage ({@code backendThreads}
 * threads, each taking the slots whose index falls to it) executes the SCSI command on its logical unit, straight
 * into or out of the registered data buffer, and posts the data-in RDMA WRITEs and the SRP_RSP SEND as one chain.
 * The response's send completion comes back through the ring, and the intake stage frees the slot.
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
 * <p>Nothing here allocates per command: events, slots, work requests and buffers are made up front. The poller
 * is the ring's only producer (single-producer sequencer, no lock or CAS); a failed post, which produces no
 * completion, goes back to the intake stage through a side queue that the poller's idle tick drains.
 */
final class CommandPipeline implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(CommandPipeline.class.getName());
    /** Data buffers are handed out in runs of chunks of this size. */
    static final int DATA_CHUNK_BYTES = 64 * 1024;
    /**
     * A pseudo kind for the poller's idle tick, so that the intake stage does housekeeping when no completion comes;
     * also what the completion of an unsignaled post (work request id 0) comes as, which only an error produces.
     */
    static final int TICK = 0;
    /** Bytes of an IU up to the end of its tag. */
    private static final int TAG_END = SrpInformationUnit.TAG_OFFSET + 8;

    private final Arena arena = Arena.ofShared();
    private final MemoryRegion dataRegion;
    private final MemoryRegion responseRegion;
    private final CommandSlot[] slots;
    private final Disruptor<PipelineEvent> disruptor;
    private final RingBuffer<PipelineEvent> ring;
    final AtomicReferenceArray<SrpChannel> channels;
    private final ConcurrentLinkedQueue<CommandSlot> failedPosts = new ConcurrentLinkedQueue<>();
    private final long maxIoSize;
    private final Intake intake;
    /** Commands answered, for statistics and tests. */
    final AtomicLong commandsCompleted = new AtomicLong();

    CommandPipeline(final ProtectionDomain pd, final int slotCount, final long dataBytes, final long maxIoSize,
                    final int ringSize, final int backendThreads, final int maxChannels) {
        this.maxIoSize = maxIoSize;
        this.dataRegion = pd.registerMemory(arena.allocate(dataBytes, 4096), AccessFlags.LOCAL_WRITE);
        this.responseRegion = pd.registerMemory(arena.allocate((long) slotCount * CommandSlot.RESPONSE_BYTES, 4096),
                AccessFlags.LOCAL_WRITE);
        this.slots = new CommandSlot[slotCount];
        for (int i = 0; i < slotCount; i++) {
            slots[i] = new CommandSlot(i, this, responseRegion);
        }
        this.channels = new AtomicReferenceArray<>(maxChannels);
        this.intake = new Intake(slotCount, new DataBufferPool(dataBytes, DATA_CHUNK_BYTES), maxChannels);
        this.disruptor = new Disruptor<>(PipelineEvent::new, ringSize, Thread.ofPlatform().daemon().name("srp-pipeline-", 0).factory(),
                ProducerType.SINGLE, new SleepingWaitStrategy());
        final BackendStage[] backends = new BackendStage[backendThreads];
        for (int i = 0; i < backendThreads; i++) {
            backends[i] = new BackendStage(i, backendThreads);
        }
        disruptor.handleEventsWith(intake).then(backends);
        disruptor.setDefaultExceptionHandler(new PipelineExceptionHandler());
        this.ring = disruptor.start();
    }

    MemoryRegion dataRegion() {
        return dataRegion;
    }

    /** Poller thread: hands one completion to the pipeline. */
    void publish(final int kind, final int channel, final int index, final int byteLength, final int status) {
        final long sequence = ring.next();
        ring.get(sequence).set(kind, channel, index, byteLength, status);
        ring.publish(sequence);
    }

    /** Poller thread, when idle: lets the intake stage take back failed posts and check timeouts. */
    void tick() {
        publish(TICK, 0, 0, 0, 0);
    }

    boolean hasFailedPosts() {
        return !failedPosts.isEmpty();
    }

    /** A response or READ post was refused (its QP is gone or in error): no completion will free the slot. */
    void postFailed(final CommandSlot slot, final RuntimeException cause) {
        LOG.log(Level.FINE, "post refused on " + slot.channel + ": " + cause.getMessage());
        failedPosts.add(slot);
    }

    /** Slots currently free, for tests (read on any thread: a snapshot). */
    int freeSlots() {
        return intake.freeCount;
    }

    /** Data chunks in use, for tests. */
    int dataChunksInUse() {
        return intake.buffers.inUse();
    }

    @Override
    public void close() {
        disruptor.halt();
        responseRegion.close();
        dataRegion.close();
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
        private final SrpIuDecoder decoder = new SrpIuDecoder();
        private final int[] freeSlots;
        private int freeCount;
        final DataBufferPool buffers;
        /** IUs that arrived when no slot or buffer run was free, FIFO: channel id, receive index, length. */
        private final int[] waitingChannel;
        private final int[] waitingIndex;
        private final int[] waitingLength;
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
        }

        @Override
        public void onEvent(final PipelineEvent event, final long sequence, final boolean endOfBatch) {
            switch (event.kind) {
                case WorkRequestIds.RECEIVE -> received(event);
                case WorkRequestIds.DATA_OUT -> dataOutArrived(event);
                case WorkRequestIds.RESPONSE -> responseSent(slots[event.index], event);
                case TICK -> {
                    CommandSlot failed;
                    while ((failed = failedPosts.poll()) != null) {
                        release(failed, event);
                    }
                }
                default -> LOG.warning("unknown pipeline event kind " + event.kind);
            }
        }

        private void received(final PipelineEvent event) {
            final SrpChannel channel = channels.get(event.channel);
            if (channel == null) {
                return;
            }
            channel.postedReceives--;
            if (event.status != 0) {
                channel.closing = true; // flushed: the connection is going
                releaseIfDrained(channel);
                return;
            }
            channel.lastActivityNanos = System.nanoTime();
            if (waitingCount > 0 || !process(channel, event.index, event.byteLength, event)) {
                enqueueWaiting(channel.id, event.index, event.byteLength);
            }
        }

        /** Handles one IU; false when it must wait for a slot or a data buffer run (nothing was consumed). */
        private boolean process(final SrpChannel channel, final int receiveIndex, final int length, final PipelineEvent event) {
            final MemorySegment region = channel.receiveRegion.segment();
            final long at = channel.receiveOffset(receiveIndex);
            decoder.immediateDataOffset(channel.immediateDataOffset);
            final SrpDecodeError error = decoder.decode(region, at, length);
            // An IU too short to carry a tag cannot be answered by tag: it is no IU the target takes (logged out below).
            final int opcode = error == SrpDecodeError.NONE ? decoder.opcode()
                    : length >= TAG_END ? Byte.toUnsignedInt(region.get(java.lang.foreign.ValueLayout.JAVA_BYTE, at)) : -1;
            switch (opcode) {
                case SrpOpcode.CMD -> {
                    return command(channel, receiveIndex, error, event);
                }
                case SrpOpcode.TSK_MGMT -> {
                    if (freeCount == 0) {
                        return false;
                    }
                    final long tag = rawTag(region, at); // the decoder hands out no flyweight for an invalid IU
                    // TODO(issue 9): abort queued commands; today every command is already past the point of no return
                    final int code = error != SrpDecodeError.NONE ? SrpTaskManagement.RSP_INVALID_FIELDS
                            : switch (decoder.taskManagement().function()) {
                                case SrpTaskManagement.ABORT_TASK, SrpTaskManagement.ABORT_TASK_SET,
                                     SrpTaskManagement.CLEAR_TASK_SET, SrpTaskManagement.LUN_RESET -> SrpTaskManagement.RSP_COMPLETE;
                                default -> SrpTaskManagement.RSP_NOT_SUPPORTED;
                            };
                    channel.repostReceive(receiveIndex);
                    channel.outstandingCommands++;
                    takeSlot().respondToTaskManagement(channel, tag, code);
                    return true;
                }
                case SrpOpcode.I_LOGOUT -> {
                    LOG.info(channel + " logged out");
                    channel.closing = true;
                    channel.connection.disconnect();
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
                    LOG.warning(channel + " sent an IU the target does not take (opcode " + opcode + ", " + error
                            + "); logging it out");
                    channel.outstandingCommands++;
                    takeSlot().sendTargetLogout(channel, SrpTargetLogout.REASON_INVALID_IU_TYPE);
                    channel.closing = true;
                    return true;
                }
            }
        }

        private boolean command(final SrpChannel channel, final int receiveIndex, final SrpDecodeError error,
                                final PipelineEvent event) {
            if (freeCount == 0) {
                return false;
            }
            if (error != SrpDecodeError.NONE) {
                // The tag is readable in any IU of 16 bytes or more (shorter ones are logged out); the decoder hands
                // out no flyweight for an invalid IU.
                final CommandSlot slot = takeSlot();
                slot.channel = channel;
                slot.tag = rawTag(channel.receiveRegion.segment(), channel.receiveOffset(receiveIndex));
                slot.descriptorCount = 0;
                slot.firstChunk = -1;
                channel.repostReceive(receiveIndex);
                channel.outstandingCommands++;
                slot.command.failWithoutExecuting(SenseCode.INVALID_FIELD_IN_COMMAND_INFORMATION_UNIT);
                return true;
            }
            final SrpCommand iu = decoder.command();
            final CommandSlot slot = slots[freeSlots[freeCount - 1]];
            SenseCode failure = slot.load(channel, iu);
            final long needed = Math.max(slot.dataOutLength, slot.dataInLength);
            if (failure == null && needed > maxIoSize) {
                failure = SenseCode.INVALID_FIELD_IN_COMMAND_INFORMATION_UNIT;
            }
            int first = -1;
            int count = 0;
            if (failure == null && needed > 0) {
                count = buffers.chunksFor(needed);
                first = buffers.take(count);
                if (first < 0) {
                    return false; // wait for a buffer run; the slot was not taken
                }
            }
            takeSlot();
            channel.outstandingCommands++;
            slot.arrivedNanos = event == null ? System.nanoTime() : slot.arrivedNanos;
            if (channel.outstandingCommands > channel.credits) {
                // beyond the credit window: answered, never dropped (the spare receives make this possible)
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
            if (first >= 0) {
                slot.attachData(dataRegion, buffers.offset(first), (long) count * DATA_CHUNK_BYTES);
            } else {
                slot.command.setDataBuffer(dataRegion.segment(), 0, 0).setExpectedLengths(0, 0);
            }
            if (iu.dataOutFormat() == org.rdmablock.protocol.srp.SrpBufferFormat.IMMEDIATE) {
                MemorySegment.copy(iu.segment(), iu.immediateDataOffsetInSegment(channel.immediateDataOffset),
                        dataRegion.segment(), slot.dataOffset, slot.dataOutLength);
            }
            channel.repostReceive(receiveIndex); // everything the command needs is out of the IU now
            if (slot.readsDataOut && slot.descriptorCount > 0) {
                try {
                    slot.postDataOutReads(dataRegion);
                } catch (RuntimeException e) {
                    postFailed(slot, e);
                }
                return true;
            }
            ready(slot, event);
            return true;
        }

        private void ready(final CommandSlot slot, final PipelineEvent event) {
            if (event != null && event.ready == null) {
                event.ready = slot;
            } else {
                // Only one slot rides on an event; others (woken waiters) go through the same path on the next tick.
                slot.command.failWithoutExecuting(SenseCode.INTERNAL_TARGET_FAILURE);
            }
        }

        private void dataOutArrived(final PipelineEvent event) {
            final CommandSlot slot = slots[event.index];
            if (event.status != 0) {
                slot.channel.closing = true;
                slot.command.failWithoutExecuting(SenseCode.DATA_PHASE_ERROR);
                return;
            }
            event.ready = slot;
        }

        private void responseSent(final CommandSlot slot, final PipelineEvent event) {
            commandsCompleted.incrementAndGet();
            if (event.status != 0) {
                slot.channel.closing = true;
            }
            release(slot, event);
        }

        private void release(final CommandSlot slot, final PipelineEvent event) {
            final SrpChannel channel = slot.channel;
            if (slot.endsChannel) {
                // its SRP_T_LOGOUT has gone (or could not): the target ends the channel, flushing its receives
                slot.endsChannel = false;
                channel.connection.disconnect();
            }
            releaseRun(slot.firstChunk, slot.chunkCount);
            slot.firstChunk = -1;
            freeSlots[freeCount++] = slot.index;
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
            // No residual from the slot's last command: one failed or refused before attachData offers nothing.
            slot.command.setExpectedLengths(0, 0);
            return slot;
        }

        private void enqueueWaiting(final int channel, final int index, final int length) {
            final int tail = (waitingHead + waitingCount) % waitingChannel.length;
            waitingChannel[tail] = channel;
            waitingIndex[tail] = index;
            waitingLength[tail] = length;
            waitingCount++;
        }

        /** Processes waiting IUs in arrival order until one has to wait again. */
        private void resumeWaiting(final PipelineEvent event) {
            while (waitingCount > 0) {
                final SrpChannel channel = channels.get(waitingChannel[waitingHead]);
                if (channel != null && !channel.closing) {
                    // a waiter that becomes ready rides on this event only if the event carries no slot yet
                    if (event.ready != null || !process(channel, waitingIndex[waitingHead], waitingLength[waitingHead], event)) {
                        return;
                    }
                }
                waitingHead = (waitingHead + 1) % waitingChannel.length;
                waitingCount--;
            }
        }

        private void releaseIfDrained(final SrpChannel channel) {
            if (channel.drained() && channels.compareAndSet(channel.id, channel, null)) {
                LOG.info(channel + " closed");
                try {
                    channel.release();
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "releasing " + channel, e);
                }
            }
        }
    }

    /** Stage 2, {@code threads} instances: executes the ready commands whose slot index falls to this one. */
    private final class BackendStage implements EventHandler<PipelineEvent> {
        private final int ordinal;
        private final int threads;

        BackendStage(final int ordinal, final int threads) {
            this.ordinal = ordinal;
            this.threads = threads;
        }

        @Override
        public void onEvent(final PipelineEvent event, final long sequence, final boolean endOfBatch) {
            final CommandSlot slot = event.ready;
            if (slot != null && slot.index % threads == ordinal) {
                slot.channel.units.execute(slot.lunField, slot.command);
            }
        }
    }

    /** Logs what a stage threw and keeps the pipeline running: one bad command must not stop the target. */
    private static final class PipelineExceptionHandler implements com.lmax.disruptor.ExceptionHandler<PipelineEvent> {
        @Override
        public void handleEventException(final Throwable ex, final long sequence, final PipelineEvent event) {
            LOG.log(Level.SEVERE, "pipeline stage failed on event kind " + event.kind + " index " + event.index, ex);
        }

        @Override
        public void handleOnStartException(final Throwable ex) {
            LOG.log(Level.SEVERE, "pipeline start", ex);
        }

        @Override
        public void handleOnShutdownException(final Throwable ex) {
            LOG.log(Level.SEVERE, "pipeline shutdown", ex);
        }
    }
}
