package org.rdmablock.verbs.soft;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.GatheringByteChannel;
import java.util.zip.CRC32C;

import org.rdmablock.verbs.soft.wire.Fpdu;

/**
 * Builds outgoing MPA FPDUs (RFC 5044 §4.2) and writes them without blocking, many per system call. Small
 * payloads are copied into a staging buffer next to their headers; a large payload stays in registered memory
 * and goes out uncopied between its header (in staging) and its PAD and CRC trailer, up to {@link #MAX_GATHERED}
 * such FPDUs per flush. Used by one thread at a time (the QP's transmit owner); allocates nothing once each region
 * has been seen (views are cached per gather slot).
 *
 * <p>A payload view is written by a single-buffer write, never inside a gathering write: the JDK's gathering
 * write allocates a scope releaser for every buffer that belongs to a memory segment's session (IOUtil.write),
 * about 40 bytes per payload, while the single-buffer path and the session-less staging and trailer buffers
 * allocate nothing. So a flush is one gathering write of the staging and trailer pieces between two payloads,
 * then the payload, and so on.
 */
final class FpduWriter {
    /** Staging buffer size: bounds how many small FPDUs one write carries. */
    static final int STAGING_SIZE = Integer.getInteger("rdmablock.soft.txStaging", 64 * 1024);
    /**
     * Payloads up to this size are copied into staging; larger ones are written from memory directly. Never below
     * the inline data limit: inline data lives in the work request, not in registered memory, so it is always copied.
     */
    static final int COPY_LIMIT = Math.max(Integer.getInteger("rdmablock.soft.txCopyLimit", 8 * 1024), SoftDevice.MAX_INLINE);
    /** FPDUs with uncopied payloads per write. */
    static final int MAX_GATHERED = 16;

    private final ByteBuffer staging = ByteBuffer.allocateDirect(STAGING_SIZE).order(ByteOrder.BIG_ENDIAN);
    private final MemorySegment stagingSegment = MemorySegment.ofBuffer(staging);
    /** Views of staging, one per staging piece of a gathering write. */
    private final ByteBuffer[] stagingViews = new ByteBuffer[MAX_GATHERED + 1];
    private final ByteBuffer[] trailers = new ByteBuffer[MAX_GATHERED];
    private final RegionViews[] payloadViews = new RegionViews[MAX_GATHERED];
    /** The pieces of the next write: staging, payload, trailer, staging, ... */
    private final ByteBuffer[] pieces = new ByteBuffer[3 * MAX_GATHERED + 1];
    /** Which pieces are payload views (written alone, see the class comment). */
    private final boolean[] payloadPiece = new boolean[3 * MAX_GATHERED + 1];
    private final CRC32C crc = new CRC32C();
    private final boolean crcEnabled;
    private int pieceCount;
    private int firstPiece;
    private int gathered;
    /** Start of the staging bytes not yet made a piece. */
    private int openStart;
    /** Where the FPDU being built starts in staging. */
    private int fpduStart;
    /** End of built bytes in staging. */
    private int end;
    private int ulpduLength;
    private boolean flushing;
    /** Bytes the socket has taken: a peer whose kernel acknowledges them is alive (see the QP's liveness sweep). */
    private long bytesWritten;

    FpduWriter(final boolean crcEnabled) {
        this.crcEnabled = crcEnabled;
        for (int i = 0; i < stagingViews.length; i++) {
            stagingViews[i] = staging.duplicate();
        }
        for (int i = 0; i < MAX_GATHERED; i++) {
            trailers[i] = ByteBuffer.allocateDirect(8);
            payloadViews[i] = new RegionViews();
        }
    }

    boolean crcEnabled() {
        return crcEnabled;
    }

    /** Bytes written to the socket so far (read racily by the liveness sweep: it only looks for movement). */
    long bytesWritten() {
        return bytesWritten;
    }

    /** Whether nothing waits to be written. */
    boolean isEmpty() {
        return end == 0 && pieceCount == 0;
    }

    /** Whether no further FPDU with an uncopied payload fits until a flush. */
    boolean isBlocked() {
        return gathered == MAX_GATHERED || flushing;
    }

    /** Whether an FPDU with this header and a copied payload (0 for an uncopied one) fits now. */
    boolean fits(final int headerLength, final int copiedPayload) {
        return !flushing && end + Fpdu.totalLength(headerLength - Fpdu.LENGTH_SIZE + copiedPayload) <= STAGING_SIZE
            && (copiedPayload > 0 || gathered < MAX_GATHERED);
    }

