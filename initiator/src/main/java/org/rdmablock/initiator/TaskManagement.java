package org.rdmablock.initiator;

import org.rdmablock.protocol.srp.SrpResponse;
import org.rdmablock.protocol.srp.SrpTaskManagement;

import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Times commands out and escalates, on the agent thread: ABORT TASK for a command past the command timeout; then, when
 * task management gets no answer within its timeout or is refused, LUN RESET after an ABORT TASK, and after a LUN
 * RESET the connection is given up (and logged in again).
 *
 * <p>One task management request at a time, on the credit held back for it. What was aborted goes to the retry queue,
 * its slot quarantined until a late answer for its tag comes.
 *
 * <p>A protocol without task management on its channels (NVMe over Fabrics: Abort goes on the admin queue, and
 * Linux's nvme-rdma recovers by reconnecting) gives up the connection at the first command past the timeout: the
 * reconnect sends what was in flight again.
 */
final class TaskManagement {
    private static final Logger LOG = LoggerFactory.getLogger(TaskManagement.class);
    /** How often the agent looks for commands past the command timeout. */
    static final long TIMEOUT_CHECK_NANOS = 50_000_000;
    /** Task management requests carry this bit in their tag, so that their responses are told from commands'. */
    static final long TM_TAG = 1L << 62;
    private static final int NONE = -1;

    private final int index;
    private final CommandTable table;
    private final Credits credits;
    private final ControlIus control;
    private final RetryQueue retryQueue;
    private final ChannelState state;
    private final FaultPolicy faults;
    /** Whether the channel's protocol has ABORT TASK and LUN RESET (SRP); else a timed-out command loses the connection. */
    private final boolean abortsCommands;
    private long nextTimeoutCheck;
    /** The task management request in flight: its function ({@link #NONE}: none), LUN and the command it is about. */
    private int function = NONE;
    private long lun;
    private OutstandingCommand about;
    private long sentNanos;
    /** Statistics, read by any thread. */
    private volatile long aborts;
    private volatile long lunResets;

    TaskManagement(final ChannelState state, final CommandTable table, final Credits credits, final ControlIus control,
                   final RetryQueue retryQueue, final FaultPolicy faults, final boolean abortsCommands) {
        this.index = state.index();
        this.state = state;
        this.table = table;
        this.credits = credits;
        this.control = control;
        this.retryQueue = retryQueue;
        this.faults = faults;
        this.abortsCommands = abortsCommands;
    }

    /** ABORT TASKs sent. */
    long aborts() {
        return aborts;
    }

    /** LUN RESETs sent. */
    long lunResets() {
        return lunResets;
    }

    /** Whether {@code tag} is a task management request's (its response is for {@link #answered}). */
    static boolean isTaskManagementTag(final long tag) {
        return (tag & TM_TAG) != 0;
    }

    /** Looks for commands past the timeout, once per {@link #TIMEOUT_CHECK_NANOS}. Returns the work done. */
    int checkTimeouts(final long now) {
        if (now - nextTimeoutCheck < 0) {
            return 0;
        }
        nextTimeoutCheck = now + TIMEOUT_CHECK_NANOS;
        if (function != NONE) {
            if (now - sentNanos > faults.taskManagementTimeoutNanos()) {
                if (function == SrpTaskManagement.ABORT_TASK) {
                    LOG.warn("channel " + index + ": ABORT TASK got no answer; LUN RESET");
                    send(SrpTaskManagement.LUN_RESET, lun, null, now);
                } else {
                    state.lost("LUN RESET got no answer within " + Duration.ofNanos(faults.taskManagementTimeoutNanos()));
                }
                return 1;
            }
            return 0;
        }
        for (int slot = 0; slot < table.size(); slot++) {
            final OutstandingCommand c = table.get(slot);
            if (c.inUse() && !c.aborting && now - c.startNanos > faults.commandTimeoutNanos()) {
                if (!abortsCommands) {
                    state.lost(c.parts[0].describe() + " got no answer within "
                            + Duration.ofNanos(faults.commandTimeoutNanos()));
                    return 1;
                }
                LOG.warn("channel " + index + ": " + c.parts[0].describe() + " got no answer within "
                        + Duration.ofNanos(faults.commandTimeoutNanos()) + "; ABORT TASK");
                send(SrpTaskManagement.ABORT_TASK, c.parts[0].lunField, c, now);
                return 1;
            }
        }
        return 0;
    }

    /** The connection is gone, and what task management was about with it. */
    void forget() {
        function = NONE;
        about = null;
    }

    /** Sends SRP_TSK_MGMT {@code what} for {@code lunField} about {@code command} (null: none); it takes a credit. */
    private void send(final int what, final long lunField, final OutstandingCommand command, final long now) {
        function = what;
        lun = lunField;
        about = command;
        sentNanos = now;
        if (command != null) {
            command.aborting = true;
            aborts++;
        } else {
            lunResets++;
        }
        credits.take();
        control.sendTaskManagement(TM_TAG | (command != null ? command.tag : 0), lunField, what,
                command != null ? command.tag : 0);
    }

    /** The answer to our task management request. */
    void answered(final SrpResponse response) {
        final int what = function;
        final OutstandingCommand command = about;
        function = NONE;
        about = null;
        final boolean complete = (response.flags() & SrpResponse.FLAG_RSPVALID) == 0
                || response.responseCode() == SrpTaskManagement.RSP_COMPLETE;
        if (what == SrpTaskManagement.ABORT_TASK) {
            if (command == null || !command.inUse() || command.tag != (response.tag() & ~TM_TAG)) {
                return; // the command was answered meanwhile
            }
            if (complete) {
                quarantine(command);
            } else {
                LOG.warn("channel " + index + ": ABORT TASK answered " + response.responseCode() + "; LUN RESET");
                send(SrpTaskManagement.LUN_RESET, lun, null, System.nanoTime());
            }
        } else if (what == SrpTaskManagement.LUN_RESET) {
            if (!complete) {
                state.lost("LUN RESET answered " + response.responseCode());
                return;
            }
            for (int slot = 0; slot < table.size(); slot++) {
                final OutstandingCommand c = table.get(slot);
                if (c.inUse() && c.parts[0].lunField == lun) {
                    quarantine(c);
                }
            }
        }
    }

    /**
     * An aborted command's parts go to the retry queue; its slot stays out of use until a late response for its tag
     * comes or the channel logs in again, since the target may still move data into its bounce buffer.
     */
    private void quarantine(final OutstandingCommand c) {
        retryQueue.addParts(c);
        table.quarantine(c);
    }
}
