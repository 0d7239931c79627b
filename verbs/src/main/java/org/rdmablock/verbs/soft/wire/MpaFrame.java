package org.rdmablock.verbs.soft.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * An MPA Request or Reply frame (RFC 5044 §7.1), exchanged once on a new TCP connection before any FPDU, with
 * the RFC 6581 §5 enhanced-connection block (IRD, ORD, peer-to-peer and RTR flags) that revision 2 puts at the
 * start of the private data.
 *
 * <pre>
 *   0 Key (16): "MPA ID Req Frame" | "MPA ID Rep Frame"
 *  16 flags: M 0x80 markers | C 0x40 CRC | R 0x20 reject | E 0x10 enhanced (RFC 6581) | reserved
 *  17 Rev (1): 1 = RFC 5044, 2 = RFC 6581
 *  18 PD_Length (2): private data bytes that follow (rev 2 enhanced: including the 4-byte block)
 *  20 private data; rev 2 enhanced: 20 IRD word (2) | 22 ORD word (2) | 24 ULP private data
 *     IRD word: 0x8000 peer-to-peer | 0x4000 zero-length SEND RTR | 0x3FFF IRD
 *     ORD word: 0x8000 zero-length RDMA WRITE RTR | 0x4000 zero-length RDMA READ RTR | 0x3FFF ORD
 * </pre>
 */
public final class MpaFrame {
    public static final int KEY_OFFSET = 0;
    public static final int KEY_LENGTH = 16;
    public static final int FLAGS_OFFSET = 16;
    public static final int REVISION_OFFSET = 17;
    public static final int PD_LENGTH_OFFSET = 18;
    public static final int HEADER_LENGTH = 20;
    public static final int IRD_OFFSET = 20;
    public static final int ORD_OFFSET = 22;
    /** Size of the RFC 6581 block. */
    public static final int ENHANCED_LENGTH = 4;

    public static final int FLAG_MARKERS = 0x80;
    public static final int FLAG_CRC = 0x40;
    public static final int FLAG_REJECT = 0x20;
    public static final int FLAG_ENHANCED = 0x10;

    public static final int IRD_PEER_TO_PEER = 0x8000;
    public static final int IRD_RTR_ZERO_LENGTH_SEND = 0x4000;
    public static final int ORD_RTR_ZERO_LENGTH_WRITE = 0x8000;
    public static final int ORD_RTR_ZERO_LENGTH_READ = 0x4000;
    public static final int IRD_ORD_MASK = 0x3FFF;

    /**
     * Largest PD_Length accepted and sent: RFC 5044 allows 512, but Linux siw drops connections whose private
     * data exceeds 256 bytes, so the soft provider keeps to 256 (252 for the ULP after the RFC 6581 block).
     */
    public static final int MAX_PRIVATE_DATA = 256;

    public static final byte[] REQUEST_KEY = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);
    public static final byte[] REPLY_KEY = "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII);

    private ByteBuffer buffer;
    private int offset;

    /** Wraps {@code buffer} at {@code offset}; the buffer's byte order is set to big-endian. */
    public MpaFrame wrap(final ByteBuffer buffer, final int offset) {
        this.buffer = buffer.order(ByteOrder.BIG_ENDIAN);
        this.offset = offset;
        return this;
    }

    public MpaFrame key(final byte[] key) {
        buffer.put(offset + KEY_OFFSET, key, 0, KEY_LENGTH);
        return this;
    }

    /** Whether the key equals {@code key}. */
    public boolean hasKey(final byte[] key) {
        for (int i = 0; i < KEY_LENGTH; i++) {
            if (buffer.get(offset + KEY_OFFSET + i) != key[i]) {
                return false;
            }
        }
        return true;
    }

    public int flags() {
        return buffer.get(offset + FLAGS_OFFSET) & 0xFF;
    }

    public MpaFrame flags(final int flags) {
        buffer.put(offset + FLAGS_OFFSET, (byte) flags);
        return this;
    }

    public int revision() {
        return buffer.get(offset + REVISION_OFFSET) & 0xFF;
    }

    public MpaFrame revision(final int revision) {
        buffer.put(offset + REVISION_OFFSET, (byte) revision);
        return this;
    }

    public int privateDataLength() {
        return buffer.getShort(offset + PD_LENGTH_OFFSET) & 0xFFFF;
    }

    public MpaFrame privateDataLength(final int length) {
        buffer.putShort(offset + PD_LENGTH_OFFSET, (short) length);
        return this;
    }

    /** True for revision 2 with the enhanced flag: the private data starts with the IRD/ORD block. */
    public boolean isEnhanced() {
        return revision() == 2 && (flags() & FLAG_ENHANCED) != 0;
    }

    public int irdWord() {
        return buffer.getShort(offset + IRD_OFFSET) & 0xFFFF;
    }

    public MpaFrame irdWord(final int word) {
        buffer.putShort(offset + IRD_OFFSET, (short) word);
        return this;
    }

    public int ordWord() {
        return buffer.getShort(offset + ORD_OFFSET) & 0xFFFF;
    }

    public MpaFrame ordWord(final int word) {
        buffer.putShort(offset + ORD_OFFSET, (short) word);
        return this;
    }

    /** Offset, from the frame start, of the ULP's private data. */
    public int ulpDataOffset() {
        return HEADER_LENGTH + (isEnhanced() ? ENHANCED_LENGTH : 0);
    }

    /** Length of the ULP's private data (PD_Length without the RFC 6581 block). */
    public int ulpDataLength() {
        return privateDataLength() - (isEnhanced() ? ENHANCED_LENGTH : 0);
    }
}
