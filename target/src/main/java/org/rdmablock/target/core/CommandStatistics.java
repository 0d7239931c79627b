package org.rdmablock.target.core;

import org.rdmablock.protocol.scsi.ScsiStatus;
import org.rdmablock.target.metrics.IoStats;
import org.rdmablock.target.metrics.TargetStatistics;
import org.rdmablock.target.metrics.TargetStatistics.Count;

/**
 * Records each command into its LUN's and its session's figures: one more in their hands when it is admitted, its
 * kind, status, bytes and latency when its response has gone. The intake stage sees both ends of every command, so it
 * alone writes them, without locks.
 *
 * <p>Thread: the intake stage's.
 */
public final class CommandStatistics {
    private final TargetStatistics statistics;

    CommandStatistics(final TargetStatistics statistics) {
        this.statistics = statistics;
    }

    /** Records a command that took {@code slot}: one more in its LUN's (null: not served) and session's hands. */
    public void track(final CommandSlot slot, final Channel channel, final int kind, final IoStats lun, final long arrivedNanos) {
        slot.tracked = true;
        slot.kind = kind;
        slot.lunStats = lun;
        slot.arrivedNanos = arrivedNanos;
        channel.session.io.commandArrived();
        if (lun != null) {
            lun.commandArrived();
        }
    }

    /** A tracked command's response went: its kind, status, bytes and latency into its LUN's and session's figures. */
    void answered(final CommandSlot slot) {
        // a timed-out slot's backend call may still be running and writing the command: its answer was the timeout's
        final int status = slot.phase == CommandSlot.TIMED_OUT ? ScsiStatus.CHECK_CONDITION : slot.command.status();
        final boolean good = status == ScsiStatus.GOOD;
        final long bytes = !good ? 0 : slot.kind == IoStats.READ ? slot.command.dataInLength()
                : slot.kind == IoStats.WRITE ? slot.dataOutLength : 0;
        final long latency = System.nanoTime() - slot.arrivedNanos;
        slot.channel.session.io.commandAnswered(slot.kind, good, bytes, latency);
        if (slot.lunStats != null) {
            slot.lunStats.commandAnswered(slot.kind, good, bytes, latency);
        }
        if (!good) {
            statistics.add(Count.ERRORS, 1);
        }
    }

    /** A tracked command left its LUN's and session's hands (its slot is freed). */
    void left(final CommandSlot slot) {
        slot.tracked = false;
        slot.channel.session.io.commandLeft();
        if (slot.lunStats != null) {
            slot.lunStats.commandLeft();
            slot.lunStats = null;
        }
    }
}
