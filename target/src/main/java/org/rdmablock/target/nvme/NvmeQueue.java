package org.rdmablock.target.nvme;

import org.rdmablock.protocol.nvme.NvmeSubmission;
import org.rdmablock.protocol.scsi.LogicalUnitTable;
import org.rdmablock.target.config.InitiatorPortId;
import org.rdmablock.target.core.Channel;
import org.rdmablock.target.metrics.SessionStats;
import org.rdmablock.verbs.ConnectionId;
import org.rdmablock.verbs.QueuePair;

/**
 * One NVMe queue pair over RDMA: a {@link Channel} whose RC connection carries one submission and completion queue
 * (NVMe RDMA Transport 1.0, 3.1): queue 0 is a controller's admin queue, the others its I/O queues. What the rdma_cm
 * private data asked for is fixed at connect; the controller it belongs to is known once its Fabrics Connect has come.
 *
 * <p>Threads: made by a connect thread; from then on the intake stage's, but for {@link #sqHead}, which the threads
 * that write completions read.
 */
final class NvmeQueue extends Channel {
    /** The queue id the host's rdma_cm private data gave (0: the admin queue). */
    final int queueId;
    /** Submission queue entries: the receives posted for it (the private data's HSQSIZE plus one). */
    final int entries;
    /** In-capsule data this queue takes after each entry (0 on the admin queue). */
    final int inCapsuleBytes;
    /** The target's address this queue's host reached (what a discovery log entry names), or null when unknown. */
    final String localAddress;
    /** The controller, once the queue's Connect succeeded (intake stage). */
    NvmeController controller;
    /** The submission queue head the completions report: one past the last entry taken. */
    int sqHead; // read racily by the threads that write completions: a head a little behind is still one the host took

    NvmeQueue(final int id, final ConnectionId connection, final QueuePair queuePair, final InitiatorPortId initiator,
              final LogicalUnitTable units, final int queueId, final int entries, final int inCapsuleBytes,
              final int readDepth, final SessionStats session, final String localAddress) {
        super(id, connection, queuePair, initiator, null, units, readDepth, null, entries,
                NvmeSubmission.LENGTH + inCapsuleBytes, session);
        this.queueId = queueId;
        this.entries = entries;
        this.inCapsuleBytes = inCapsuleBytes;
        this.localAddress = localAddress;
    }

    /** The intake stage took an entry: the head moves on, wrapping at the queue's size. */
    void entryTaken() {
        sqHead = sqHead + 1 == entries ? 0 : sqHead + 1;
    }

    /** A capsule counted by {@link #entryTaken} waits instead (offered again later): the head goes back. */
    void entryReturned() {
        sqHead = sqHead == 0 ? entries - 1 : sqHead - 1;
    }

    boolean isAdmin() {
        return queueId == 0;
    }

    @Override
    public String toString() {
        return (isAdmin() ? "admin queue" : "I/O queue " + queueId) + " (channel " + id()
                + (controller == null ? ", not connected" : ", controller " + controller.id + " of " + controller.hostNqn) + ")";
    }
}
