package org.rdmablock.initiator;

import org.rdmablock.verbs.MemoryRegion;

import java.lang.foreign.MemorySegment;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds the command an answer is for and completes its parts, on the agent thread, for either protocol's answer
 * ({@link SrpInbound}, {@link NvmeInbound}).
 *
 * <p>A read through a bounce buffer is copied out to its callers' buffers part by part, an underflow shortening the
 * parts at the end; a failed command becomes its parts' failure. Each request the command carried completes once its
 * last command has.
 */
final class ResponseMatcher {
    private static final Logger LOG = LoggerFactory.getLogger(ResponseMatcher.class);

    private final int index;
    private final CommandTable table;
    private final RequestCompleter completer;
    private final RetryQueue retryQueue;
    private final MemoryRegion bounce;
    private final int bounceBytes;

    ResponseMatcher(final int index, final CommandTable table, final RequestCompleter completer, final RetryQueue retryQueue,
                    final ChannelMemory memory) {
        this.index = index;
        this.table = table;
        this.completer = completer;
        this.retryQueue = retryQueue;
        this.bounce = memory.bounce();
        this.bounceBytes = memory.bounceBytes();
    }

    /**
     * The command in flight tagged {@code tag}, or null: a late answer to an aborted command frees its slot (its parts
     * went again already), and an answer for no command is logged.
     */
    OutstandingCommand inFlight(final long tag) {
        final int slot = OutstandingCommand.slotOf(tag);
        final OutstandingCommand c = slot < table.size() ? table.get(slot) : null;
        if (c != null && c.quarantined && c.tag == tag) {
            table.releaseQuarantined(c);
            return null;
        }
        if (c == null || !c.inUse() || c.tag != tag) {
            LOG.warn("channel " + index + ": a response for no command in flight (tag 0x" + Long.toHexString(tag) + ")");
            return null;
        }
        return c;
    }

    /** The command in flight in {@code slot} (an NVMe command identifier names the slot alone), or null, logged. */
    OutstandingCommand inFlightIn(final int slot) {
        final OutstandingCommand c = slot < table.size() ? table.get(slot) : null;
        if (c == null || !c.inUse() || c.quarantined) {
            LOG.warn("channel " + index + ": a response for no command in flight (command id " + slot + ")");
            return null;
        }
        return c;
    }

    /** {@code c} succeeded, moving {@code moved} bytes (less than its length: an underflow). */
    void answered(final OutstandingCommand c, final long moved) {
        long left = Math.max(0, Math.min(moved, c.length));
        long bounceAt = (long) c.index * bounceBytes;
        for (int i = 0; i < c.partCount; i++) {
            final IoRequest request = c.parts[i];
            final long part = Math.min(left, c.partLength[i]); // an underflow shortens the parts at the end
            if (c.bounced && c.dataIn && part > 0) {
                MemorySegment.copy(bounce.segment(), bounceAt, request.buffer, request.bufferOffset + c.partOffset[i], part);
            }
            request.bytesDone += part;
            left -= part;
            bounceAt += c.partLength[i];
            completer.commandEnded(request);
        }
        table.release(c);
    }

    /** {@code c} is to go again (a unit attention answered it): its parts to the retry queue, its slot freed. */
    void again(final OutstandingCommand c) {
        retryQueue.addParts(c);
        table.release(c);
    }

    /** {@code c} failed: each request it carried fails with what {@code failure} makes of it (unless one already did). */
    void failed(final OutstandingCommand c, final Function<IoRequest, SrpIoException> failure) {
        for (int i = 0; i < c.partCount; i++) {
            final IoRequest request = c.parts[i];
            if (request.failure == null) {
                request.failure = failure.apply(request);
            }
            completer.commandEnded(request);
        }
        table.release(c);
    }
}
