package org.rdmablock.verbs.soft;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.GatheringByteChannel;
import java.util.zip.CRC32C;

import org.rdmablock.verbs.soft.wire.Fpdu;

/**
 * Builds outgoing MPA FPDUs (RFC 5044 §4.2) and writes them without blocking. Small FPDUs are assembled whole in
 * a staging buffer, so that many go out in one write; an FPDU with a large payload is written with a gathering
 * write straight from the registered memory (header in staging, payload view, PAD and CRC trailer), with no
 * copy. Used by one thread at a time (the QP's transmit owner); allocates nothing.
 */
final class FpduWriter {
    /** Staging buffer size: bounds how many small FPDUs one write carries. */
    static final int STAGING_SIZE = Integer.getInteger("rdmablock.soft.txStaging", 64 * 1024);
    /** Payloads up to this size are copied into staging; larger ones are written from memory directly. */
    static final int COPY_LIMIT = Integer.getInteger("rdmablock.soft.txCopyLimit", 8 * 1024);

    private final ByteBuffer staging = ByteBuffer.allocateDirect(STAGING_SIZE).order(ByteOrder.BIG_ENDIAN);
    private final MemorySegment stagingSegment = MemorySegment.ofBuffer(staging);
    private final ByteBuffer trailer = ByteBuffer.allocateDirect(8).order(ByteOrder.BIG_ENDIAN);
    private final ByteBuffer[] gather = new ByteBuffer[3];
    private final CRC32C crc = new CRC32C();
    private final boolean crcEnabled;
    /** Where the FPDU being built starts in staging. */
    private int fpduStart;
    /** End of built bytes in staging. */
    private int end;
    /** Start of bytes not yet written. */
    private int written;
    private ByteBuffer payloadView;
    private int ulpduLength;

    FpduWriter(final boolean crcEnabled) {
        this.crcEnabled = crcEnabled;
        gather[0] = staging;
        gather[2] = trailer;
    }

    boolean crcEnabled() {
        return crcEnabled;
    }

    /** Whether nothing waits to be written. */
    boolean isEmpty() {
        return written == end && payloadView == null;
    }

    /** Whether a gathered FPDU is pending: nothing more can be built until it is flushed. */
    boolean isBlocked() {
        return payloadView != null;
    }

    /** Whether an FPDU with this header and a copied payload fits in staging now. */
    boolean fits(final int headerLength, final int copiedPayload) {
        return payloadView == null && end + Fpdu.totalLength(headerLength - Fpdu.LENGTH_SIZE + copiedPayload) <= STAGING_SIZE;
    }

    /**
     * Starts an FPDU: writes ULPDU_Length and returns the staging buffer; the caller fills the DDP/RDMAP header
     * at {@link #fpduOffset()} (an {@link org.rdmablock.verbs.soft.wire.FpduHeader} wrap). The caller checked
     * {@link #fits}.
     */
    ByteBuffer begin(final int headerLength, final int payloadLength) {
        fpduStart = end;
        ulpduLength = headerLength - Fpdu.LENGTH_SIZE + payloadLength;
        Fpdu.ulpduLength(staging, fpduStart, ulpduLength);
        for (int i = Fpdu.LENGTH_SIZE; i < headerLength; i++) {
            staging.put(fpduStart + i, (byte) 0);
        }
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

    /** Closes an FPDU whose payload is {@code view} (position..limit), written later without copying. */
    void finishGathered(final ByteBuffer view) {
        final int pad = Fpdu.padLength(ulpduLength);
        trailer.clear();
        for (int i = 0; i < pad; i++) {
            trailer.put((byte) 0);
        }
        int value = 0;
        if (crcEnabled) {
            crc.reset();
            updateCrc(staging, fpduStart, end - fpduStart);
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
        payloadView = view;
    }

    private int crcOf(final int offset, final int length) {
        crc.reset();
        updateCrc(staging, offset, length);
        return (int) crc.getValue();
    }

    private void updateCrc(final ByteBuffer buffer, final int offset, final int length) {
        final int position = buffer.position();
        final int limit = buffer.limit();
        buffer.limit(offset + length).position(offset);
        crc.update(buffer);
        buffer.limit(limit).position(position);
    }

    /**
     * Writes what is pending without blocking.
     *
     * @return true when everything built so far has been written
     */
    boolean flush(final GatheringByteChannel channel) throws IOException {
        if (isEmpty()) {
            return true;
        }
        staging.limit(end).position(written);
        if (payloadView == null) {
            channel.write(staging);
        } else {
            gather[1] = payloadView;
            channel.write(gather, 0, 3);
        }
        written = staging.position();
        staging.clear();
        if (written < end || (payloadView != null && (payloadView.hasRemaining() || trailer.hasRemaining()))) {
            return false;
        }
        payloadView = null;
        gather[1] = null;
        written = 0;
        end = 0;
        return true;
    }
}
