package org.rdmablock.verbs.soft.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The headers at the start of an FPDU: MPA's ULPDU_Length, then the DDP header (RFC 5041 §4.2 tagged, §4.3
 * untagged) whose reserved-for-ULP bits carry the RDMAP header (RFC 5040 §4.1). Offsets are from the FPDU start.
 *
 * <pre>
 *   0 ULPDU_Length (2)
 *   2 DDP control: T 0x80 tagged | L 0x40 last segment | reserved 0x3C | DV 0x03 (= 1)
 *   3 RDMAP control: RV 0xC0 (= 1) | reserved 0x30 | opcode 0x0F
 *  tagged (16 bytes):   4 STag (4) | 8 tagged offset (8) | 16 payload
 *  untagged (20 bytes): 4 RsvdULP (4): Invalidate STag of Send with Invalidate | 8 QN (4) | 12 MSN (4) |
 *                      16 MO (4) | 20 payload
 * </pre>
 *
 * <p>Soft-provider extension: RDMAP control bit {@link #RDMAP_FLAG_IMMEDIATE} (reserved in RFC 5040) on a Send
 * marks a SEND_WITH_IMM whose immediate data travels in the RsvdULP field.
 */
public final class FpduHeader {
    public static final int DDP_CONTROL_OFFSET = 2;
    public static final int RDMAP_CONTROL_OFFSET = 3;
    public static final int STAG_OFFSET = 4;
    public static final int TAGGED_OFFSET_OFFSET = 8;
    public static final int TAGGED_LENGTH = 16;
    public static final int INVALIDATE_STAG_OFFSET = 4;
    public static final int QN_OFFSET = 8;
    public static final int MSN_OFFSET = 12;
    public static final int MO_OFFSET = 16;
    public static final int UNTAGGED_LENGTH = 20;
    /** Bytes of a tagged DDP header within the ULPDU (without ULPDU_Length). */
    public static final int DDP_TAGGED_HEADER = TAGGED_LENGTH - Fpdu.LENGTH_SIZE;
    /** Bytes of an untagged DDP header within the ULPDU (without ULPDU_Length). */
    public static final int DDP_UNTAGGED_HEADER = UNTAGGED_LENGTH - Fpdu.LENGTH_SIZE;

    public static final int DDP_TAGGED = 0x80;
    public static final int DDP_LAST = 0x40;
    public static final int DDP_RESERVED = 0x3C;
    public static final int DDP_VERSION_MASK = 0x03;
    public static final int DDP_VERSION = 1;
    public static final int RDMAP_VERSION_MASK = 0xC0;
    public static final int RDMAP_VERSION = 1;
    public static final int RDMAP_OPCODE_MASK = 0x0F;
    /** Soft-provider extension on Send: immediate data in the RsvdULP field. */
    public static final int RDMAP_FLAG_IMMEDIATE = 0x10;

    private ByteBuffer buffer;
    private int offset;

    /** Wraps the FPDU starting at {@code offset}; sets the buffer to big-endian. */
    public FpduHeader wrap(final ByteBuffer buffer, final int offset) {
        this.buffer = buffer.order(ByteOrder.BIG_ENDIAN);
        this.offset = offset;
        return this;
    }

    public int offset() {
        return offset;
    }

    /** The wrapped buffer. */
    public ByteBuffer buffer() {
        return buffer;
    }

    public int ulpduLength() {
        return buffer.getShort(offset) & 0xFFFF;
    }

    public FpduHeader ulpduLength(final int length) {
        buffer.putShort(offset, (short) length);
        return this;
    }

    public int ddpControl() {
        return buffer.get(offset + DDP_CONTROL_OFFSET) & 0xFF;
    }

    public int rdmapControl() {
        return buffer.get(offset + RDMAP_CONTROL_OFFSET) & 0xFF;
    }

    public boolean isTagged() {
        return (ddpControl() & DDP_TAGGED) != 0;
    }

    public boolean isLast() {
        return (ddpControl() & DDP_LAST) != 0;
    }

    public int ddpVersion() {
        return ddpControl() & DDP_VERSION_MASK;
    }

    public int rdmapVersion() {
        return (rdmapControl() & RDMAP_VERSION_MASK) >>> 6;
    }

    public int opcode() {
        return rdmapControl() & RDMAP_OPCODE_MASK;
    }

    /** Header length this FPDU's T bit implies. */
    public int headerLength() {
        return isTagged() ? TAGGED_LENGTH : UNTAGGED_LENGTH;
    }

    /** Writes both control bytes: T from the opcode, L from {@code last}, versions 1, extension flags. */
    public FpduHeader control(final int opcode, final boolean last, final int rdmapFlags) {
        final int ddp = (RdmapOpcode.isTagged(opcode) ? DDP_TAGGED : 0) | (last ? DDP_LAST : 0) | DDP_VERSION;
        buffer.put(offset + DDP_CONTROL_OFFSET, (byte) ddp);
        buffer.put(offset + RDMAP_CONTROL_OFFSET, (byte) (RDMAP_VERSION << 6 | rdmapFlags | opcode));
        return this;
    }

    public int stag() {
        return buffer.getInt(offset + STAG_OFFSET);
    }

    public long taggedOffset() {
        return buffer.getLong(offset + TAGGED_OFFSET_OFFSET);
    }

    public FpduHeader tagged(final int stag, final long taggedOffset) {
        buffer.putInt(offset + STAG_OFFSET, stag);
        buffer.putLong(offset + TAGGED_OFFSET_OFFSET, taggedOffset);
        return this;
    }

    /** The RsvdULP word of an untagged header: Invalidate STag, or immediate data (soft extension). */
    public int reservedUlp() {
        return buffer.getInt(offset + INVALIDATE_STAG_OFFSET);
    }

    public int queueNumber() {
        return buffer.getInt(offset + QN_OFFSET);
    }

    public int msn() {
        return buffer.getInt(offset + MSN_OFFSET);
    }

    public int messageOffset() {
        return buffer.getInt(offset + MO_OFFSET);
    }

    public FpduHeader untagged(final int reservedUlp, final int queueNumber, final int msn, final int messageOffset) {
        buffer.putInt(offset + INVALIDATE_STAG_OFFSET, reservedUlp);
        buffer.putInt(offset + QN_OFFSET, queueNumber);
        buffer.putInt(offset + MSN_OFFSET, msn);
        buffer.putInt(offset + MO_OFFSET, messageOffset);
        return this;
    }
}
