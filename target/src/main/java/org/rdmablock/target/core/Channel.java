package org.rdmablock.target.core;

import org.rdmablock.protocol.scsi.LogicalUnitTable;
import org.rdmablock.protocol.scsi.Nexus;
import org.rdmablock.target.config.InitiatorPortId;
import org.rdmablock.target.metrics.SessionStats;
import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.QueuePair;

/**
 * One channel as the core sees it, whatever the protocol: an RC connection logged in to the target, with its receive
 * buffers (one registered region of IU-sized buffers, or the target's shared ones), the RDMA READ depth it accepted
 * with, the logical units its initiator sees, and the intake stage's counts. A front end's channel extends it with
 * what its protocol negotiates ({@code SrpChannel}).
 *
 * <p>Threads: built by a login thread; from then on its receives are reposted and its counters kept by the intake
 * stage alone, its QP posted to by the intake stage (RDMA READs) and the backend threads (responses), which the
 * verbs API allows; with {@code backend_threads = 0} by the poller thread alone, one chain per duty cycle
 * ({@link SendBatch}). It is torn down by the intake stage once nothing of it is outstanding.
 */
public class Channel {
    final int id;
    final ConnectionId connection;
    final QueuePair queuePair;
    final InitiatorPortId initiator;
    final LogicalUnitTable units;
    /** RDMA READs the target may have outstanding on this channel (the ORD it accepted with). */
    final int readDepth;
    /**
     * The I_T nexus its commands arrive on (its initiator port at this target port): what reservations register and
     * unit attentions wait in. Null for a protocol whose hosts the SCSI layer cannot name (NVMe's), which reservations
     * treat as unregistered.
     */
    final Nexus nexus;
    /** This channel's own receive buffers, or the target's shared ones (SRQ). */
    final ReceiveBuffers receives;
    /**
     * The statistics of the channel's session (its initiator's channels), written by the intake stage; a protocol that
     * names its initiator only after the connection (NVMe's Connect) moves the channel to its session then.
     */
    SessionStats session;

    /** Its front end's response encoders, by slot index: what a slot of this channel's commands answers with. */
    private ResponseEncoder[] encoders;

    /** Set once the login thread's accept has returned; a disconnect asked for before then waits for it. */
    private volatile boolean accepted;
    /** Set when the target ends the channel; {@link #disconnectIssued} makes the disconnect go once. */
    private volatile boolean disconnectRequested;
    private final java.util.concurrent.atomic.AtomicBoolean disconnectIssued = new java.util.concurrent.atomic.AtomicBoolean();

    // intake stage only
    int outstandingCommands;
    /** Set once the front end has sent (or is sending) its protocol's logout: the channel ends when it has gone. */
    boolean loggingOut;
    int postedReceives;
    boolean closing;
    long lastActivityNanos;

    // poller thread only (SendBatch): the chain of this cycle's deferred posts and the next channel that has one
    CommandSlot batchFirstSlot;
    CommandSlot batchLastSlot;
    org.rdmablock.verbs.SendWorkRequest batchTail;
    Channel batchNextChannel;

    /**
     * @param receiveCount  receive buffers of the channel's own set (unused with {@code shared})
     * @param receiveLength bytes of each of them
     * @param shared        the target's shared receive buffers, or null for a set of the channel's own
     */
    protected Channel(final int id, final ConnectionId connection, final QueuePair queuePair, final InitiatorPortId initiator,
            final Nexus nexus, final LogicalUnitTable units, final int readDepth, final ReceiveBuffers shared,
            final int receiveCount, final int receiveLength, final SessionStats session) {
        this.id = id;
        this.nexus = nexus;
        this.connection = connection;
        this.queuePair = queuePair;
        this.initiator = initiator;
        this.units = units;
        this.readDepth = Math.max(1, readDepth);
        this.session = java.util.Objects.requireNonNull(session);
        this.receives = shared != null ? shared : ReceiveBuffers.forChannel(id, queuePair, receiveCount, receiveLength);
        this.lastActivityNanos = System.nanoTime();
    }

