package org.rdmablock.target.srp;

import org.rdmablock.protocol.scsi.LogicalUnit;
import org.rdmablock.protocol.scsi.LunAddress;
import org.rdmablock.protocol.scsi.ScsiStatus;
import org.rdmablock.protocol.scsi.SenseCode;
import org.rdmablock.protocol.scsi.SenseKey;
import org.rdmablock.protocol.srp.SrpCommand;
import org.rdmablock.protocol.srp.SrpDecodeError;
import org.rdmablock.protocol.srp.SrpInformationUnit;
import org.rdmablock.protocol.srp.SrpIuDecoder;
import org.rdmablock.protocol.srp.SrpOpcode;
import org.rdmablock.protocol.srp.SrpTargetLogout;
import org.rdmablock.protocol.srp.SrpTaskManagement;
import org.rdmablock.target.core.Channel;
import org.rdmablock.target.core.ChannelTable;
import org.rdmablock.target.core.CommandPipeline;
import org.rdmablock.target.core.CommandSlot;
import org.rdmablock.target.core.CommandStatistics;
import org.rdmablock.target.core.DataPhase;
import org.rdmablock.target.core.DataRoom;
import org.rdmablock.target.core.FrontEnd;
import org.rdmablock.target.core.PipelineEvent;
import org.rdmablock.target.core.SendPoster;
import org.rdmablock.target.core.Timeouts;
import org.rdmablock.target.core.SlotPool;
import org.rdmablock.target.core.WaitingRequests;
import org.rdmablock.target.metrics.IoStats;
import org.rdmablock.target.metrics.TargetStatistics.Count;
import org.rdmablock.target.metrics.TargetStatistics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The SRP front end on the core's intake stage: decodes each IU through {@code protocol/srp}'s flyweights and acts on
 * it. An SRP_CMD is loaded into a slot ({@link SrpCommandLoader}), admitted against the channel's credits (beyond
 * them: BUSY) and the data room, and starts its data phase; SRP_TSK_MGMT aborts commands and waiting requests (SAM-5
 * 7); SRP_I_LOGOUT ends the channel; an IU an initiator does not send logs the channel out. On each tick it logs out
 * channels a SINGLE login ended, channels idle too long and, at shutdown, all; and returns the credits of dropped
 * commands by SRP_CRED_REQ when no response would carry them.
 *
 * <p>Thread: the intake stage's, but for {@link #endBySingleLogin} (login threads) and {@link #hasWork} (the poller).
 */
final class SrpFrontEnd implements FrontEnd {
    private static final Logger LOG = LoggerFactory.getLogger(CommandPipeline.class); // the pipeline's log, as before
    /** The LUN field of a slot whose IU was refused undecoded: no LUN task management names (it is answered at once). */
    private static final long NO_LUN = -1L;

    private final SrpIuDecoder decoder = new SrpIuDecoder();
    /** Reads opcode, tag and LUN of an IU the decoder refused or did not look at (a waiting one). */
    private final SrpCommand header = new SrpCommand();
    private final SrpCommandLoader loader = new SrpCommandLoader();
    /** Each slot's SRP response encoder, by slot index: for the IUs this front end sends itself. */
    private final SrpResponses[] responses;
    private final SlotPool slots;
    private final DataRoom room;
    private final CommandStatistics commands;
    private final WaitingRequests waiting;
    private final ChannelTable channels;
    private final TargetStatistics statistics;
    private final SendPoster posts;
    private final Timeouts timeouts;
    /** Channels a login with multichannel action SINGLE ended (login threads): logged out on the next tick. */
    private final ConcurrentLinkedQueue<SrpChannel> logoutsRequested = new ConcurrentLinkedQueue<>();
    /** The waiting requests task management cancels (set per request; no allocation per call). */
    private final WaitingCancel waitingCancel = new WaitingCancel();

    SrpFrontEnd(final CoreParts core, final Timeouts timeouts) {
        this.slots = core.slots();
        this.responses = SrpResponses.forSlots(slots.all());
        this.room = core.room();
        this.commands = core.commands();
        this.waiting = core.waiting();
        this.channels = core.channels();
        this.statistics = core.statistics();
        this.posts = core.posts();
        this.timeouts = timeouts;
    }