    /**
     * Starts an FPDU: writes ULPDU_Length and returns the staging buffer; the caller fills every byte of the
     * DDP/RDMAP header at {@link #fpduOffset()} (an {@link org.rdmablock.verbs.soft.wire.FpduHeader} wrap and the
     * RDMAP message flyweights write all their fields, so nothing is cleared here). The caller checked {@link #fits}.
     */
    ByteBuffer begin(final int headerLength, final int payloadLength) {
        fpduStart = end;
        ulpduLength = headerLength - Fpdu.LENGTH_SIZE + payloadLength;
        Fpdu.ulpduLength(staging, fpduStart, ulpduLength);
        end = fpduStart + headerLength;
        return staging;
    }

    int fpduOffset() {
        return fpduStart;
    }

    /** Appends payload bytes copied from {@code source}. */
    void copyPayload(final MemorySegment source, final long offset, final int length) {
        MemorySegment.copy(source, offset, stagingSegment, end, length);
        end += length;
    }

    /** Closes an FPDU whose payload was copied: PAD and CRC go into staging. */
    void finish() {
        final int pad = Fpdu.padLength(ulpduLength);
        for (int i = 0; i < pad; i++) {
            staging.put(end++, (byte) 0);
        }
        Fpdu.putCrc(staging, end, crcEnabled ? crcOf(fpduStart, end - fpduStart) : 0);
        end += Fpdu.CRC_SIZE;
    }

    /** A view of region memory for the next uncopied payload (cached per gather slot, so views never alias). */
    ByteBuffer payloadView(final SoftMemoryRegion region, final long offset, final int length) {
        return payloadViews[gathered].view(region, offset, length);
    }

    /** Closes an FPDU whose payload is {@code view} (from {@link #payloadView}), written later without copying. */
    void finishGathered(final ByteBuffer view) {
        final int pad = Fpdu.padLength(ulpduLength);
        final ByteBuffer trailer = trailers[gathered].clear();
        for (int i = 0; i < pad; i++) {
            trailer.put((byte) 0);
        }
        int value = 0;
        if (crcEnabled) {
            crc.reset();
            updateCrc(fpduStart, end - fpduStart);
            final int position = view.position();
            crc.update(view);
            view.position(position);
            trailer.flip();
            crc.update(trailer);
            value = (int) crc.getValue();
        }
        trailer.limit(pad + Fpdu.CRC_SIZE);
        Fpdu.putCrc(trailer, pad, value);
        trailer.position(0);
        pieces[pieceCount++] = stagingViews[gathered].limit(end).position(openStart);
        payloadPiece[pieceCount] = true;
        pieces[pieceCount++] = view;
        pieces[pieceCount++] = trailer;
        openStart = end;
        gathered++;
    }

    private int crcOf(final int offset, final int length) {
        crc.reset();
        updateCrc(offset, length);
        return (int) crc.getValue();
    }

    private void updateCrc(final int offset, final int length) {
        Fpdu.updateCrc(crc, staging, offset, length);
    }

    /**
     * Writes what is pending without blocking. Once a write is partial, nothing more is built until everything
     * pending has been written.
     *
     * @return true when everything built so far has been written
     */
    boolean flush(final GatheringByteChannel channel) throws IOException {
        if (isEmpty()) {
            return true;
        }
        if (!flushing) {
            if (openStart < end) {
                pieces[pieceCount++] = stagingViews[MAX_GATHERED].limit(end).position(openStart);
                openStart = end;
            }
            flushing = true;
        }
        while (firstPiece < pieceCount) {
            // one payload alone, or the run of staging and trailer pieces up to the next payload in one write
            int runEnd = firstPiece + 1;
            if (payloadPiece[firstPiece]) {
                bytesWritten += channel.write(pieces[firstPiece]);
            } else {
                while (runEnd < pieceCount && !payloadPiece[runEnd]) {
                    runEnd++;
                }
                bytesWritten += channel.write(pieces, firstPiece, runEnd - firstPiece);
            }
            while (firstPiece < runEnd && !pieces[firstPiece].hasRemaining()) {
                payloadPiece[firstPiece] = false;
                pieces[firstPiece++] = null;
            }
            if (firstPiece < runEnd) {
                return false; // the socket took only part: the rest when it is writable again
            }
        }
        pieceCount = 0;
        firstPiece = 0;
        gathered = 0;
        openStart = 0;
        end = 0;
        flushing = false;
        return true;
    }
}
