package org.rdmablock.target.core;

import com.lmax.disruptor.EventHandler;
import org.rdmablock.protocol.scsi.SenseCode;
import org.rdmablock.target.metrics.TargetStatistics;
import org.rdmablock.target.metrics.TargetStatistics.Count;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The intake stage, the core's half: takes every completion and tick. A receive goes to the {@link FrontEnd}, which
 * decodes the request and admits it (or it waits, in {@link WaitingRequests}, for a slot or a buffer run); a completed
 * RDMA READ moves the command's data phase on ({@link DataPhase}); a round of data-in WRITEs posts the next; a
 * response's send completion records the command ({@link CommandStatistics}) and frees its slot, its buffer run and
 * its channel's hold, and serves the requests waiting for them. On each tick it takes back the slots of refused posts
 * and returned backend calls, answers commands past the command timeout, ends channels whose connection ended, and
 * lets the front end run its own timers.
 *
 * <p>Thread: one. The completion poller's, when it runs the pipeline itself ({@link PollerExecution}); the ring's
 * first stage thread otherwise ({@link RingExecution}). Other threads reach it only through {@link IntakeInbox}.
 */
final class Intake implements EventHandler<PipelineEvent> {
    private static final Logger LOG = LoggerFactory.getLogger(CommandPipeline.class); // the pipeline's log, as before

    private final SlotPool slots;
    private final CommandSlot[] all;
    private final DataRoom room;
    private final WaitingRequests waiting;
    private final CommandStatistics commands;
    private final FrontEnd frontEnd;
    private final ChannelTable channels;
    /** The shared receive buffers (SRQ mode), or null. */
    private final ReceiveBuffers sharedReceives;
    private final IntakeInbox inbox;
    private final TargetStatistics statistics;
    /** A command still with its backend thread this long after the hand-over is answered (0: never). */
    private final Timeouts timeouts;
    /** How this stage's thread posts: the poller's batch, or direct on a ring stage thread. */
    private final SendPoster posts;
    private final AtomicLong commandsCompleted;
    /** COMPARE AND WRITE's ordering of overlapping writes. */
    private final WriteGates gates;

    Intake(final SlotPool slots, final DataRoom room, final WaitingRequests waiting, final CommandStatistics commands,
           final FrontEnd frontEnd, final ChannelTable channels, final ReceiveBuffers sharedReceives, final IntakeInbox inbox,
           final TargetStatistics statistics, final Timeouts timeouts, final SendPoster posts,
           final AtomicLong commandsCompleted, final WriteGates gates) {
        this.slots = slots;
        this.all = slots.all();
        this.room = room;
        this.waiting = waiting;
        this.commands = commands;
        this.frontEnd = frontEnd;
        this.channels = channels;
        this.sharedReceives = sharedReceives;
        this.inbox = inbox;
        this.statistics = statistics;
        this.timeouts = timeouts;
        this.posts = posts;
        this.commandsCompleted = commandsCompleted;
        this.gates = gates;
    }

    /** Slots currently free (any thread: a snapshot, for tests and the resource snapshot). */
    int freeSlotCount() {
        return slots.freeCount();
    }

    /** Data chunks in use (any thread: a snapshot). */
    int dataChunksInUse() {
        return room.buffers.inUse();
    }

    @Override
    public void onEvent(final PipelineEvent event, final long sequence, final boolean endOfBatch) {
        switch (event.kind) {
            case WorkRequestIds.DATA_OUT, WorkRequestIds.TABLE, WorkRequestIds.DATA_IN ->
                    all[event.index].postsThrough(posts); // back from a backend thread, maybe
            default -> { }
        }
        switch (event.kind) {
            case WorkRequestIds.RECEIVE, CommandPipeline.RECEIVE_SHARED -> received(event);
            case WorkRequestIds.DATA_OUT -> dataOutArrived(event);
            case WorkRequestIds.TABLE -> tableArrived(event);
            case WorkRequestIds.DATA_IN -> dataInRoundWritten(all[event.index], event);
            case WorkRequestIds.RESPONSE -> responseSent(all[event.index], event);
            case CommandPipeline.TICK -> housekeeping(event);
            default -> LOG.warn("unknown pipeline event kind {}", event.kind);
        }
    }

    private void received(final PipelineEvent event) {
        if (event.kind == CommandPipeline.RECEIVE_SHARED) {
            event.channel = channels.channelOfQueuePair(event.channel); // the poller passed the QP number
        }
        final Channel channel = event.channel < 0 ? null : channels.get(event.channel);
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
        if (!waiting.isEmpty() || !frontEnd.received(channel, event.index, event.byteLength, event, now)) {
            waiting.add(channel.id, event.index, event.byteLength, now);
        }
    }

    /**
     * The channel is ending (closing from now on); when neither side logged it out, it is lost: one warning, counted.
     * {@code what} failed with completion status {@code status}, or (status 0) is what happened.
     */
    private void ended(final Channel channel, final String what, final int status) {
        if (!channel.closing && !channel.loggingOut) {
            statistics.add(Count.LOST_CHANNELS, 1);
            LOG.warn("{} lost: {}{}, without a logout; {} command(s) in flight", channel, what,
                    status == 0 ? "" : " completed with " + org.rdmablock.verbs.WcStatus.of(status), channel.outstandingCommands);
        }
        channel.closing = true;
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
        DataPhase.descriptorsKnown(slot, event);
    }

