package org.rdmablock.target.srp;

import com.lmax.disruptor.EventHandler;
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
import org.rdmablock.verbs.MemoryRegion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The intake stage: decodes IUs, owns the free slots, the data buffer pool, the IUs waiting for a slot and every
 * channel's receive and credit bookkeeping; answers task management, logs channels out, answers timed-out commands
 * and records every command into the statistics (it alone sees each arrive and each response go, so it writes them
 * without locks).
 *
 * <p>Thread: one. The completion poller's, when it runs the pipeline itself ({@link PollerExecution}); the ring's
 * first stage thread otherwise ({@link RingExecution}). Other threads reach it only through {@link IntakeInbox}.
 */
final class Intake implements EventHandler<PipelineEvent> {
    private static final Logger LOG = LoggerFactory.getLogger(CommandPipeline.class); // the pipeline's log, as before
    /** Bytes of an IU up to the end of its tag. */
    private static final int TAG_END = SrpInformationUnit.TAG_OFFSET + 8;
    private static final ValueLayout.OfLong BE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** The tag is opaque: read in native order, as the SRP codecs do. */
    private static final ValueLayout.OfLong TAG = ValueLayout.JAVA_LONG_UNALIGNED;
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
    private final MemorySegment residency;
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

    private final CommandSlot[] slots;
    private final ChannelTable channels;
    /** The shared receive buffers (SRQ mode), or null. */
    private final ReceiveBuffers sharedReceives;
    private final MemoryRegion dataRegion;
    private final long maxIoSize;
    /** Where in-place LUNs' memory is registered; null when LUNs are not served in place. */
    private final InPlaceRegions inPlace;
    private final IntakeInbox inbox;
    private final TargetStatistics statistics;
    private final long idleTimeoutNanos;
    /** A command still with its backend thread this long after the hand-over is answered (0: never). */
    private final long commandTimeoutNanos;
    /** How this stage's thread posts: the poller's batch, or direct on a ring stage thread. */
    private final SendPoster posts;
    private final AtomicLong commandsCompleted;

    Intake(final CommandSlot[] slots, final ChannelTable channels, final ReceiveBuffers sharedReceives,
           final MemoryRegion dataRegion, final DataBufferPool buffers, final long maxIoSize, final InPlaceRegions inPlace,
           final MemorySegment residency, final IntakeInbox inbox, final TargetStatistics statistics,
           final Duration idleTimeout, final Duration commandTimeout, final SendPoster posts,
           final AtomicLong commandsCompleted) {
        this.slots = slots;
        this.channels = channels;
        this.sharedReceives = sharedReceives;
        this.dataRegion = dataRegion;
        this.maxIoSize = maxIoSize;
        this.inPlace = inPlace;
        this.residency = residency;
        this.inbox = inbox;
        this.statistics = statistics;
        this.idleTimeoutNanos = idleTimeout.toNanos();
        this.commandTimeoutNanos = commandTimeout.toNanos();
        this.posts = posts;
        this.commandsCompleted = commandsCompleted;
        final int slotCount = slots.length;
        final int maxChannels = channels.capacity();
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

    /** The tag of an IU of at least {@link #TAG_END} bytes, as sent (SRP tags are opaque: native order, as the codecs). */
    private static long rawTag(final MemorySegment region, final long at) {
        return region.get(TAG, at + SrpInformationUnit.TAG_OFFSET);
    }

    /** Slots currently free (any thread: a snapshot, for tests and the resource snapshot). */
    int freeSlotCount() {
        return freeCount;
    }

    /** Data chunks in use (any thread: a snapshot). */
    int dataChunksInUse() {
        return buffers.inUse();
    }

    @Override
    public void onEvent(final PipelineEvent event, final long sequence, final boolean endOfBatch) {
        switch (event.kind) {
            case WorkRequestIds.DATA_OUT, WorkRequestIds.TABLE, WorkRequestIds.DATA_IN ->
                    slots[event.index].postsThrough(posts); // back from a backend thread, maybe
            default -> { }
        }
        switch (event.kind) {
            case WorkRequestIds.RECEIVE, CommandPipeline.RECEIVE_SHARED -> received(event);
            case WorkRequestIds.DATA_OUT -> dataOutArrived(event);
            case WorkRequestIds.TABLE -> tableArrived(event);
            case WorkRequestIds.DATA_IN -> dataInRoundWritten(slots[event.index], event);
            case WorkRequestIds.RESPONSE -> responseSent(slots[event.index], event);
            case CommandPipeline.TICK -> housekeeping(event);
            default -> LOG.warn("unknown pipeline event kind {}", event.kind);
        }
    }

    private void received(final PipelineEvent event) {
        if (event.kind == CommandPipeline.RECEIVE_SHARED) {
            event.channel = channels.channelOfQueuePair(event.channel); // the poller passed the QP number
        }
        final SrpChannel channel = event.channel < 0 ? null : channels.get(event.channel);
        if (channel == null) {
            if (event.kind == CommandPipeline.RECEIVE_SHARED && sharedReceives != null && event.status == 0) {
                ReceiveBuffers.repostShared(sharedReceives, event.index); // its channel is gone; the buffer is not
            }
            return;
        }
        if (event.kind == CommandPipeline.RECEIVE_SHARED && event.status != 0) {
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
                : length >= TAG_END ? Byte.toUnsignedInt(region.get(ValueLayout.JAVA_BYTE, at)) : -1;
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
                posts.flush(); // the responses this cycle made go before the disconnect, as they did unbatched
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
        final MemoryRegion inPlace = failure == null && needed > 0 && this.inPlace != null ? inPlaceRegion(slot, iu) : null;
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
            slot.attachData(dataRegion, buffers.offset(first), (long) count * CommandPipeline.DATA_CHUNK_BYTES);
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
            inPlace.add(storage); // allocates only for a LUN not seen before
        }
        return inPlace.regionOf(storage);
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
        slot.postsThrough(posts);
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
            final boolean isCommand = Byte.toUnsignedInt(iu.get(ValueLayout.JAVA_BYTE, offset)) == SrpOpcode.CMD;
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
        while ((ended = inbox.disconnected.poll()) != null) {
            ended(ended, "the initiator disconnected", 0);
            releaseIfDrained(ended);
        }
        SrpChannel single;
        while (freeCount > 0 && (single = inbox.endedBySingle.poll()) != null) {
            if (!single.closing && !single.loggingOut && channels.get(single.id) == single) {
                single.loggingOut = true;
                single.outstandingCommands++;
                takeSlot().sendTargetLogout(single, SrpTargetLogout.REASON_MULTICHANNEL_ACTION);
            }
        }
        CommandSlot failed;
        while ((failed = inbox.returned.poll()) != null) {
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
            if (inbox.shuttingDown || idle) {
                LOG.info("{}: logging it out (SRP_T_LOGOUT, {})", channel,
                        idle ? "idle longer than " + Duration.ofNanos(idleTimeoutNanos) : "the target is stopping");
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
                    && slot.answerTimedOut(posts)) {
                answered++;
                example = slot;
            }
        }
        if (answered > 0) {
            statistics.add(Count.COMMAND_TIMEOUTS, answered);
            LOG.warn("{} command(s) still in the backend after the command timeout of {} answered ABORTED COMMAND,"
                            + " COMMAND TIMEOUT DURING PROCESSING (e.g. tag {} on {}); their buffers stay taken until the"
                            + " backend returns", answered, Duration.ofNanos(commandTimeoutNanos), example.tag,
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
