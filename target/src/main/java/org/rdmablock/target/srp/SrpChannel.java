package org.rdmablock.target.srp;

import org.rdmablock.protocol.scsi.LogicalUnitTable;
import org.rdmablock.protocol.scsi.Nexus;
import org.rdmablock.target.config.InitiatorPortId;
import org.rdmablock.target.core.Channel;
import org.rdmablock.target.core.ReceiveBuffers;
import org.rdmablock.target.metrics.SessionStats;
import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.QueuePair;

/**
 * One SRP channel: a {@link Channel} with what its login negotiated (credits, IU lengths, immediate data) and SRP's
 * credit accounting. Its I_T nexus (the initiator port at this target port) keeps the unit attentions its channels
 * share.
 *
 * <p>Threads: as {@link Channel}; the credit counts on the intake stage and the threads that post responses.
 */
final class SrpChannel extends Channel {
    /** Receives posted beyond the credits granted: an IU sent without a credit is answered BUSY, not left to RNR. */
    static final int SPARE_RECEIVES = org.rdmablock.target.config.PipelineConfig.SPARE_RECEIVES_PER_CHANNEL;

    final int credits;
    final int iuLength;
    final long maxTargetToInitiatorIuLength;
    /** Negotiated immediate data offset, or 0 when immediate data is off. */
    final int immediateDataOffset;

    /** Credits taken by IUs that got no response (aborted commands): returned with the next response (backend threads). */
    final java.util.concurrent.atomic.AtomicInteger pendingCredits = new java.util.concurrent.atomic.AtomicInteger();
    /**
     * Requests (commands, task management) that hold a credit: counted up by the intake stage when one arrives, down
     * when its response is posted (a backend thread), which is when the initiator may reuse the credit: not when the
     * response's send completes, which a provider may report later than the initiator sees the response.
     */
    final java.util.concurrent.atomic.AtomicInteger creditsInUse = new java.util.concurrent.atomic.AtomicInteger();

    /** The login that made it and the multichannel result of its LOGIN_RSP (login threads only). */
    LoginNegotiation login;
    int multichannelResult;
    /** The SRP_T_LOGOUT reason of a logout asked for from outside the intake ({@link SrpFrontEnd#endByRequest}). */
    volatile int requestedLogoutReason;

    SrpChannel(final int id, final ConnectionId connection, final QueuePair queuePair, final InitiatorPortId initiator,
               final Nexus nexus, final LogicalUnitTable units, final int credits, final int iuLength, final long maxTiIuLength,
               final int immediateDataOffset, final int readDepth, final ReceiveBuffers shared, final SessionStats session) {
        super(id, connection, queuePair, initiator, nexus, units, readDepth, shared, credits + SPARE_RECEIVES, iuLength, session);
        this.credits = credits;
        this.iuLength = iuLength;
        this.maxTargetToInitiatorIuLength = maxTiIuLength;
        this.immediateDataOffset = immediateDataOffset;
    }

    /**
     * The request limit delta of the response about to be posted: the credit its request took, plus those of requests
     * that got no response (as ib_srpt's req_lim_delta). Gives the request's credit back.
     */
    int creditsToReturn() {
        creditsInUse.decrementAndGet();
        return 1 + (pendingCredits.get() == 0 ? 0 : pendingCredits.getAndSet(0));
    }
}
