package org.rdmablock.protocol.nvme;

import org.rdmablock.protocol.Flyweight;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Base of the NVMe flyweights: a {@link Flyweight} with little-endian accessors (NVMe's wire order). Accessors do not check the structure's length: wrap only bytes the caller has checked to hold it (a
 * receive's byte count, a buffer it sized). Out-of-segment accesses fail with {@link IndexOutOfBoundsException}; they
 * never read foreign memory.
 */
public abstract class NvmeStructure<T extends NvmeStructure<T>> extends Flyweight<T> {
    static final ValueLayout.OfShort LE_SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfInt LE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfLong LE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    NvmeStructure() {
    }

    final int u8(final long at) {
        return Byte.toUnsignedInt(segment.get(ValueLayout.JAVA_BYTE, offset + at));
    }

    final void putU8(final long at, final int value) {
        segment.set(ValueLayout.JAVA_BYTE, offset + at, (byte) value);
    }

    final int u16(final long at) {
        return Short.toUnsignedInt(segment.get(LE_SHORT, offset + at));
    }

    final void putU16(final long at, final int value) {
        segment.set(LE_SHORT, offset + at, (short) value);
    }

    /** A 24-bit little-endian field (a keyed SGL descriptor's length). */
    final int u24(final long at) {
        return u8(at) | u8(at + 1) << 8 | u8(at + 2) << 16;
    }

    final void putU24(final long at, final int value) {
        putU8(at, value);
        putU8(at + 1, value >>> 8);
        putU8(at + 2, value >>> 16);
    }

    final long u32(final long at) {
        return Integer.toUnsignedLong(segment.get(LE_INT, offset + at));
    }

    final void put32(final long at, final long value) {
        segment.set(LE_INT, offset + at, (int) value);
    }

    final long u64(final long at) {
        return segment.get(LE_LONG, offset + at);
    }

    final void put64(final long at, final long value) {
        segment.set(LE_LONG, offset + at, value);
    }

    /** The ASCII text of a NUL-padded field of {@code length} bytes (an NQN), up to its first NUL. */
    final String text(final long at, final int length) {
        int end = 0;
        while (end < length && segment.get(ValueLayout.JAVA_BYTE, offset + at + end) != 0) {
            end++;
        }
        return new String(segment.asSlice(offset + at, end).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.US_ASCII);
    }

    /**
     * Writes {@code value} as ASCII into a field of {@code length} bytes, space-padded (Identify's serial number, model
     * and firmware revision), cut to the field.
     */
    final void putSpacePadded(final long at, final int length, final String value) {
        segment.asSlice(offset + at, length).fill((byte) ' ');
        final byte[] bytes = value.getBytes(StandardCharsets.US_ASCII);
        MemorySegment.copy(MemorySegment.ofArray(bytes), 0, segment, offset + at, Math.min(bytes.length, length));
    }

    /** The ASCII text of a space-padded field, its padding removed. */
    final String spacePadded(final long at, final int length) {
        return new String(segment.asSlice(offset + at, length).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.US_ASCII)
                .stripTrailing();
    }

    /**
     * Writes {@code value} as ASCII into a field of {@code length} bytes, NUL-padded.
     *
     * @throws IllegalArgumentException it does not fit with at least one NUL after it, or is not ASCII
     */
    final void putText(final long at, final int length, final String value) {
        final byte[] bytes = value.getBytes(StandardCharsets.US_ASCII);
        if (bytes.length >= length || !StandardCharsets.US_ASCII.newEncoder().canEncode(value)) {
            throw new IllegalArgumentException("not " + (length - 1) + " ASCII characters or fewer: " + value);
        }
        segment.asSlice(offset + at, length).fill((byte) 0);
        MemorySegment.copy(MemorySegment.ofArray(bytes), 0, segment, offset + at, bytes.length);
    }
}
