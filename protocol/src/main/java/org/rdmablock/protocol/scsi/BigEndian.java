package org.rdmablock.protocol.scsi;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** Big-endian field access for building and parsing SCSI parameter data in a segment. */
final class BigEndian {
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private BigEndian() {
    }

    static void put8(MemorySegment dst, long at, int value) {
        dst.set(ValueLayout.JAVA_BYTE, at, (byte) value);
    }

    static void put16(MemorySegment dst, long at, int value) {
        dst.set(SHORT, at, (short) value);
    }

    static void put32(MemorySegment dst, long at, long value) {
        dst.set(INT, at, (int) value);
    }

    static void put64(MemorySegment dst, long at, long value) {
        dst.set(LONG, at, value);
    }

    /** Writes {@code text} space-padded to {@code width} bytes (INQUIRY's fixed ASCII fields). */
    static void putAscii(MemorySegment dst, long at, String text, int width) {
        for (int i = 0; i < width; i++) {
            put8(dst, at + i, i < text.length() ? text.charAt(i) : ' ');
        }
    }

    static int get8(MemorySegment src, long at) {
        return Byte.toUnsignedInt(src.get(ValueLayout.JAVA_BYTE, at));
    }

    static int get16(MemorySegment src, long at) {
        return Short.toUnsignedInt(src.get(SHORT, at));
    }

    static long get32(MemorySegment src, long at) {
        return Integer.toUnsignedLong(src.get(INT, at));
    }

    static long get64(MemorySegment src, long at) {
        return src.get(LONG, at);
    }
}
