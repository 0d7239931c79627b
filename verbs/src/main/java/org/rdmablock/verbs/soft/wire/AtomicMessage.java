package org.rdmablock.verbs.soft.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The RDMAP headers of an Atomic Request and an Atomic Response (RFC 7306 §5.2 and §5.3), after the untagged
 * header on queue 3, and of an Immediate Data message (RFC 7306 §5.1) on queue 0. Offsets are from the FPDU
 * start.
 *
 * <pre>
 * Atomic Request (52 bytes):  20 reserved (28 bits) | atomic opcode (4 bits): 0 FetchAdd, 2 CmpSwap
 *   24 Request Identifier (4) | 28 Remote STag (4) | 32 Remote Tagged Offset (8) | 40 Add or Swap Data (8) |
 *   48 Add or Swap Mask (8) | 56 Compare Data (8) | 64 Compare Mask (8) | 72 end
 * Atomic Response (12 bytes): 20 Original Request Identifier (4) | 24 Original Remote Data Value (8) | 32 end
 * Immediate Data (8 bytes):   20 immediate data (8): the verbs 32-bit value in the first 4 bytes, then zero
 * </pre>
 */
public final class AtomicMessage {
    public static final int REQUEST_OPCODE_OFFSET = 20;
    public static final int REQUEST_ID_OFFSET = 24;
    public static final int REMOTE_STAG_OFFSET = 28;
    public static final int REMOTE_TO_OFFSET = 32;
    public static final int ADD_SWAP_DATA_OFFSET = 40;
    public static final int ADD_SWAP_MASK_OFFSET = 48;
    public static final int COMPARE_DATA_OFFSET = 56;
    public static final int COMPARE_MASK_OFFSET = 64;
    public static final int REQUEST_LENGTH = 52;

    public static final int RESPONSE_REQUEST_ID_OFFSET = 20;
    public static final int RESPONSE_VALUE_OFFSET = 24;
    public static final int RESPONSE_LENGTH = 12;

    public static final int IMMEDIATE_OFFSET = 20;
    public static final int IMMEDIATE_LENGTH = 8;

    public static final int FETCH_ADD = 0x0;
    public static final int COMPARE_SWAP = 0x2;

    private ByteBuffer buffer;
    private int offset;

    public AtomicMessage wrap(final ByteBuffer buffer, final int offset) {
        this.buffer = buffer.order(ByteOrder.BIG_ENDIAN);
        this.offset = offset;
        return this;
    }

    public int atomicOpcode() {
        return buffer.getInt(offset + REQUEST_OPCODE_OFFSET) & 0xF;
    }

    public int requestId() {
        return buffer.getInt(offset + REQUEST_ID_OFFSET);
    }

    public int remoteStag() {
        return buffer.getInt(offset + REMOTE_STAG_OFFSET);
    }

    public long remoteOffset() {
        return buffer.getLong(offset + REMOTE_TO_OFFSET);
    }

    public long addOrSwapData() {
        return buffer.getLong(offset + ADD_SWAP_DATA_OFFSET);
    }

    public long addOrSwapMask() {
        return buffer.getLong(offset + ADD_SWAP_MASK_OFFSET);
    }

    public long compareData() {
        return buffer.getLong(offset + COMPARE_DATA_OFFSET);
    }

    public long compareMask() {
        return buffer.getLong(offset + COMPARE_MASK_OFFSET);
    }

    /** Writes a request with full masks (plain, unmasked atomics). */
    public AtomicMessage request(final int atomicOpcode, final int requestId, final int stag, final long taggedOffset,
                                 final long addOrSwap, final long compare) {
        buffer.putInt(offset + REQUEST_OPCODE_OFFSET, atomicOpcode & 0xF);
        buffer.putInt(offset + REQUEST_ID_OFFSET, requestId);
        buffer.putInt(offset + REMOTE_STAG_OFFSET, stag);
        buffer.putLong(offset + REMOTE_TO_OFFSET, taggedOffset);
        buffer.putLong(offset + ADD_SWAP_DATA_OFFSET, addOrSwap);
        buffer.putLong(offset + ADD_SWAP_MASK_OFFSET, -1L);
        buffer.putLong(offset + COMPARE_DATA_OFFSET, compare);
        buffer.putLong(offset + COMPARE_MASK_OFFSET, -1L);
        return this;
    }

    public int responseRequestId() {
        return buffer.getInt(offset + RESPONSE_REQUEST_ID_OFFSET);
    }

    public long responseValue() {
        return buffer.getLong(offset + RESPONSE_VALUE_OFFSET);
    }

    public AtomicMessage response(final int requestId, final long originalValue) {
        buffer.putInt(offset + RESPONSE_REQUEST_ID_OFFSET, requestId);
        buffer.putLong(offset + RESPONSE_VALUE_OFFSET, originalValue);
        return this;
    }

    public int immediate() {
        return buffer.getInt(offset + IMMEDIATE_OFFSET);
    }

    public AtomicMessage immediate(final int value) {
        buffer.putInt(offset + IMMEDIATE_OFFSET, value);
        buffer.putInt(offset + IMMEDIATE_OFFSET + 4, 0);
        return this;
    }
}