    /**
     * Login thread: a login with multichannel action SINGLE ends {@code channel}; the next tick sends it SRP_T_LOGOUT
     * (reason: multichannel action), and it disconnects once that has gone.
     */
    void endBySingleLogin(final SrpChannel channel) {
        endByRequest(channel, SrpTargetLogout.REASON_MULTICHANNEL_ACTION);
    }

    /**
     * Any thread but the intake's (a login thread, the management socket's): the next tick sends {@code channel}
     * SRP_T_LOGOUT with {@code reason}, and it disconnects once that has gone.
     */
    void endByRequest(final SrpChannel channel, final int reason) {
        channel.requestedLogoutReason = reason;
        logoutsRequested.add(channel);
    }

    @Override
    public boolean hasWork() {
        return !logoutsRequested.isEmpty();
    }

    @Override
    public boolean serves(final Channel channel) {
        return channel instanceof SrpChannel;
    }

    @Override
    public org.rdmablock.target.core.ResponseEncoder[] responseEncoders() {
        return responses;
    }

    @Override
    public boolean received(final Channel received, final int receiveIndex, final int length, final PipelineEvent event,
                            final long arrivedNanos) {
        final SrpChannel channel = (SrpChannel) received; // the SRP target enters SRP channels only
        final MemorySegment region = channel.receiveSegment();
        final long at = channel.receiveOffset(receiveIndex);
        decoder.immediateDataOffset(channel.immediateDataOffset);
        final SrpDecodeError error = decoder.decode(region, at, length);
        // An IU too short to carry a tag cannot be answered by tag: it is no IU the target takes (logged out below).
        final int opcode = error == SrpDecodeError.NONE ? decoder.opcode()
                : length >= SrpInformationUnit.TAG_END ? header.wrap(region, at).opcode() : -1;
        switch (opcode) {
            case SrpOpcode.CMD -> {
                return command(channel, receiveIndex, error, event, arrivedNanos);
            }
            case SrpOpcode.TSK_MGMT -> {
                if (!slots.hasFree()) {
                    return false;
                }
                final long tag = header.wrap(region, at).tag(); // the decoder hands out no flyweight for an invalid IU
                final int code = error != SrpDecodeError.NONE ? SrpTaskManagement.RSP_INVALID_FIELDS
                        : taskManagement(channel, decoder.taskManagement());
                statistics.add(Count.TASK_MANAGEMENT, 1);
                channel.repostReceive(receiveIndex);
                channel.addOutstanding();
                channel.creditsInUse.incrementAndGet();
                final CommandSlot slot = slots.take();
                responses[slot.index()].respondToTaskManagement(slot, channel, tag, code);
                return true;
            }
            case SrpOpcode.I_LOGOUT -> {
                LOG.info("{} logged out: SRP_I_LOGOUT; {} command(s) in flight", channel, channel.outstandingCommands());
                posts.flush(); // the responses this cycle made go before the disconnect, as they did unbatched
                channel.endByInitiator();
                return true;
            }
            case SrpOpcode.CRED_RSP, SrpOpcode.AER_RSP -> {
                channel.repostReceive(receiveIndex);
                return true;
            }
            default -> {
                // Not an IU an initiator sends (or not one at all): SRP says the target logs the channel out.
                if (!slots.hasFree()) {
                    return false;
                }
                LOG.warn("{} sent an IU the target does not take (opcode {}, {}); logging it out", channel, opcode, error);
                channel.addOutstanding();
                channel.loggingOut(true);
                sendTargetLogout(channel, SrpTargetLogout.REASON_INVALID_IU_TYPE);
                return true;
            }
        }
    }

