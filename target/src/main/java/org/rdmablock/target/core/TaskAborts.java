package org.rdmablock.target.core;

import org.rdmablock.protocol.scsi.LogicalUnit;
import org.rdmablock.protocol.scsi.LunAddress;
import org.rdmablock.protocol.scsi.Nexus;
import org.rdmablock.protocol.scsi.PersistentReservations;
import org.rdmablock.protocol.scsi.ScsiCommand;
import org.rdmablock.protocol.scsi.TaskSetControl;

import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The pipeline's side of PREEMPT AND ABORT: the engine, on the thread that executes the PERSISTENT RESERVE OUT, queues
 * a {@link Request} here; the intake stage takes it on its next tick, aborts every command the preempted nexuses hold
 * a slot for on that unit (waiting for data, parked, in the ring or executing: as task management does, those not yet
 * started are dropped unanswered and those executing finish), and answers the PERSISTENT RESERVE OUT once the last of
 * them has given its slot back, so that none of them can change the medium after the answer.
 *
 * <p>Threads: {@link #abortTasks} on the executing thread; everything else on the intake stage. One allocation per
 * PREEMPT AND ABORT.
 */
final class TaskAborts implements TaskSetControl {
    /** One PREEMPT AND ABORT waiting for the commands it aborted. */
    static final class Request {
        final PersistentReservations unit;
        final Nexus[] preempted;
        final CommandSlot issuer;
        final Runnable done;
        /** Slots still held by aborted commands (intake stage). */
        int remaining;

        Request(final PersistentReservations unit, final Nexus[] preempted, final CommandSlot issuer, final Runnable done) {
            this.unit = unit;
            this.preempted = preempted;
            this.issuer = issuer;
            this.done = done;
        }

        /** Whether the command in {@code slot} (in use) is one this request aborts. */
        boolean reaches(final CommandSlot slot) {
            if (slot == issuer || slot.channel == null || slot.channel.nexus == null) {
                return false;
            }
            boolean preemptedNexus = false;
            for (final Nexus n : preempted) {
                preemptedNexus |= n == slot.channel.nexus;
            }
            if (!preemptedNexus) {
                return false;
            }
            final LogicalUnit target = slot.channel.units.get(LunAddress.decode(slot.lunField));
            return target != null && target.reservations() == unit;
        }
    }

    private final ConcurrentLinkedQueue<Request> queue;

    TaskAborts(final ConcurrentLinkedQueue<Request> queue) {
        this.queue = queue;
    }

    @Override
    public void abortTasks(final PersistentReservations unit, final Nexus[] preempted, final ScsiCommand issuer,
                           final Runnable done) {
        queue.add(new Request(unit, preempted, (CommandSlot) issuer.attachment(), done));
    }
}
