package org.rdmablock.initiator;

import org.rdmablock.protocol.scsi.SenseData;
import org.rdmablock.protocol.srp.SrpResponse;
import org.rdmablock.verbs.MemoryRegion;

import java.lang.foreign.MemorySegment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Matches each SRP_RSP to its command by tag and copies its data out, on the agent thread.
 *
 * <p>Takes the credits the response returns; task management's answers go to {@link TaskManagement}. A read through a
 * bounce buffer is copied out to its callers' buffers part by part, an underflow shortening the parts at the end; a
 * SCSI status other than GOOD becomes the parts' failure, with the sense in words. Each request the command carried
 * completes once its last command has.
 */
final class ResponseMatcher {
    private static final Logger LOG = LoggerFactory.getLogger(ResponseMatcher.class);

    private final int index;
    private final CommandTable table;
    private final Credits credits;
    private final RequestCompleter completer;
    private final TaskManagement taskManagement;
    private final MemoryRegion bounce;
    private final int bounceBytes;

    ResponseMatcher(final int index, final CommandTable table, final Credits credits, final RequestCompleter completer,
                    final TaskManagement taskManagement, final ChannelMemory memory) {
        this.index = index;
        this.table = table;
        this.credits = credits;
        this.completer = completer;
        this.taskManagement = taskManagement;
        this.bounce = memory.bounce();
        this.bounceBytes = memory.bounceBytes();
    }

    /** An SRP_RSP: its command is answered; each request it carried completes when its last command is. */
    void responded(final SrpResponse response) {
        credits.grant(response.requestLimitDelta());
        final long tag = response.tag();
        if (TaskManagement.isTaskManagementTag(tag)) {
            taskManagement.answered(response);
            return;
        }
        final int slot = OutstandingCommand.slotOf(tag);
        final OutstandingCommand c = slot < table.size() ? table.get(slot) : null;
        if (c != null && c.quarantined && c.tag == tag) {
            table.releaseQuarantined(c); // the aborted command's late answer: its parts went again already
            return;
        }
        if (c == null || !c.inUse() || c.tag != tag) {
            LOG.warn("channel " + index + ": a response for no command in flight (tag 0x" + Long.toHexString(tag) + ")");
            return;
        }
        final int status = response.status();
        long moved = status == 0 ? bytesMoved(c, response) : 0;
        long bounceAt = (long) slot * bounceBytes;
        for (int i = 0; i < c.partCount; i++) {
            final IoRequest request = c.parts[i];
            if (status == 0) {
                final long part = Math.min(moved, c.partLength[i]); // an underflow shortens the parts at the end
                if (c.bounced && c.dataIn && part > 0) {
                    MemorySegment.copy(bounce.segment(), bounceAt, request.buffer, request.bufferOffset + c.partOffset[i], part);
                }
                request.bytesDone += part;
                moved -= part;
            } else if (request.failure == null) {
                request.failure = statusFailure(request, response);
            }
            bounceAt += c.partLength[i];
            completer.commandEnded(request);
        }
        table.release(c);
    }

    /** Bytes the command moved: its length less the residual the target reports for an underflow. */
    private static long bytesMoved(final OutstandingCommand c, final SrpResponse response) {
        long moved = c.length;
        final int flags = response.flags();
        if (c.dataIn && (flags & SrpResponse.FLAG_DIUNDER) != 0) {
            moved -= response.dataInResidualCount();
        } else if (!c.dataIn && (flags & SrpResponse.FLAG_DOUNDER) != 0) {
            moved -= response.dataOutResidualCount();
        }
        return Math.max(0, Math.min(moved, c.length));
    }

    private static ScsiStatusException statusFailure(final IoRequest request, final SrpResponse response) {
        final int senseLength = (int) response.senseDataLength();
        final MemorySegment sense = response.segment();
        final long at = response.offset() + response.senseDataOffset();
        if (senseLength < 8) {
            return new ScsiStatusException(request.describe(), response.status(), -1, -1, -1);
        }
        return new ScsiStatusException(request.describe(), response.status(), SenseData.senseKey(sense, at, senseLength),
                SenseData.asc(sense, at, senseLength), SenseData.ascq(sense, at, senseLength));
    }
}