    private boolean command(final SrpChannel channel, final int receiveIndex, final SrpDecodeError error,
                            final PipelineEvent event, final long arrivedNanos) {
        if (!slots.hasFree()) {
            return false;
        }
        if (error != SrpDecodeError.NONE) {
            // The tag is readable in any IU of 16 bytes or more (shorter ones are logged out); the decoder hands
            // out no flyweight for an invalid IU.
            final CommandSlot slot = slots.take();
            final SrpCommand refused = header.wrap(channel.receiveSegment(), channel.receiveOffset(receiveIndex));
            slot.begin(channel, refused.tag(), NO_LUN);
            channel.repostReceive(receiveIndex);
            channel.addOutstanding();
            commands.track(slot, channel, IoStats.OTHER, null, arrivedNanos);
            takeCredit(channel);
            slot.command().failWithoutExecuting(SenseCode.INVALID_FIELD_IN_COMMAND_INFORMATION_UNIT);
            return true;
        }
        final SrpCommand iu = decoder.command();
        final CommandSlot slot = slots.next();
        SenseCode failure = loader.load(slot, channel, iu);
        final int lun = LunAddress.decode(iu.lun());
        if (failure == null && reportsUnitAttention(iu.cdbByte(0))) {
            failure = channel.nexus().attentions().take(lun); // null, with one volatile read, when none is pending
        }
        final long needed = Math.max(slot.dataOutLength(), slot.dataInLength());
        if (failure == null && needed > room.maxIoSize()) {
            failure = SenseCode.INVALID_FIELD_IN_COMMAND_INFORMATION_UNIT;
        }
        if (!room.reserve(slot, needed, failure != null)) {
            return false; // wait for a buffer run; the slot was not taken
        }
        slots.take();
        channel.addOutstanding();
        commands.track(slot, channel, IoStats.kindOf(iu.cdbByte(0)), statistics.lun(lun), arrivedNanos);
        if (!takeCredit(channel)) {
            // beyond the credit window: answered, never dropped (the spare receives make this possible)
            if (failure != null && failure.senseKey() == SenseKey.UNIT_ATTENTION) {
                channel.nexus().attentions().raise(lun, failure); // BUSY reports no unit attention: the next command does
            }
            channel.session().answeredBusy();
            statistics.add(Count.BUSY, 1);
            room.release(slot);
            channel.repostReceive(receiveIndex);
            slot.command().finishWithStatus(ScsiStatus.BUSY);
            return true;
        }
        if (failure != null) {
            room.release(slot);
            channel.repostReceive(receiveIndex);
            slot.command().failWithoutExecuting(failure);
            return true;
        }
        room.attach(slot, needed);
        if (iu.dataOutFormat() == org.rdmablock.protocol.srp.SrpBufferFormat.IMMEDIATE) {
            MemorySegment.copy(iu.segment(), iu.immediateDataOffsetInSegment(channel.immediateDataOffset),
                    slot.dataSegment(), slot.dataOffset(), slot.dataOutLength());
        }
        channel.repostReceive(receiveIndex); // everything the command needs is out of the IU now
        DataPhase.start(slot, event);
        return true;
    }

    /** SAM-5 5.14: INQUIRY, REPORT LUNS and REQUEST SENSE do not report (or clear) a unit attention. */
    private static boolean reportsUnitAttention(final int opcode) {
        return opcode != 0x12 && opcode != 0xA0 && opcode != 0x03;
    }

    /**
     * A command takes a credit of its channel: false when it came beyond the channel's credits. One that takes the
     * last is counted: the initiator can send no more on the channel until a response returns one.
     */
    private boolean takeCredit(final SrpChannel channel) {
        final int inUse = channel.creditsInUse.incrementAndGet();
        if (inUse == channel.credits) {
            channel.session().creditsExhausted();
            statistics.add(Count.CREDITS_EXHAUSTED, 1);
        }
        return inUse <= channel.credits;
    }

