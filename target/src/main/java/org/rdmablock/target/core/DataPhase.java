package org.rdmablock.target.core;

import org.rdmablock.protocol.scsi.SenseCode;

/**
 * The data phase of an admitted command, the same for every front end: fetch the descriptor list if it lies outside
 * the request, fetch the data-out by RDMA READ in rounds, then hand the command to its backend on the event that made
 * it ready. Stateless; called on the intake stage's thread.
 */
public final class DataPhase {
    private DataPhase() {
    }

    /** Starts the data phase of a command whose request the front end has taken in. */
    public static void start(final CommandSlot slot, final PipelineEvent event) {
        if (slot.fetchesTable) {
            slot.postTableRead();
            return;
        }
        descriptorsKnown(slot, event);
    }

    /**
     * The command's descriptors are in the slot, or a round of its data-out READs completed: fetch the (next round
     * of) data-out, or hand it to the backend once all is in.
     */
    static void descriptorsKnown(final CommandSlot slot, final PipelineEvent event) {
        if (slot.readsDataOut && slot.moreDataOut()) {
            slot.postDataOutReads();
            return;
        }
        execute(slot, event);
    }

    /** Hands a command whose data-out is all in (or that has none) to its backend on {@code event}. */
    public static void execute(final CommandSlot slot, final PipelineEvent event) {
        if (!WriteGates.mayExecute(slot)) {
            return; // parked behind an overlapping COMPARE AND WRITE (or, for one, an earlier write): released later
        }
        if (event != null && event.ready == null) {
            slot.handToBackend(System.nanoTime());
            event.ready = slot;
        } else {
            // Only one slot rides on an event; others (woken waiters) go through the same path on the next tick.
            slot.command.failWithoutExecuting(SenseCode.INTERNAL_TARGET_FAILURE);
        }
    }
}
