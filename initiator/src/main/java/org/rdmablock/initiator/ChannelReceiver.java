package org.rdmablock.initiator;

import org.rdmablock.protocol.srp.SrpDecodeError;
import org.rdmablock.protocol.srp.SrpIuDecoder;
import org.rdmablock.protocol.srp.SrpOpcode;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.ReceiveWorkRequest;
import org.rdmablock.verbs.WorkCompletions;

import java.util.concurrent.locks.LockSupport;

/**
 * Takes the channel's completions and the IUs the target sends, on the agent thread.
 *
 * <p>A SEND's completion goes to the send queue's count; each IU is decoded and handed on (SRP_RSP to the
 * {@link ResponseMatcher}; SRP_CRED_REQ and SRP_AER_REQ bring credits and are answered; SRP_T_LOGOUT, an IU that does
 * not decode, or a failed completion mean the connection is lost) and its receive buffer posted again.
 */
final class ChannelReceiver {
    private final ChannelState state;
    private final SendQueue sendQueue;
    private final ResponseMatcher matcher;
    private final Credits credits;
    private final ControlIus control;
    private final MemoryRegion receiveRegion;
    private final int receiveLength;
    private final ReceiveWorkRequest[] receives;
    private final WorkCompletions completions = new WorkCompletions(32);
    private final SrpIuDecoder decoder = new SrpIuDecoder();

    ChannelReceiver(final ChannelState state, final SendQueue sendQueue, final ResponseMatcher matcher, final Credits credits,
                    final ControlIus control, final ChannelMemory memory) {
        this.state = state;
        this.sendQueue = sendQueue;
        this.matcher = matcher;
        this.credits = credits;
        this.control = control;
        this.receiveRegion = memory.receives();
        this.receiveLength = memory.receiveLength();
        this.receives = memory.receiveRequests();
    }

    /** Polls the completion queue once and handles what it held. Returns the completions taken. */
    int poll() {
        if (state.hasFailed()) {
            return 0; // the connection and its CQ are closed
        }
        final int n = state.completionQueue().poll(completions, completions.capacity());
        for (int i = 0; i < n; i++) {
            final long id = completions.wrId(i);
            if (!completions.isSuccess(i)) {
                state.lostUnlessAlready("completion failed: " + completions.toString(i));
                continue;
            }
            if (WorkRequestIds.kind(id) == WorkRequestIds.RECEIVE) {
                received(WorkRequestIds.receiveIndex(id), completions.byteLength(i));
            } else {
                sendQueue.completed(id);
            }
        }
        return n;
    }

    private void received(final int receive, final int length) {
        final SrpDecodeError error = decoder.decode(receiveRegion.segment(), (long) receive * receiveLength, length);
        if (error != SrpDecodeError.NONE) {
            state.lost("the target sent an IU that does not decode (" + error + ", " + length + " bytes)");
            return;
        }
        switch (decoder.opcode()) {
            case SrpOpcode.RSP -> matcher.responded(decoder.response());
            case SrpOpcode.CRED_REQ -> {
                credits.grant(decoder.creditRequest().requestLimitDelta());
                final long tag = decoder.creditRequest().tag();
                repost(receive); // before the answer: the target may send again once it has it
                control.answerCreditRequest(tag);
                return;
            }
            case SrpOpcode.AER_REQ -> {
                credits.grant(decoder.aerRequest().requestLimitDelta());
                final long tag = decoder.aerRequest().tag();
                repost(receive);
                control.answerAerRequest(tag);
                return;
            }
            case SrpOpcode.T_LOGOUT -> state.lost("the target logged the channel out (SRP_T_LOGOUT reason "
                    + decoder.targetLogout().reason() + ")");
            default -> state.lost("the target sent an IU an initiator does not take (opcode " + decoder.opcode() + ")");
        }
        repost(receive);
    }

    private void repost(final int receive) {
        if (!state.hasFailed()) {
            try {
                state.queuePair().postReceive(receives[receive]);
            } catch (RuntimeException e) {
                state.lost("repost failed: " + e.getMessage());
            }
        }
    }

    /**
     * After the agent stopped (closing thread): polls until a control SEND completes (the logout went) or the deadline
     * passes.
     */
    void awaitControlSent(final long deadline) {
        while (System.nanoTime() < deadline) {
            final int n = state.completionQueue().poll(completions, completions.capacity());
            for (int i = 0; i < n; i++) {
                if (WorkRequestIds.kind(completions.wrId(i)) == WorkRequestIds.CONTROL) {
                    return;
                }
            }
            if (n == 0) {
                LockSupport.parkNanos(100_000);
            }
        }
    }
}