    public int id() {
        return id;
    }

    /**
     * The response encoders of the front end that serves this channel, one per slot (its flyweights are the slot's):
     * set by the login thread before the channel is entered in the table.
     */
    public void respondsWith(final ResponseEncoder[] perSlot) {
        encoders = perSlot;
    }

    /** The encoder of slot {@code index}'s responses on this channel. */
    ResponseEncoder encoder(final int index) {
        return encoders[index];
    }

    public InitiatorPortId initiator() {
        return initiator;
    }

    /** The I_T nexus of the channel's commands, or null (see the field). */
    public Nexus nexus() {
        return nexus;
    }

    public LogicalUnitTable units() {
        return units;
    }

    public int readDepth() {
        return readDepth;
    }

    public SessionStats session() {
        return session;
    }

    /**
     * Intake stage, before the channel's first tracked command: the channel counts in {@code joined} from now on;
     * returns the session it counted in, which the caller leaves.
     */
    public SessionStats moveToSession(final SessionStats joined) {
        final SessionStats left = session;
        session = java.util.Objects.requireNonNull(joined);
        return left;
    }

    /** Where receive buffer {@code index} lies in {@link #receiveSegment()}. */
    public long receiveOffset(final int index) {
        return receives.offset(index);
    }

    /** Requests of the channel that hold a slot (intake stage). */
    public int outstandingCommands() {
        return outstandingCommands;
    }

    /** A request of the channel took a slot; its slot's freeing counts it down (intake stage). */
    public void addOutstanding() {
        outstandingCommands++;
    }

    /** Whether the channel is ending: no more receives are posted on it (intake stage). */
    public boolean closing() {
        return closing;
    }

    /** The initiator ended the channel (its protocol's logout): it drains and goes (intake stage). */
    public void endByInitiator() {
        endWithoutLogout();
    }

    /**
     * The target ends the channel without a logout message (a protocol that has none, NVMe's): it drains and goes
     * (intake stage).
     */
    public void endWithoutLogout() {
        closing = true;
        disconnect();
    }

    /** Whether the front end has sent (or is sending) its protocol's logout (intake stage). */
    public boolean loggingOut() {
        return loggingOut;
    }

    public void loggingOut(final boolean sent) {
        loggingOut = sent;
    }

    /** When the intake stage last took a request of the channel. */
    public long lastActivityNanos() {
        return lastActivityNanos;
    }

    /** Posts every receive buffer of a channel's own set; called once, before the login is accepted. */
    public void postAllReceives() {
        if (!receives.isShared()) {
            receives.postAll();
            postedReceives = receives.count;
        }
    }

    /** Reposts receive buffer {@code index} (intake stage); a shared buffer goes back to the SRQ even when closing. */
    public void repostReceive(final int index) {
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
     * Ends the connection (any thread). The initiator may send its first IUs, an SRP_I_LOGOUT even, as soon as it
     * has the LOGIN_RSP, before the target's accept call has returned; a disconnect then finds the connection not yet
     * established and is lost (seen on rxe). So before the accept has returned this only asks, and
     * {@link #acceptReturned} disconnects.
     */
    public void disconnect() {
        disconnectRequested = true;
        if (accepted && disconnectIssued.compareAndSet(false, true)) {
            connection.disconnect();
        }
    }

    /** Whether its login's accept has returned: its QP sends from then on (before, it may not be ready to). */
    public boolean accepted() {
        return accepted;
    }

    /** Login thread, once its accept has returned: the channel may be disconnected now, and is if that was asked. */
    public void acceptReturned() {
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
    public java.lang.foreign.MemorySegment receiveSegment() {
        return receives.region.segment();
    }

    /** Releases the connection, its QP and the receive region (intake stage, once {@link #drained()}). */
    public void release() {
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
