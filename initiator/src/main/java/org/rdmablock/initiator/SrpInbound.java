package org.rdmablock.initiator;

import org.rdmablock.protocol.scsi.SenseData;
import org.rdmablock.protocol.srp.SrpDecodeError;
import org.rdmablock.protocol.srp.SrpIuDecoder;
import org.rdmablock.protocol.srp.SrpOpcode;
import org.rdmablock.protocol.srp.SrpResponse;

import java.lang.foreign.MemorySegment;

/**
 * Takes the IUs an SRP target sends, on the agent thread: SRP_RSP to its command ({@link ResponseMatcher}, with its
 * residual and sense) or to {@link TaskManagement}; SRP_CRED_REQ and SRP_AER_REQ bring credits and are answered;
 * SRP_T_LOGOUT, or an IU that does not decode, means the connection is lost. Each response returns the credits it
 * carries.
 */
final class SrpInbound implements InboundHandler {
    private final ChannelState state;
    private final ResponseMatcher matcher;
    private final Credits credits;
    private final ControlIus control;
    private final TaskManagement taskManagement;
    private final ReceiveBuffers receives;
    private final SrpIuDecoder decoder = new SrpIuDecoder();

    SrpInbound(final ChannelState state, final ResponseMatcher matcher, final Credits credits, final ControlIus control,
               final TaskManagement taskManagement, final ReceiveBuffers receives) {
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

    private static ScsiStatusException statusFailure(final IoRequest request, final SrpResponse response) {
        final int senseLength = (int) response.senseDataLength();
        final MemorySegment sense = response.segment();
        final long at = response.offset() + response.senseDataOffset();
        if (senseLength < 8) {
            return new ScsiStatusException(request.describe(), response.status(), -1, -1, -1);
        }
        return new ScsiStatusException(request.describe(), response.status(), SenseData.senseKey(sense, at, senseLength),
                SenseData.asc(sense, at, senseLength), SenseData.ascq(sense, at, senseLength));
    }
}
