package org.rdmablock.target.srp;

import org.rdmablock.protocol.scsi.LogicalUnitTable;
import org.rdmablock.target.config.InitiatorPortId;
import org.rdmablock.target.metrics.SessionStats;
import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.QueuePair;


/**
 * One SRP channel: an RC connection logged in to the target, with its receive buffers (one registered region of
 * {@code receiveCount} IU-sized buffers), the negotiated limits and the credit count.
 *
 * <p>Threads: built by the login thread; from then on its receives are reposted and its counters kept by the intake
 * stage alone, its QP posted to by the intake stage (RDMA READs) and the backend threads (responses), which the
 * verbs API allows; with {@code backend_threads = 0} by the poller thread alone, one chain per duty cycle
 * ({@link SendBatch}). It is torn down by the intake stage once nothing of it is outstanding.
 */
final class SrpChannel {
    /** Receives posted beyond the credits granted: an IU sent without a credit is answered BUSY, not left to RNR. */
    static final int SPARE_RECEIVES = org.rdmablock.target.config.PipelineConfig.SPARE_RECEIVES_PER_CHANNEL;

    final int id;
    final ConnectionId connection;
    final QueuePair queuePair;
    final InitiatorPortId initiator;
    final LogicalUnitTable units;
    final int credits;
    final int iuLength;
    final long maxTargetToInitiatorIuLength;
    /** Negotiated immediate data offset, or 0 when immediate data is off. */
    final int immediateDataOffset;
    /** RDMA READs the target may have outstanding on this channel (the ORD it accepted with). */
    final int readDepth;
    /** This channel's own receive buffers, or the target's shared ones (SRQ). */
    final ReceiveBuffers receives;
    /** The statistics of the channel's session (its initiator's channels), written by the intake stage. */
    final SessionStats session;

    /** Credits taken by IUs that got no response (aborted commands): returned with the next response (backend threads). */
    final java.util.concurrent.atomic.AtomicInteger pendingCredits = new java.util.concurrent.atomic.AtomicInteger();
    /**
     * Requests (commands, task management) that hold a credit: counted up by the intake stage when one arrives, down
     * when its response is posted (a backend thread), which is when the initiator may reuse the credit: not when the
     * response's send completes, which a provider may report later than the initiator sees the response.
     */
    final java.util.concurrent.atomic.AtomicInteger creditsInUse = new java.util.concurrent.atomic.AtomicInteger();

    /**
     * A reload changed this initiator's LUN inventory: the next command on any channel of the I_T nexus gets the unit
     * attention, and reporting it clears it for all of them (SAM-5 6.6). Shared by the nexus's channels; set by the
     * login thread before the channel is published.
     */
    java.util.concurrent.atomic.AtomicBoolean nexusLunsChanged = new java.util.concurrent.atomic.AtomicBoolean();

    /** Set once the login thread's accept has returned; a disconnect asked for before then waits for it. */
    private volatile boolean accepted;
    /** Set when the target ends the channel; {@link #disconnectIssued} makes the disconnect go once. */
    private volatile boolean disconnectRequested;
    private final java.util.concurrent.atomic.AtomicBoolean disconnectIssued = new java.util.concurrent.atomic.AtomicBoolean();

    /** The login that made it and the multichannel result of its LOGIN_RSP (login threads only). */
    LoginNegotiation login;
    int multichannelResult;

    // intake stage only
    int outstandingCommands;
    /** Set once the target has sent (or is sending) SRP_T_LOGOUT: the channel ends when it has gone. */
    boolean loggingOut;
    int postedReceives;
    boolean closing;
    long lastActivityNanos;

    // poller thread only (SendBatch): the chain of this cycle's deferred posts and the next channel that has one
    CommandSlot batchFirstSlot;
    CommandSlot batchLastSlot;
    org.rdmablock.verbs.SendWorkRequest batchTail;
    SrpChannel batchNextChannel;

    SrpChannel(final int id, final ConnectionId connection, final QueuePair queuePair, final InitiatorPortId initiator,
               final LogicalUnitTable units, final int credits, final int iuLength, final long maxTiIuLength,
               final int immediateDataOffset, final int readDepth, final ReceiveBuffers shared, final SessionStats session) {
        this.id = id;
        this.connection = connection;
        this.queuePair = queuePair;
        this.initiator = initiator;
        this.units = units;
        this.credits = credits;
        this.iuLength = iuLength;
        this.maxTargetToInitiatorIuLength = maxTiIuLength;
        this.immediateDataOffset = immediateDataOffset;
        this.readDepth = Math.max(1, readDepth);
        this.session = java.util.Objects.requireNonNull(session);
        this.receives = shared != null ? shared : ReceiveBuffers.forChannel(id, queuePair, credits + SPARE_RECEIVES, iuLength);
        this.lastActivityNanos = System.nanoTime();
    }

    /** Posts every receive buffer of a channel's own set; called once, before the login is accepted. */
    void postAllReceives() {
        if (!receives.isShared()) {
            receives.postAll();
            postedReceives = receives.count;
        }
    }

    /** Reposts receive buffer {@code index} (intake stage); a shared buffer goes back to the SRQ even when closing. */
    void repostReceive(final int index) {
        if (receives.isShared()) {
            ReceiveBuffers.repostShared(receives, index);
            return;
        }
        if (closing) {
            return;
        }
        try {
            receives.post(index);
            postedReceives++;
        } catch (RuntimeException e) {
            closing = true; // the QP went to ERR meanwhile: the channel is ending
        }
    }

    /**
     * The request limit delta of the response about to be posted: the credit its request took, plus those of requests
     * that got no response (as ib_srpt's req_lim_delta). Gives the request's credit back.
     */
    int creditsToReturn() {
        creditsInUse.decrementAndGet();
        return 1 + (pendingCredits.get() == 0 ? 0 : pendingCredits.getAndSet(0));
    }

    /**
     * Ends the connection (any thread). The initiator may send its first IUs, an SRP_I_LOGOUT even, as soon as it
     * has the LOGIN_RSP, before the target's accept call has returned; a disconnect then finds the connection not yet
     * established and is lost (seen on rxe). So before the accept has returned this only asks, and
     * {@link #acceptReturned} disconnects.
     */
    void disconnect() {
        disconnectRequested = true;
        if (accepted && disconnectIssued.compareAndSet(false, true)) {
            connection.disconnect();
        }
    }

    /** Login thread, once its accept has returned: the channel may be disconnected now, and is if that was asked. */
    void acceptReturned() {
        accepted = true;
        if (disconnectRequested && disconnectIssued.compareAndSet(false, true)) {
            connection.disconnect();
        }
    }

    /** Whether everything posted on the channel has completed, so its QP and memory can go. */
    boolean drained() {
        return closing && outstandingCommands == 0 && postedReceives == 0;
    }

    /** The region the channel's IUs arrive in. */
    java.lang.foreign.MemorySegment receiveSegment() {
        return receives.region.segment();
    }

    /** Releases the connection, its QP and the receive region (intake stage, once {@link #drained()}). */
    void release() {
        try {
            connection.close();
        } finally {
            if (!receives.isShared()) {
                receives.close();
            }
        }
    }

    @Override
    public String toString() {
        return "channel " + id + " (initiator " + initiator + (connection == null ? "" : ", " + connection.remoteAddress()) + ")";
    }
}
