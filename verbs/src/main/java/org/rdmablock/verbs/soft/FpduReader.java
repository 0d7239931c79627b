package org.rdmablock.verbs.soft;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ScatteringByteChannel;
import java.util.zip.CRC32C;

import org.rdmablock.verbs.soft.wire.Fpdu;
import org.rdmablock.verbs.soft.wire.FpduHeader;
import org.rdmablock.verbs.soft.wire.RdmapOpcode;
import org.rdmablock.verbs.soft.wire.TerminateMessage;

/**
 * Parses the incoming MPA/DDP byte stream of one connection and places payload where its {@link Handler} says.
 * Bytes are read greedily into a staging buffer, so that many small FPDUs cost one read; when a large payload
 * is not yet in staging, the rest of it is read from the socket straight into registered memory. While the stream
 * carries large data segments, a staging read stops at the end of the next FPDU header, so that the payload behind
 * it goes straight into memory too rather than through staging. Small control
 * messages (Read Request, Terminate, atomics, Immediate Data) are handed over whole after their CRC is checked;
 * data segments are checked at their end. Runs on the connection's I/O agent only; allocates nothing.
 */
final class FpduReader {
    /** Staging buffer size ({@link Configuration#RX_STAGING_PROP_NAME}). */
    static final int STAGING_SIZE = Configuration.rxStaging();
    /** A payload remainder of at least this many bytes is read directly into memory. */
    static final int DIRECT_READ_MIN = 4 * 1024;
    /**
     * A data segment of at least this payload makes the next staging read stop at the end of the next header: one
     * small read more per segment, one copy of its payload less (a 64 KiB segment read greedily lands in staging
     * almost whole and is copied out). {@link Configuration#HEADER_FIRST_MIN_PROP_NAME}: default 16 KiB; 2147483647
     * reads every header greedily.
     */
    static final int HEADER_FIRST_MIN = Configuration.headerFirstMin();
    /** Socket reads per readiness event, so one busy connection cannot starve the agent's others. */
    private static final int MAX_READS = 16;

    /** Handler verdicts. */
    static final int ACCEPT = 0;
    static final int PAUSE = 1;
    static final int FAIL = 2;

    /** What the QP does with the stream's messages. */
    interface Handler {
        /**
         * A data segment (RDMA Write, Read Response, Send) starts: validate it and set {@code placement} for
         * {@code payloadLength} bytes. PAUSE keeps the segment for a later {@link #resume()} (no receive posted).
         */
        int onDataHeader(FpduHeader header, int payloadLength, Placement placement);

        /** The data segment's bytes are placed and its CRC checked. */
        int onDataEnd();

        /** A whole control message (untagged, not a Send), CRC checked, at {@code header}. */
        int onControl(FpduHeader header, ByteBuffer buffer);

        /** The stream broke: bad CRC or framing (an LLP or DDP error of the given codes). */
        void onStreamError(int layer, int errorType, int errorCode, String reason);
    }

    private static final int HEADER = 0;
    private static final int PAYLOAD = 1;
    private static final int TRAILER = 2;

    private final Handler handler;
    private final boolean crcEnabled;
    private final ByteBuffer staging = ByteBuffer.allocateDirect(STAGING_SIZE).order(ByteOrder.BIG_ENDIAN);
    private final MemorySegment stagingSegment = MemorySegment.ofBuffer(staging);
    private final FpduHeader header = new FpduHeader();
    private final CRC32C crc = new CRC32C();
    private final Placement placement;
    private final RegionViews views = new RegionViews();
    private int position;
    private int end;
    private int phase = HEADER;
    private int payloadRemaining;
    private int padLength;
    private boolean paused;
    private boolean failed;
    /** The last FPDU was a data segment of at least {@link #HEADER_FIRST_MIN} placed straight into memory. */
    private boolean largeSegments;

    FpduReader(final Handler handler, final boolean crcEnabled, final int maxSge) {
        this.handler = handler;
        this.crcEnabled = crcEnabled;
        this.placement = new Placement(maxSge);
    }

    boolean isPaused() {
        return paused;
    }

    /**
     * Whether part of an FPDU has arrived and the rest has not (its header, payload or trailer under way), while the
     * reader is not paused for a receive of its own: what only the peer can end.
     */
    boolean midFrame() {
        return !paused && !failed && (phase != HEADER || end > position);
    }

    /** Whether the stream broke or a message was refused: nothing more is parsed. */
    boolean hasFailed() {
        return failed;
    }

    /** Processes what staging holds after a pause; then the caller reads on. */
    void resume() {
        paused = false;
        process();
    }

    /**
     * Reads and processes what the channel has.
     *
     * @return bytes-or-messages of work done; -1 at end of stream
     */
    int onReadable(final ScatteringByteChannel channel) throws IOException {
        int work = 0;
        for (int reads = 0; reads < MAX_READS && !paused && !failed; reads++) {
            final int need = process();
            if (paused || failed) {
                break;
            }
            final int n;
            if (need == PAYLOAD) {
                final ByteBuffer view = placement.view(views, payloadRemaining);
                final int start = view.position();
                n = channel.read(view);
                if (n > 0) {
                    if (crcEnabled) {
                        view.limit(start + n).position(start);
                        crc.update(view);
                    }
                    placement.advance(n);
                    payloadRemaining -= n;
                }
            } else {
                compact();
                staging.limit(readLimit()).position(end);
                n = channel.read(staging);
                if (n > 0) {
                    end += n;
                }
            }
            if (n < 0) {
                return -1;
            }
            if (n == 0) {
                break;
            }
            work++;
        }
        if (!paused && !failed) {
            process(); // what the last read brought in: no readiness event may come for it
        }
        return work;
    }

