package org.rdmablock.verbs.soft.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * Framing of an MPA FPDU without markers (RFC 5044 §4.2).
 *
 * <pre>
 *   0 ULPDU_Length (2, big-endian): bytes of the DDP segment that follows
 *   2 ULPDU: the DDP segment (DDP header, RDMAP header, payload)
 *     PAD (0..3 zero bytes): makes 2 + ULPDU_Length + PAD a multiple of 4
 *     CRC (4): CRC32c (RFC 3385 / iSCSI) over ULPDU_Length, ULPDU and PAD; on the wire the CRC value's
 *              least significant byte first, as Linux siw and the iSCSI digest write it (4 zero bytes when CRC
 *              is off)
 * </pre>
 */
public final class Fpdu {
    public static final int LENGTH_OFFSET = 0;
    public static final int LENGTH_SIZE = 2;
    public static final int CRC_SIZE = 4;
    /** Largest ULPDU_Length. */
    public static final int MAX_ULPDU = 0xFFFF;

    private Fpdu() {
    }

    /** PAD bytes after a ULPDU of {@code ulpduLength} bytes. */
    public static int padLength(final int ulpduLength) {
        return -(LENGTH_SIZE + ulpduLength) & 3;
    }

    /** Bytes of a whole FPDU carrying a ULPDU of {@code ulpduLength} bytes. */
    public static int totalLength(final int ulpduLength) {
        return LENGTH_SIZE + ulpduLength + padLength(ulpduLength) + CRC_SIZE;
    }

    public static int ulpduLength(final ByteBuffer buffer, final int offset) {
        return buffer.order(ByteOrder.BIG_ENDIAN).getShort(offset + LENGTH_OFFSET) & 0xFFFF;
    }

    public static void ulpduLength(final ByteBuffer buffer, final int offset, final int length) {
        buffer.order(ByteOrder.BIG_ENDIAN).putShort(offset + LENGTH_OFFSET, (short) length);
    }

    /** Writes the CRC trailer value in wire order (least significant byte first). */
    public static void putCrc(final ByteBuffer buffer, final int offset, final int crc) {
        buffer.put(offset, (byte) crc);
        buffer.put(offset + 1, (byte) (crc >>> 8));
        buffer.put(offset + 2, (byte) (crc >>> 16));
        buffer.put(offset + 3, (byte) (crc >>> 24));
    }

    /**
     * Adds {@code length} bytes of {@code buffer} from {@code offset} to {@code crc}; leaves the buffer cleared
     * (position 0, limit at capacity), as the staging buffers that use it expect.
     */
    public static void updateCrc(final CRC32C crc, final ByteBuffer buffer, final int offset, final int length) {
        buffer.limit(offset + length).position(offset);
        crc.update(buffer);
        buffer.clear();
    }

    /**
     * Computes the CRC of a whole FPDU that fills {@code fpdu} (from 0 to its capacity, the trailer last) and writes it
     * into the trailer, with {@code crc} reset first; for frames built one at a time (scripted peers in tests).
     */
    public static void seal(final CRC32C crc, final ByteBuffer fpdu) {
        final int crcOffset = fpdu.capacity() - CRC_SIZE;
        crc.reset();
        updateCrc(crc, fpdu, 0, crcOffset);
        putCrc(fpdu, crcOffset, (int) crc.getValue());
    }

    /** Reads a CRC trailer in wire order. */
    public static int getCrc(final ByteBuffer buffer, final int offset) {
        return (buffer.get(offset) & 0xFF) | (buffer.get(offset + 1) & 0xFF) << 8
            | (buffer.get(offset + 2) & 0xFF) << 16 | (buffer.get(offset + 3) & 0xFF) << 24;
    }
}
