package org.rdmablock.initiator;

import org.rdmablock.protocol.scsi.ScsiStatus;
import org.rdmablock.protocol.scsi.SenseCode;
import org.rdmablock.protocol.scsi.SenseData;
import org.rdmablock.protocol.scsi.SenseKey;
import org.rdmablock.protocol.srp.SrpDecodeError;
import org.rdmablock.protocol.srp.SrpIuDecoder;
import org.rdmablock.protocol.srp.SrpOpcode;
import org.rdmablock.protocol.srp.SrpResponse;

import java.lang.foreign.MemorySegment;

/**
 * Takes the IUs an SRP target sends, on the agent thread: SRP_RSP to its command ({@link ResponseMatcher}, with its
 * residual and sense) or to {@link TaskManagement}; SRP_CRED_REQ and SRP_AER_REQ bring credits and are answered;
 * SRP_T_LOGOUT, or an IU that does not decode, means the connection is lost. Each response returns the credits it
 * carries. A unit attention sends its command again (as Linux's midlayer does); NOT READY for a port in a standby or
 * unavailable target port group moves the session to its next path (when it has one) and sends the command there.
 */
final class SrpInbound implements InboundHandler {
    /** LOGICAL UNIT NOT ACCESSIBLE, TARGET PORT IN STANDBY / UNAVAILABLE STATE (SPC-4 5.16.2.4). */
    private static final SenseCode STANDBY = SenseCode.LOGICAL_UNIT_NOT_ACCESSIBLE_TARGET_PORT_IN_STANDBY_STATE;
    private static final SenseCode UNAVAILABLE = SenseCode.LOGICAL_UNIT_NOT_ACCESSIBLE_TARGET_PORT_IN_UNAVAILABLE_STATE;
    private final ChannelState state;
    private final ResponseMatcher matcher;
    private final Credits credits;
    private final ControlIus control;
    private final TaskManagement taskManagement;
    private final ReceiveBuffers receives;
    private final Reconnector paths;
    private final SrpIuDecoder decoder = new SrpIuDecoder();

    SrpInbound(final ChannelState state, final ResponseMatcher matcher, final Credits credits, final ControlIus control,
               final TaskManagement taskManagement, final ReceiveBuffers receives, final Reconnector paths) {
        this.paths = paths;
        this.state = state;
        this.matcher = matcher;
        this.credits = credits;
        this.control = control;
        this.taskManagement = taskManagement;
        this.receives = receives;
    }

    @Override
    public void received(final int receive, final MemorySegment buffers, final long offset, final int length) {
        final SrpDecodeError error = decoder.decode(buffers, offset, length);
        if (error != SrpDecodeError.NONE) {
            state.lost("the target sent an IU that does not decode (" + error + ", " + length + " bytes)");
            return;
        }
        switch (decoder.opcode()) {
            case SrpOpcode.RSP -> responded(decoder.response());
            case SrpOpcode.CRED_REQ -> {
                credits.grant(decoder.creditRequest().requestLimitDelta());
                final long tag = decoder.creditRequest().tag();
                receives.repost(receive); // before the answer: the target may send again once it has it
                control.answerCreditRequest(tag);
                return;
            }
            case SrpOpcode.AER_REQ -> {
                credits.grant(decoder.aerRequest().requestLimitDelta());
                final long tag = decoder.aerRequest().tag();
                receives.repost(receive);
                control.answerAerRequest(tag);
                return;
            }
            case SrpOpcode.T_LOGOUT -> state.lost("the target logged the channel out (SRP_T_LOGOUT reason "
                    + decoder.targetLogout().reason() + ")");
            default -> state.lost("the target sent an IU an initiator does not take (opcode " + decoder.opcode() + ")");
        }
        receives.repost(receive);
    }

    /** An SRP_RSP: its command is answered; each request it carried completes when its last command is. */
    private void responded(final SrpResponse response) {
        credits.grant(response.requestLimitDelta());
        final long tag = response.tag();
        if (TaskManagement.isTaskManagementTag(tag)) {
            taskManagement.answered(response);
            return;
        }
        final OutstandingCommand c = matcher.inFlight(tag);
        if (c == null) {
            return;
        }
        if (response.status() == 0) {
            matcher.answered(c, bytesMoved(c, response));
        } else if (portNotAccessible(response) && paths.leavePath("the target port is in a standby or unavailable group"
                + " (NOT READY, ASC/ASCQ 04h/" + String.format("%02Xh", ascq(response)) + ")")) {
            // the command stays in flight: the channel logs in again through the next path and sends it there
            state.lost("its path's target port is not accessible (ALUA standby or unavailable)");
        } else if (unitAttention(response)) {
            matcher.again(c); // reported once and cleared (a state change, a resize, ...): sent again, as sd does
        } else {
            matcher.failed(c, request -> statusFailure(request, response));
        }
    }

    /** Bytes the command moved: its length less the residual the target reports for an underflow. */
    private static long bytesMoved(final OutstandingCommand c, final SrpResponse response) {
        long moved = c.length;
        final int flags = response.flags();
        if (c.dataIn && (flags & SrpResponse.FLAG_DIUNDER) != 0) {
            moved -= response.dataInResidualCount();
        } else if (!c.dataIn && (flags & SrpResponse.FLAG_DOUNDER) != 0) {
            moved -= response.dataOutResidualCount();
        }
        return moved;
    }

    /** LOGICAL UNIT NOT ACCESSIBLE, TARGET PORT IN STANDBY (04h/0Bh) or UNAVAILABLE (04h/0Ch) STATE: another path may serve. */
    private static boolean portNotAccessible(final SrpResponse response) {
        final int ascq = ascq(response);
        return response.status() == ScsiStatus.CHECK_CONDITION && senseKey(response) == SenseKey.NOT_READY
                && asc(response) == STANDBY.asc() && (ascq == STANDBY.ascq() || ascq == UNAVAILABLE.ascq());
    }

    private static boolean unitAttention(final SrpResponse response) {
        return response.status() == ScsiStatus.CHECK_CONDITION && senseKey(response) == SenseKey.UNIT_ATTENTION;
    }

    private static ScsiStatusException statusFailure(final IoRequest request, final SrpResponse response) {
        return new ScsiStatusException(request.describe(), response.status(), senseKey(response), asc(response), ascq(response));
    }

    /** The response's sense key, ASC and ASCQ; -1 without sense (fewer than 8 bytes of it). */
    private static int senseKey(final SrpResponse response) {
        final int length = (int) response.senseDataLength();
        return length < 8 ? -1 : SenseData.senseKey(response.segment(), response.offset() + response.senseDataOffset(), length);
    }

    private static int asc(final SrpResponse response) {
        final int length = (int) response.senseDataLength();
        return length < 8 ? -1 : SenseData.asc(response.segment(), response.offset() + response.senseDataOffset(), length);
    }

    private static int ascq(final SrpResponse response) {
        final int length = (int) response.senseDataLength();
        return length < 8 ? -1 : SenseData.ascq(response.segment(), response.offset() + response.senseDataOffset(), length);
    }
}
