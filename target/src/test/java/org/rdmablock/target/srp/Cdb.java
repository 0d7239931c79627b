package org.rdmablock.target.srp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Builds a CDB for the end-to-end tests: {@code Cdb.of(10, 0x28).u8(1, 0x08).u32(2, lba).u16(7, blocks).bytes()},
 * fields big-endian at the byte offsets SBC and SPC give.
 */
final class Cdb {
    private static final ValueLayout.OfShort BE_SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong BE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final byte[] bytes;
    private final MemorySegment segment;

    private Cdb(final int length) {
        bytes = new byte[length];
        segment = MemorySegment.ofArray(bytes);
    }

    /** A zeroed CDB of {@code length} bytes with {@code opcode} in byte 0. */
    static Cdb of(final int length, final int opcode) {
        return new Cdb(length).u8(0, opcode);
    }

    Cdb u8(final int at, final int value) {
        bytes[at] = (byte) value;
        return this;
    }

    Cdb u16(final int at, final int value) {
        segment.set(BE_SHORT, at, (short) value);
        return this;
    }

    Cdb u32(final int at, final long value) {
        segment.set(BE_INT, at, (int) value);
        return this;
    }

    Cdb u64(final int at, final long value) {
        segment.set(BE_LONG, at, value);
        return this;
    }

    byte[] bytes() {
        return bytes.clone();
    }
}