    /** A command aborted by task management got no response (SAM with TAS=0): its credit rides on the next one. */
    @Override
    public void commandDropped(final Channel dropped) {
        final SrpChannel channel = (SrpChannel) dropped;
        channel.creditsInUse.decrementAndGet();
        channel.pendingCredits.incrementAndGet();
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
        for (final CommandSlot slot : slots.all()) {
            // an SRP nexus's task management reaches SRP commands only (NVMe queues share the slots: one pipeline)
            if (slot.abortable() && slot.lunField() == lun && slot.channel() instanceof SrpChannel
                    && (slot.channel() == channel || allInitiators)
                    && (!oneTask || slot.tag() == taskTag) && slot.tag() != tm.tag()) {
                slot.abort();
                aborted++;
            }
        }
        aborted += waiting.cancel(waitingCancel.of(channel, allInitiators, lun, oneTask, taskTag));
        if (function == SrpTaskManagement.LUN_RESET) {
            final LogicalUnit unit = channel.units().get(LunAddress.decode(lun));
            if (unit != null) {
                unit.reservations().logicalUnitReset(); // SPC-2 5.5.1: a reset ends an SPC-2 reservation, not a persistent one
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

    /**
     * The waiting SRP_CMDs a task management function reaches: of the requesting channel (or any, for a LUN RESET or
     * CLEAR TASK SET), for its LUN (and, for ABORT TASK, its tag). A cancelled one's receive goes back, and its credit
     * rides on the next response.
     */
    private final class WaitingCancel implements WaitingRequests.Filter {
        private SrpChannel requester;
        private boolean allInitiators;
        private long lun;
        private boolean oneTask;
        private long taskTag;

        WaitingCancel of(final SrpChannel requester, final boolean allInitiators, final long lun, final boolean oneTask,
                         final long taskTag) {
            this.requester = requester;
            this.allInitiators = allInitiators;
            this.lun = lun;
            this.oneTask = oneTask;
            this.taskTag = taskTag;
            return this;
        }

        @Override
        public boolean cancels(final int channelId, final int receiveIndex) {
            if (!(channels.get(channelId) instanceof SrpChannel waiter) || (waiter != requester && !allInitiators)) {
                return false;
            }
            final SrpCommand iu = header.wrap(waiter.receiveSegment(), waiter.receiveOffset(receiveIndex));
            if (iu.opcode() != SrpOpcode.CMD || iu.lun() != lun || oneTask && iu.tag() != taskTag) {
                return false;
            }
            waiter.repostReceive(receiveIndex);
            waiter.pendingCredits.incrementAndGet();
            return true;
        }
    }

    @Override
    public void tick(final long now, final boolean stopping) {
        SrpChannel single;
        for (int asked = logoutsRequested.size(); asked > 0 && slots.hasFree() && (single = logoutsRequested.poll()) != null; asked--) {
            if (!single.accepted() && !single.closing()) {
                // asked before its login's accept returned: its QP may not send yet (the T_LOGOUT would be refused and
                // the initiator see only the disconnect); it waits for a later tick
                logoutsRequested.add(single);
                continue;
            }
            if (!single.closing() && !single.loggingOut() && channels.get(single.id()) == single) {
                single.loggingOut(true);
                single.addOutstanding();
                sendTargetLogout(single, single.requestedLogoutReason);
            }
        }
        final long idleTimeoutNanos = timeouts.idleNanos(); // one read: a configuration change may set it
        for (int i = 0; i < channels.capacity(); i++) {
            // the table may hold other front ends' channels (one pipeline for SRP and NVMe): this tick is for SRP's
            if (!(channels.get(i) instanceof SrpChannel channel) || channel.closing() || channel.loggingOut()
                    || !channel.accepted() || !slots.hasFree()) {
                continue;
            }
            final boolean idle = idleTimeoutNanos > 0 && channel.outstandingCommands() == 0
                    && now - channel.lastActivityNanos() > idleTimeoutNanos;
            if (stopping || idle) {
                LOG.info("{}: logging it out (SRP_T_LOGOUT, {})", channel,
                        idle ? "idle longer than " + Duration.ofNanos(idleTimeoutNanos) : "the target is stopping");
                channel.loggingOut(true);
                channel.addOutstanding();
                sendTargetLogout(channel, idle ? SrpTargetLogout.REASON_INACTIVE_CHANNEL : SrpTargetLogout.REASON_NONE);
            } else if (channel.outstandingCommands() == 0 && channel.pendingCredits.get() > 0) {
                // credits of dropped commands would otherwise wait for a response that may never come
                channel.addOutstanding();
                sendCreditRequest(channel, channel.pendingCredits.getAndSet(0));
            }
        }
    }

    /** Takes a slot for an SRP_T_LOGOUT to {@code channel} with {@code reason}; it disconnects once sent. */
    private void sendTargetLogout(final SrpChannel channel, final int reason) {
        final CommandSlot slot = slots.take();
        responses[slot.index()].sendTargetLogout(slot, channel, reason);
    }

    /** Takes a slot for an SRP_CRED_REQ giving {@code channel} {@code delta} credits. */
    private void sendCreditRequest(final SrpChannel channel, final int delta) {
        final CommandSlot slot = slots.take();
        responses[slot.index()].sendCreditRequest(slot, channel, delta);
    }
}