    /** Moves unparsed bytes to the front of staging when room runs short. */
    private void compact() {
        if (position == end) {
            position = 0;
            end = 0;
        } else if (staging.capacity() - end < 1024 || position > staging.capacity() / 2) {
            MemorySegment.copy(stagingSegment, position, stagingSegment, 0, end - position);
            end -= position;
            position = 0;
        }
    }

    /**
     * Where the next staging read stops: the buffer's end, or, while the stream carries large data segments, the end
     * of the next FPDU's header (what is left of the current one, its trailer, and a tagged header), when that is
     * further than what staging already holds.
     */
    private int readLimit() {
        if (largeSegments) {
            final int toNextHeader = switch (phase) {
                case PAYLOAD -> payloadRemaining + padLength + Fpdu.CRC_SIZE;
                case TRAILER -> padLength + Fpdu.CRC_SIZE;
                default -> 0;
            };
            final long upTo = (long) position + toNextHeader + FpduHeader.TAGGED_LENGTH;
            if (upTo > end && upTo <= staging.capacity()) {
                return (int) upTo;
            }
        }
        return staging.capacity();
    }

    /** Processes staged bytes; returns what it waits for: HEADER/TRAILER (more staged bytes) or PAYLOAD (direct read). */
    private int process() {
        while (!paused && !failed) {
            switch (phase) {
                case HEADER -> {
                    if (!parseHeader()) {
                        return HEADER;
                    }
                }
                case PAYLOAD -> {
                    if (payloadRemaining == 0) {
                        phase = TRAILER;
                        continue;
                    }
                    final int available = end - position;
                    if (available == 0) {
                        return payloadRemaining >= DIRECT_READ_MIN && placement.isDirect() ? PAYLOAD : HEADER;
                    }
                    final int n = Math.min(available, payloadRemaining);
                    if (crcEnabled) {
                        updateCrc(position, n);
                    }
                    try {
                        placement.copyFrom(stagingSegment, position, n);
                    } catch (final IllegalStateException e) {
                        fail(TerminateMessage.LAYER_DDP, TerminateMessage.DDP_LOCAL_CATASTROPHIC, 0, "memory released during placement");
                        return HEADER;
                    }
                    position += n;
                    payloadRemaining -= n;
                }
                default -> {
                    final int need = padLength + Fpdu.CRC_SIZE;
                    if (end - position < need) {
                        return TRAILER;
                    }
                    if (crcEnabled) {
                        updateCrc(position, padLength);
                        if (crcMismatch(position + padLength)) {
                            return HEADER;
                        }
                    }
                    position += need;
                    phase = HEADER;
                    placement.clear();
                    if (handler.onDataEnd() == FAIL) {
                        failed = true;
                    }
                }
            }
        }
        return HEADER;
    }

    /** Parses the next FPDU header if it is staged; false when more bytes are needed. */
    private boolean parseHeader() {
        if (end - position < FpduHeader.TAGGED_LENGTH) {
            return false;
        }
        header.wrap(staging, position);
        final int ulpdu = header.ulpduLength();
        final int headerLength = header.headerLength();
        if (ulpdu + Fpdu.LENGTH_SIZE < headerLength) {
            fail(TerminateMessage.LAYER_LLP, 0, TerminateMessage.LLP_INVALID_MPA_FRAME, "ULPDU_Length " + ulpdu + " shorter than its DDP header");
            return false;
        }
        if (end - position < headerLength) {
            return false;
        }
        final int payload = ulpdu + Fpdu.LENGTH_SIZE - headerLength;
        final int opcode = header.opcode();
        if (!header.isTagged() && !RdmapOpcode.isSend(opcode)) {
            final int total = Fpdu.totalLength(ulpdu);
            if (total > staging.capacity()) {
                fail(TerminateMessage.LAYER_DDP, TerminateMessage.DDP_UNTAGGED_BUFFER, TerminateMessage.DDP_MESSAGE_TOO_LONG,
                    "control message of " + total + " bytes");
                return false;
            }
            if (end - position < total) {
                return false;
            }
            if (crcEnabled) {
                crc.reset();
                updateCrc(position, total - Fpdu.CRC_SIZE);
                if (crcMismatch(position + total - Fpdu.CRC_SIZE)) {
                    return false;
                }
            }
            largeSegments = false;
            if (!accepted(handler.onControl(header, staging))) {
                return false;
            }
            position += total;
            return true;
        }
        if (!accepted(handler.onDataHeader(header, payload, placement))) {
            return false;
        }
        largeSegments = payload >= HEADER_FIRST_MIN && placement.isDirect();
        if (crcEnabled) {
            crc.reset();
            updateCrc(position, headerLength);
        }
        padLength = Fpdu.padLength(ulpdu);
        payloadRemaining = payload;
        position += headerLength;
        phase = PAYLOAD;
        return true;
    }

    /** Records a PAUSE or FAIL verdict; true for ACCEPT. */
    private boolean accepted(final int verdict) {
        paused = verdict == PAUSE;
        failed = verdict == FAIL;
        return verdict == ACCEPT;
    }

    private void updateCrc(final int offset, final int length) {
        Fpdu.updateCrc(crc, staging, offset, length);
    }

    /** Compares the CRC computed so far with the trailer at {@code crcAt}; a mismatch fails the stream. */
    private boolean crcMismatch(final int crcAt) {
        if ((int) crc.getValue() == Fpdu.getCrc(staging, crcAt)) {
            return false;
        }
        fail(TerminateMessage.LAYER_LLP, 0, TerminateMessage.LLP_CRC_ERROR, "MPA CRC error");
        return true;
    }

    private void fail(final int layer, final int errorType, final int errorCode, final String reason) {
        failed = true;
        handler.onStreamError(layer, errorType, errorCode, reason);
    }
}
