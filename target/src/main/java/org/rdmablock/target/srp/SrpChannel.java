package org.rdmablock.target.srp;

import org.rdmablock.protocol.scsi.LogicalUnitTable;
import org.rdmablock.target.config.InitiatorPortId;
import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.QueuePair;
import org.rdmablock.verbs.ReceiveWorkRequest;

import java.lang.foreign.Arena;

/**
 * One SRP channel: an RC connection logged in to the target, with its receive buffers (one registered region of
 * {@code receiveCount} IU-sized buffers), the negotiated limits and the credit count.
 *
 * <p>Threads: built by the login thread; from then on its receives are reposted and its counters kept by the intake
 * stage alone, its QP posted to by the intake stage (RDMA READs) and the backend threads (responses), which the
 * verbs API allows. It is torn down by the intake stage once nothing of it is outstanding.
 */
final class SrpChannel {
    /** Receives posted beyond the credits granted: an IU sent without a credit is answered BUSY, not left to RNR. */
    static final int SPARE_RECEIVES = 2;

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
    final int receiveCount;
    private final Arena arena;
    final MemoryRegion receiveRegion;
    private final ReceiveWorkRequest[] receives;

    /** Credits taken by IUs that got no response (aborted commands): returned with the next response (backend threads). */
    final java.util.concurrent.atomic.AtomicInteger pendingCredits = new java.util.concurrent.atomic.AtomicInteger();

    // intake stage only
    int outstandingCommands;
    /** Set once the target has sent (or is sending) SRP_T_LOGOUT: the channel ends when it has gone. */
    boolean loggingOut;
    int postedReceives;
    boolean closing;
    long lastActivityNanos;

    SrpChannel(final int id, final ConnectionId connection, final QueuePair queuePair, final InitiatorPortId initiator,
               final LogicalUnitTable units, final int credits, final int iuLength, final long maxTiIuLength,
               final int immediateDataOffset) {
        this.id = id;
        this.connection = connection;
        this.queuePair = queuePair;
        this.initiator = initiator;
        this.units = units;
        this.credits = credits;
        this.iuLength = iuLength;
        this.maxTargetToInitiatorIuLength = maxTiIuLength;
        this.immediateDataOffset = immediateDataOffset;
        this.receiveCount = credits + SPARE_RECEIVES;
        this.arena = Arena.ofShared();
        this.receiveRegion = queuePair.protectionDomain().registerMemory(
                arena.allocate((long) receiveCount * iuLength, 4096), org.rdmablock.verbs.AccessFlags.LOCAL_WRITE);
        this.receives = new ReceiveWorkRequest[receiveCount];
        for (int i = 0; i < receiveCount; i++) {
            receives[i] = new ReceiveWorkRequest(1).wrId(WorkRequestIds.of(WorkRequestIds.RECEIVE, id, i));
            receives[i].sgl().add(receiveRegion, (long) i * iuLength, iuLength);
        }
        this.lastActivityNanos = System.nanoTime();
    }

    /** Posts every receive buffer; called once, before the login is accepted. */
    void postAllReceives() {
        for (int i = 0; i < receiveCount; i++) {
            queuePair.postReceive(receives[i]);
        }
        postedReceives = receiveCount;
    }

    /** Reposts receive buffer {@code index} (intake stage). */
    void repostReceive(final int index) {
        if (closing) {
            return;
        }
        try {
            queuePair.postReceive(receives[index]);
            postedReceives++;
        } catch (RuntimeException e) {
            closing = true; // the QP went to ERR meanwhile: the channel is ending
        }
    }

    /** Byte offset of receive buffer {@code index} in {@link #receiveRegion}. */
    long receiveOffset(final int index) {
        return (long) index * iuLength;
    }

    /**
     * The request limit delta of the next response: the credit its request took, plus those of requests that got no
     * response (as ib_srpt's req_lim_delta).
     */
    int creditsToReturn() {
        return 1 + (pendingCredits.get() == 0 ? 0 : pendingCredits.getAndSet(0));
    }

    /** Whether everything posted on the channel has completed, so its QP and memory can go. */
    boolean drained() {
        return closing && outstandingCommands == 0 && postedReceives == 0;
    }

    /** Releases the connection, its QP and the receive region (intake stage, once {@link #drained()}). */
    void release() {
        try {
            connection.close();
        } finally {
            receiveRegion.close();
            arena.close();
        }
    }

    @Override
    public String toString() {
        return "channel " + id + " (initiator " + initiator + ", " + connection.remoteAddress() + ")";
    }
}
