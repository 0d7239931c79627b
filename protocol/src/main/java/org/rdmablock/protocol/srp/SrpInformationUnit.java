package org.rdmablock.protocol.srp;

import org.rdmablock.protocol.Flyweight;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Base of the SRP information-unit flyweights: a window on {@code segment} at {@code offset} with the two
 * fields every IU shares, the opcode at byte 0 and the opaque tag at byte 8 (both in every struct of
 * Linux {@code include/scsi/srp.h} except {@code srp_login_req_rdma}, which overrides them).
 *
 * <p>Accessors do not check the IU length: wrap only bytes that a {@code validate} method or
 * {@link SrpIuDecoder} accepted, or a buffer the caller sized for encoding. Out-of-segment accesses still
 * fail with {@link IndexOutOfBoundsException}; they never read foreign memory.
 */
public abstract class SrpInformationUnit<T extends SrpInformationUnit<T>> extends Flyweight<T> {
    /** Offset of the IU type code. */
    public static final int OPCODE_OFFSET = 0;
    /** Offset of the 8-byte opaque tag. */
    public static final int TAG_OFFSET = 8;
    /** Bytes of an IU up to the end of its tag: a shorter one cannot be answered by tag. */
    public static final int TAG_END = TAG_OFFSET + Long.BYTES;

    static final ValueLayout.OfShort BE_SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfInt BE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfLong BE_LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    /** The tag is opaque: native order makes a read-then-write an exact byte copy. */
    static final ValueLayout.OfLong TAG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.nativeOrder());
    /** Source of {@link #clear}: as many zeroes as the longest fixed part of an IU (SRP_LOGIN_REQ's 64 bytes). */

    SrpInformationUnit() {
    }

    /** The IU type code (see {@link SrpOpcode}). */
    public int opcode() {
        return u8(OPCODE_OFFSET);
    }

    /** The opaque tag, as a native-order long (see the package documentation). */
    public long tag() {
        return segment.get(TAG, offset + TAG_OFFSET);
    }

    /** Sets the opaque tag; {@code setTag(request.tag())} echoes the request's bytes. */
    public T setTag(long tag) {
        segment.set(TAG, offset + TAG_OFFSET, tag);
        return self();
    }

    final int u8(long at) {
        return Byte.toUnsignedInt(segment.get(ValueLayout.JAVA_BYTE, offset + at));
    }

    final void putU8(long at, int value) {
        segment.set(ValueLayout.JAVA_BYTE, offset + at, (byte) value);
    }

    final int u16(long at) {
        return Short.toUnsignedInt(segment.get(BE_SHORT, offset + at));
    }

    final void putU16(long at, int value) {
        segment.set(BE_SHORT, offset + at, (short) value);
    }

    final int s32(long at) {
        return segment.get(BE_INT, offset + at);
    }

    final long u32(long at) {
        return Integer.toUnsignedLong(segment.get(BE_INT, offset + at));
    }

    final void put32(long at, long value) {
        segment.set(BE_INT, offset + at, (int) value);
    }

    final long s64(long at) {
        return segment.get(BE_LONG, offset + at);
    }

    final void put64(long at, long value) {
        segment.set(BE_LONG, offset + at, value);
    }

    final void getBytes(long at, byte[] dst) {
        MemorySegment.copy(segment, ValueLayout.JAVA_BYTE, offset + at, dst, 0, dst.length);
    }

    final void putBytes(long at, byte[] src, int length) {
        if (src.length != length) {
            throw new IllegalArgumentException("expected " + length + " bytes, got " + src.length);
        }
        MemorySegment.copy(src, 0, segment, ValueLayout.JAVA_BYTE, offset + at, length);
    }

    /** Common prefix of the {@code validate} methods: the bytes exist, are long enough and carry {@code opcode}. */
    final SrpDecodeError checkFixed(long length, int fixedLength, int expectedOpcode) {
        if (length < 0 || offset < 0 || offset > segment.byteSize() || length > segment.byteSize() - offset) {
            return SrpDecodeError.OUTSIDE_BUFFER;
        }
        if (length < fixedLength) {
            return SrpDecodeError.TOO_SHORT;
        }
        if (opcode() != expectedOpcode) { // where the opcode lies is the subclass's (the rdma_cm login form)
            return SrpDecodeError.WRONG_OPCODE;
        }
        return SrpDecodeError.NONE;
    }
}
