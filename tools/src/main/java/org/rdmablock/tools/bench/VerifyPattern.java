package org.rdmablock.tools.bench;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Locale;

/**
 * The data {@code --verify} writes: every logical block says which LBA it belongs to and which generation of writes
 * put it there, and every other byte of it follows from those two, so a read-back finds a block that is stale (an
 * older generation), misplaced (another LBA's) or damaged (any byte flipped).
 *
 * <pre>
 *  one logical block:  [ LBA (8 bytes) | MAGIC ^ generation (8 bytes) | word(LBA, generation, 2) | word(.., 3) | ... ]
 * </pre>
 *
 * <p>Words are in native byte order (the writer and the checker are the same program). Filling and checking allocate
 * nothing.
 */
public final class VerifyPattern {
    /** Marks a block the bench wrote: "RDBLKVFY" in ASCII, XORed with the generation. */
    static final long MAGIC = 0x5244_424C_4B56_4659L;
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED;

    private VerifyPattern() {
    }

    /** Fills {@code blocks} logical blocks of {@code blockSize} at {@code offset} of {@code buffer} as LBA {@code lba} on. */
    public static void fill(final MemorySegment buffer, final long offset, final long lba, final long blocks, final int blockSize,
                            final int generation) {
        final int words = blockSize / 8;
        for (long b = 0; b < blocks; b++) {
            final long at = offset + b * blockSize;
            final long blockLba = lba + b;
            buffer.set(WORD, at, blockLba);
            buffer.set(WORD, at + 8, MAGIC ^ generation);
            for (int w = 2; w < words; w++) {
                buffer.set(WORD, at + 8L * w, word(blockLba, generation, w));
            }
        }
    }

    /**
     * Where the first byte that differs from the pattern lies, as an offset from {@code offset}, or -1 when all
     * {@code blocks} blocks hold LBA {@code lba} on at {@code generation}.
     */
    public static long firstMismatch(final MemorySegment buffer, final long offset, final long lba, final long blocks,
                                     final int blockSize, final int generation) {
        final int words = blockSize / 8;
        for (long b = 0; b < blocks; b++) {
            final long at = offset + b * blockSize;
            final long blockLba = lba + b;
            for (int w = 0; w < words; w++) {
                final long expected = w == 0 ? blockLba : w == 1 ? MAGIC ^ generation : word(blockLba, generation, w);
                final long got = buffer.get(WORD, at + 8L * w);
                if (got != expected) {
                    return b * blockSize + 8L * w + firstDifferingByte(expected, got);
                }
            }
        }
        return -1;
    }

    /**
     * The mismatch {@link #firstMismatch} found, in words: the LBA and byte, what was expected and read, and what
     * the block holds if it is a block of the pattern at all (another LBA's, another generation's).
     */
    public static String describe(final MemorySegment buffer, final long offset, final long lba, final int blockSize,
                                  final int generation, final long mismatch) {
        final long block = mismatch / blockSize;
        final long blockAt = offset + block * blockSize;
        final int byteInBlock = (int) (mismatch % blockSize);
        final long wordAt = blockAt + byteInBlock / 8 * 8;
        final int w = byteInBlock / 8;
        final long blockLba = lba + block;
        final long expected = w == 0 ? blockLba : w == 1 ? MAGIC ^ generation : word(blockLba, generation, w);
        final long got = buffer.get(WORD, wordAt);
        final long heldLba = buffer.get(WORD, blockAt);
        final long heldMagic = buffer.get(WORD, blockAt + 8);
        final long heldGeneration = heldMagic ^ MAGIC;
        final String holds = heldGeneration >= 0 && heldGeneration <= Integer.MAX_VALUE
                ? String.format(Locale.ROOT, "the block's header says LBA %d, generation %d", heldLba, heldGeneration)
                : "the block's header is not the bench's pattern (never written by it, or overwritten)";
        return String.format(Locale.ROOT,
                "LBA %d, byte %d of the block: expected 0x%016x (generation %d), read 0x%016x in the word at byte %d; %s",
                blockLba, byteInBlock, expected, generation, got, w * 8, holds);
    }

    /** Word {@code index} (2 and on) of the block at {@code lba}, generation {@code generation}: a 64-bit mix. */
    static long word(final long lba, final int generation, final int index) {
        long x = lba * 0x9E37_79B9_7F4A_7C15L + ((long) generation << 32) + index * 0xC2B2_AE3D_27D4_EB4FL;
        x ^= x >>> 31;
        x *= 0xBF58_476D_1CE4_E5B9L;
        x ^= x >>> 29;
        return x;
    }

    /** Index in memory (0..7, native order) of the first byte where two words differ. */
    private static int firstDifferingByte(final long expected, final long got) {
        final long diff = expected ^ got;
        final int bit = java.nio.ByteOrder.nativeOrder() == java.nio.ByteOrder.LITTLE_ENDIAN
                ? Long.numberOfTrailingZeros(diff) : Long.numberOfLeadingZeros(diff);
        return bit / 8;
    }
}
