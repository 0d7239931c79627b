package org.rdmablock.protocol.srp;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;

/**
 * A hand-built expected wire image: fields put at explicit offsets with {@link ByteBuffer} (big-endian,
 * the tag in native order), independent of the codecs under test.
 */
final class ByteImage {
    private final ByteBuffer bytes;

    ByteImage(int length) {
        bytes = ByteBuffer.allocate(length).order(ByteOrder.BIG_ENDIAN);
    }

    ByteImage u8(int offset, int value) {
        bytes.put(offset, (byte) value);
        return this;
    }

    ByteImage be16(int offset, int value) {
        bytes.putShort(offset, (short) value);
        return this;
    }

    ByteImage be32(int offset, long value) {
        bytes.putInt(offset, (int) value);
        return this;
    }

    ByteImage be64(int offset, long value) {
        bytes.putLong(offset, value);
        return this;
    }

    ByteImage tag(int offset, long value) {
        bytes.duplicate().order(ByteOrder.nativeOrder()).putLong(offset, value);
        return this;
    }

    ByteImage bytes(int offset, byte[] value) {
        bytes.put(offset, value);
        return this;
    }

    byte[] toArray() {
        return bytes.array().clone();
    }

    MemorySegment segment() {
        return MemorySegment.ofArray(toArray());
    }

    static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }

    /** A segment of {@code length} bytes filled with 0xA5, to show that encoders write every byte. */
    static MemorySegment dirty(int length) {
        MemorySegment s = MemorySegment.ofArray(new byte[length]);
        s.fill((byte) 0xA5);
        return s;
    }
}
