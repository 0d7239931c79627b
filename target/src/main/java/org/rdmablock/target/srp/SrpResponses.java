package org.rdmablock.target.srp;

import org.rdmablock.protocol.scsi.ResidualKind;
import org.rdmablock.protocol.scsi.ScsiCommand;
import org.rdmablock.protocol.scsi.ScsiStatus;
import org.rdmablock.protocol.scsi.SenseCode;
import org.rdmablock.protocol.scsi.SenseData;
import org.rdmablock.protocol.scsi.SenseFormat;
import org.rdmablock.protocol.srp.SrpCreditRequest;
import org.rdmablock.protocol.srp.SrpResponse;
import org.rdmablock.protocol.srp.SrpTargetLogout;
import org.rdmablock.target.core.CommandSlot;
import org.rdmablock.target.core.ResponseEncoder;

import java.lang.foreign.MemorySegment;

/**
 * The SRP front end's IUs from the target, written into one command slot's response buffer through the
 * {@code protocol/srp} flyweights: SRP_RSP for a command (with the credits it returns) or a task management request,
 * SRP_T_LOGOUT and SRP_CRED_REQ. One per slot, so its flyweights need no synchronisation: used by whichever thread
 * runs the slot.
 */
final class SrpResponses implements ResponseEncoder {
    /** Fixed-format sense of a timed-out command, built once. */
    private static final MemorySegment TIMEOUT_SENSE = MemorySegment.ofArray(new byte[SenseData.FIXED_LENGTH]);

    static {
        SenseData.write(TIMEOUT_SENSE, 0, SenseFormat.FIXED, SenseCode.COMMAND_TIMEOUT_DURING_PROCESSING);
    }

    private final SrpResponse response = new SrpResponse();
    private final SrpTargetLogout logout = new SrpTargetLogout();
    private final SrpCreditRequest creditRequest = new SrpCreditRequest();

    /** One encoder per slot, each slot given its own. */
    static SrpResponses[] forSlots(final CommandSlot[] slots) {
        final SrpResponses[] responses = new SrpResponses[slots.length];
        for (int i = 0; i < slots.length; i++) {
            responses[i] = new SrpResponses();
        }
        return responses;
    }

    @Override
    public int commandResponse(final CommandSlot slot, final ScsiCommand done) {
        final SrpChannel ch = beginResponse(slot, done.status());
        if (done.dataInResidualKind() == ResidualKind.UNDERFLOW) {
            response.setDataInUnderflow(done.dataInResidual());
        } else if (done.dataInResidualKind() == ResidualKind.OVERFLOW) {
            response.setDataInOverflow(done.dataInResidual());
        }
        if (done.dataOutResidualKind() == ResidualKind.UNDERFLOW) {
            response.setDataOutUnderflow(done.dataOutResidual());
        } else if (done.dataOutResidualKind() == ResidualKind.OVERFLOW) {
            response.setDataOutOverflow(done.dataOutResidual());
        }
        if (done.senseLength() > 0) {
            response.setSenseData(done.senseData(), 0, done.senseLength(), ch.maxTargetToInitiatorIuLength);
        }
        return (int) response.length();
    }

    @Override
    public int timeoutResponse(final CommandSlot slot) {
        final SrpChannel ch = beginResponse(slot, ScsiStatus.CHECK_CONDITION);
        response.setSenseData(TIMEOUT_SENSE, 0, SenseData.FIXED_LENGTH, ch.maxTargetToInitiatorIuLength);
        return (int) response.length();
    }

    /** Starts the SRP_RSP of the slot's command with {@code status}; the credit its request took goes back with it. */
    private SrpChannel beginResponse(final CommandSlot slot, final int status) {
        final SrpChannel ch = (SrpChannel) slot.channel(); // the SRP target enters SRP channels only
        response.wrap(slot.responseSegment(), slot.responseOffset()).reset();
        response.setTag(slot.tag()).setRequestLimitDelta(ch.creditsToReturn()).setStatus(status);
        return ch;
    }

    /** Intake stage: answers a task management request with {@code responseCode} (SRP_RSP with RSPVALID). */
    void respondToTaskManagement(final CommandSlot slot, final SrpChannel owner, final long requestTag, final int responseCode) {
        slot.takeMessage(owner, requestTag);
        response.wrap(slot.responseSegment(), slot.responseOffset()).reset();
        response.setTag(requestTag).setRequestLimitDelta(owner.creditsToReturn()).setResponseCode(responseCode);
        slot.sendMessage((int) response.length());
    }

    /** Intake stage: tells the initiator the target ends the channel (SRP_T_LOGOUT with {@code reason}); disconnects once it has gone. */
    void sendTargetLogout(final CommandSlot slot, final SrpChannel owner, final int reason) {
        slot.takeMessage(owner, 0);
        slot.disconnectAfterSending();
        logout.wrap(slot.responseSegment(), slot.responseOffset()).reset();
        logout.setReason(reason);
        slot.sendMessage(SrpTargetLogout.LENGTH);
    }

    /** Intake stage: gives the initiator {@code delta} credits without a response to carry them (SRP_CRED_REQ). */
    void sendCreditRequest(final CommandSlot slot, final SrpChannel owner, final int delta) {
        slot.takeMessage(owner, 0);
        creditRequest.wrap(slot.responseSegment(), slot.responseOffset()).reset();
        creditRequest.setRequestLimitDelta(delta);
        slot.sendMessage(SrpCreditRequest.LENGTH);
    }
}