    private void dataOutArrived(final PipelineEvent event) {
        final CommandSlot slot = readCompleted(event);
        if (slot != null && slot.frontEndTakesDataOut && !slot.moreDataOut()) {
            frontEnd.dataOutArrived(slot, event);
        } else if (slot != null) {
            DataPhase.descriptorsKnown(slot, event);
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
        final CommandSlot slot = all[event.index];
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
            commands.answered(slot);
        }
        if (slot.phase == CommandSlot.TIMED_OUT && !slot.releaseHold()) {
            return; // answered by the timeout; its backend call has not returned yet and frees it when it does
        }
        release(slot, event);
    }

    private void release(final CommandSlot slot, final PipelineEvent event) {
        final Channel channel = slot.channel;
        final TaskAborts.Request drained = slot.drainFor;
        if (drained != null) {
            slot.drainFor = null;
            if (--drained.remaining == 0) {
                answer(drained);
            }
        }
        if (slot.tracked) {
            commands.left(slot);
        }
        gates.released(slot);
        room.release(slot);
        slots.put(slot);
        if (slot.disconnectAfter) {
            channel.closing = true;
            channel.disconnect(); // its flushed receives drain it
        }
        channel.outstandingCommands--;
        releaseIfDrained(channel);
        handOutUngated(event);
        resumeWaiting(event);
    }

    /** A write whose wait on the gates ended goes to its backend on this event, if the event carries no slot yet. */
    private void handOutUngated(final PipelineEvent event) {
        if (gates.hasReady()) { // a plain read: nothing else while no write waits
            if (event.ready == null) {
                DataPhase.execute(gates.takeReady(), event);
            }
            inbox.gatedReady = gates.hasReady(); // the poller ticks at once while more wait
        }
    }

    /** A command aborted by task management: no response (SAM with TAS=0); the front end's flow control goes on. */
    private void dropAborted(final CommandSlot slot, final PipelineEvent event) {
        frontEnd.commandDropped(slot.channel);
        release(slot, event);
    }

    /** Aborts the commands of a PREEMPT AND ABORT's preempted nexuses; it is answered when the last gives its slot back. */
    private void abortPreempted(final TaskAborts.Request request) {
        for (final CommandSlot slot : all) {
            if (slot.inUse && slot.drainFor == null && request.reaches(slot)) {
                if (slot.abortable()) {
                    slot.abort();
                }
                slot.drainFor = request;
                request.remaining++;
            }
        }
        LOG.info("PREEMPT AND ABORT from {}: {} command(s) of {} preempted nexus(es) aborted (any already executing finish)",
                request.issuer.channel, request.remaining, request.preempted.length);
        if (request.remaining == 0) {
            answer(request);
        }
    }

    /** Answers a PREEMPT AND ABORT whose aborted commands are all gone, posting through this stage. */
    private void answer(final TaskAborts.Request request) {
        request.issuer.postsThrough(posts);
        request.done.run();
    }

    /** Every tick: slots back without a completion, timed-out commands, ended connections; then the front end's turn. */
    private void housekeeping(final PipelineEvent event) {
        TaskAborts.Request preemption;
        while ((preemption = inbox.aborts.poll()) != null) {
            abortPreempted(preemption);
        }
        Channel ended;
        while ((ended = inbox.disconnected.poll()) != null) {
            ended(ended, "the initiator disconnected", 0);
            releaseIfDrained(ended);
        }
        CommandSlot failed;
        while ((failed = inbox.returned.poll()) != null) {
            if (failed.phase == CommandSlot.TIMED_OUT && !failed.releaseHold()) {
                continue; // the other of its response and its backend call is still out
            }
            if (failed.aborted) {
                frontEnd.commandDropped(failed.channel);
            }
            release(failed, event);
        }
        final long now = System.nanoTime();
        final long commandTimeoutNanos = timeouts.commandNanos(); // one read: a configuration change may set it
        if (commandTimeoutNanos > 0) {
            answerTimedOutCommands(now, commandTimeoutNanos);
        }
        frontEnd.tick(now, inbox.shuttingDown);
        handOutUngated(event);
    }

    /** Answers every command that has been with a backend thread longer than the command timeout (one log line). */
    private void answerTimedOutCommands(final long now, final long commandTimeoutNanos) {
        int answered = 0;
        CommandSlot example = null;
        for (final CommandSlot slot : all) {
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

    /** Serves waiting requests in arrival order until one has to wait again. */
    private void resumeWaiting(final PipelineEvent event) {
        while (!waiting.isEmpty()) {
            final int waiter = waiting.headChannel();
            final Channel channel = waiter == WaitingRequests.CANCELLED ? null : channels.get(waiter);
            if (channel != null && !channel.closing) {
                // a waiter that becomes ready rides on this event only if the event carries no slot yet
                if (event.ready != null || !frontEnd.received(channel, waiting.headReceiveIndex(), waiting.headLength(), event,
                        waiting.headArrived())) {
                    return;
                }
            }
            waiting.removeHead();
        }
    }

    private void releaseIfDrained(final Channel channel) {
        if (channel.drained() && channels.remove(channel)) {
            LOG.debug("{} closed: its queue pair and buffers released", channel);
            if (channel.nexus != null && !channels.anyOf(channel.nexus)) {
                // its nexus is gone (SPC-2 5.5.1): an SPC-2 reservation it held goes with it; persistent ones stay
                channel.units.forEach(unit -> unit.reservations().nexusLost(channel.nexus));
            }
            statistics.channelLeft(channel.session);
            try {
                channel.release();
            } catch (RuntimeException e) {
                LOG.warn("releasing {}", channel, e);
            }
        }
    }
}
