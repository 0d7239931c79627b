package org.rdmablock.verbs.soft.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The RDMAP header of an RDMA Read Request (RFC 5040 §4.4), after the untagged header on queue 1. "Sink" is the
 * requester's buffer that the Read Response is tagged to; "source" is the responder's buffer. Offsets are from
 * the FPDU start.
 *
 * <pre>
 *  20 Data Sink STag (4) | 24 Data Sink Tagged Offset (8) | 32 RDMA Read Message Size (4) |
 *  36 Data Source STag (4) | 40 Data Source Tagged Offset (8) | 48 end (ULPDU_Length 46)
 * </pre>
 */
public final class ReadRequest {
    public static final int SINK_STAG_OFFSET = 20;
    public static final int SINK_TO_OFFSET = 24;
    public static final int SIZE_OFFSET = 32;
    public static final int SOURCE_STAG_OFFSET = 36;
    public static final int SOURCE_TO_OFFSET = 40;
    /** Bytes of the RDMAP Read Request header. */
    public static final int HEADER_LENGTH = 28;
    public static final int FPDU_HEADER_LENGTH = FpduHeader.UNTAGGED_LENGTH + HEADER_LENGTH;

    private ByteBuffer buffer;
    private int offset;

    public ReadRequest wrap(final ByteBuffer buffer, final int offset) {
        this.buffer = buffer.order(ByteOrder.BIG_ENDIAN);
        this.offset = offset;
        return this;
    }

    public int sinkStag() {
        return buffer.getInt(offset + SINK_STAG_OFFSET);
    }

    public long sinkOffset() {
        return buffer.getLong(offset + SINK_TO_OFFSET);
    }

    public int size() {
        return buffer.getInt(offset + SIZE_OFFSET);
    }

    public int sourceStag() {
        return buffer.getInt(offset + SOURCE_STAG_OFFSET);
    }

    public long sourceOffset() {
        return buffer.getLong(offset + SOURCE_TO_OFFSET);
    }

    public ReadRequest set(final int sinkStag, final long sinkOffset, final int size, final int sourceStag, final long sourceOffset) {
        buffer.putInt(offset + SINK_STAG_OFFSET, sinkStag);
        buffer.putLong(offset + SINK_TO_OFFSET, sinkOffset);
        buffer.putInt(offset + SIZE_OFFSET, size);
        buffer.putInt(offset + SOURCE_STAG_OFFSET, sourceStag);
        buffer.putLong(offset + SOURCE_TO_OFFSET, sourceOffset);
        return this;
    }
}
