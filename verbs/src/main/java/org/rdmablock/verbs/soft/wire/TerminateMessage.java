package org.rdmablock.verbs.soft.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The RDMAP header of a Terminate message (RFC 5040 §4.8), after the untagged header on queue 2: why the stream
 * is being torn down and, optionally, the headers of the message that caused it. Offsets are from the FPDU start.
 *
 * <pre>
 *  20 Layer (high nibble) | EType (low nibble)   21 Error Code   22 HdrCt: M 0x80 | D 0x40 | R 0x20   23 reserved
 *  24 DDP Segment Length (2), if M
 *  26 Terminated DDP header (14 tagged / 18 untagged, RDMAP control included), if D
 *     Terminated RDMAP header (28: the Read Request header), if R
 * </pre>
 *
 * <p>Linux siw writes the control word through a C bit-field, which on little-endian hosts swaps the layer and
 * EType nibbles and puts M/D/R at 0x01/0x02/0x04; {@link #isSiwLayout()} recognises that form so it can be read.
 * This provider always writes the RFC layout.
 */
public final class TerminateMessage {
    public static final int LAYER_ETYPE_OFFSET = 20;
    public static final int ERROR_CODE_OFFSET = 21;
    public static final int HDRCT_OFFSET = 22;
    public static final int DDP_SEGMENT_LENGTH_OFFSET = 24;
    public static final int TERMINATED_HEADER_OFFSET = 26;
    /** Terminate header without attachments. */
    public static final int BASE_LENGTH = 4;

    public static final int HDRCT_M = 0x80;
    public static final int HDRCT_D = 0x40;
    public static final int HDRCT_R = 0x20;
    private static final int SIW_HDRCT_MASK = 0x07;

    // Layers (RFC 5040 §7.1; RFC 6580 registry)
    public static final int LAYER_RDMAP = 0;
    public static final int LAYER_DDP = 1;
    public static final int LAYER_LLP = 2;
    // RDMAP error types
    public static final int RDMAP_LOCAL_CATASTROPHIC = 0;
    public static final int RDMAP_REMOTE_PROTECTION = 1;
    public static final int RDMAP_REMOTE_OPERATION = 2;
    // DDP error types
    public static final int DDP_LOCAL_CATASTROPHIC = 0;
    public static final int DDP_TAGGED_BUFFER = 1;
    public static final int DDP_UNTAGGED_BUFFER = 2;
    // RDMAP codes
    public static final int RDMAP_INVALID_STAG = 0x00;
    public static final int RDMAP_BASE_BOUNDS = 0x01;
    public static final int RDMAP_ACCESS_RIGHTS = 0x02;
    public static final int RDMAP_STAG_NOT_ASSOCIATED = 0x03;
    public static final int RDMAP_TO_WRAP = 0x04;
    public static final int RDMAP_INVALID_VERSION = 0x05;
    public static final int RDMAP_UNEXPECTED_OPCODE = 0x06;
    public static final int RDMAP_CATASTROPHIC_STREAM = 0x07;
    public static final int RDMAP_CANNOT_INVALIDATE = 0x09;
    public static final int RDMAP_UNSPECIFIED = 0xFF;
    // DDP tagged codes
    public static final int DDP_INVALID_STAG = 0x00;
    public static final int DDP_BASE_BOUNDS = 0x01;
    public static final int DDP_STAG_NOT_ASSOCIATED = 0x02;
    public static final int DDP_TO_WRAP = 0x03;
    public static final int DDP_INVALID_VERSION = 0x04;
    // DDP untagged codes
    public static final int DDP_INVALID_QN = 0x01;
    public static final int DDP_NO_BUFFER = 0x02;
    public static final int DDP_INVALID_MSN = 0x03;
    public static final int DDP_INVALID_MO = 0x04;
    public static final int DDP_MESSAGE_TOO_LONG = 0x05;
    public static final int DDP_UNTAGGED_INVALID_VERSION = 0x06;
    // LLP (MPA) codes
    public static final int LLP_CONNECTION_LOST = 0x01;
    public static final int LLP_CRC_ERROR = 0x02;
    public static final int LLP_INVALID_MPA_FRAME = 0x04;

    private ByteBuffer buffer;
    private int offset;

    public TerminateMessage wrap(final ByteBuffer buffer, final int offset) {
        this.buffer = buffer.order(ByteOrder.BIG_ENDIAN);
        this.offset = offset;
        return this;
    }

    /** True when the control word is in Linux siw's little-endian bit-field form. */
    public boolean isSiwLayout() {
        final int hdrct = buffer.get(offset + HDRCT_OFFSET) & 0xFF;
        return (hdrct & 0xE0) == 0 && (hdrct & SIW_HDRCT_MASK) != 0;
    }

    public int layer() {
        final int b = buffer.get(offset + LAYER_ETYPE_OFFSET) & 0xFF;
        return isSiwLayout() ? b & 0x0F : b >>> 4;
    }

    public int errorType() {
        final int b = buffer.get(offset + LAYER_ETYPE_OFFSET) & 0xFF;
        return isSiwLayout() ? b >>> 4 : b & 0x0F;
    }

    public int errorCode() {
        return buffer.get(offset + ERROR_CODE_OFFSET) & 0xFF;
    }

    /** Whether a terminated DDP header is attached. */
    public boolean hasDdpHeader() {
        final int hdrct = buffer.get(offset + HDRCT_OFFSET) & 0xFF;
        return isSiwLayout() ? (hdrct & 0x02) != 0 : (hdrct & HDRCT_D) != 0;
    }

    /** Writes the control word in RFC layout; the headers flags say what {@link #attach} added. */
    public TerminateMessage control(final int layer, final int errorType, final int errorCode, final int hdrct) {
        buffer.put(offset + LAYER_ETYPE_OFFSET, (byte) (layer << 4 | errorType));
        buffer.put(offset + ERROR_CODE_OFFSET, (byte) errorCode);
        buffer.put(offset + HDRCT_OFFSET, (byte) hdrct);
        buffer.put(offset + HDRCT_OFFSET + 1, (byte) 0);
        return this;
    }

    /** Writes the DDP segment length and copies {@code length} header bytes (the DDP header onwards). */
    public TerminateMessage attach(final int ddpSegmentLength, final ByteBuffer source, final int sourceOffset, final int length) {
        buffer.putShort(offset + DDP_SEGMENT_LENGTH_OFFSET, (short) ddpSegmentLength);
        for (int i = 0; i < length; i++) {
            buffer.put(offset + TERMINATED_HEADER_OFFSET + i, source.get(sourceOffset + i));
        }
        return this;
    }

    /**
     * Offset, from the FPDU start, of the terminated message's headers viewed as an FPDU of their own (so that
     * {@link FpduHeader} offsets apply): two bytes before the terminated DDP header.
     */
    public int terminatedFpduOffset() {
        return offset + TERMINATED_HEADER_OFFSET - Fpdu.LENGTH_SIZE;
    }
}
