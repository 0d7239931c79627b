package org.rdmablock.tools.verify;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The block the soak and the power-cut writers write, and the rule their reads are checked by. A block holds its LBA
 * at {@link #LBA_OFFSET}, its generation (rising with each write of that block) at {@link #GENERATION_OFFSET}, and
 * both folded together in its last word, so that a torn or misplaced block shows; the rest is zero. Little-endian, as
 * the writers' machines are; the reader is the same tool, never another program.
 *
 * <p>The rule: a block read back must be whole and its own, and hold a generation no older than the oldest it may
 * hold (the last acknowledged, or the last the durability rules make durable) and no newer than the last sent (a
 * write that failed may or may not have reached the LUN). A block never written reads as zeros, which is fine only
 * while nothing it held had to survive.
 */
public final class VerifiedBlock {
    public static final int LBA_OFFSET = 0;
    public static final int GENERATION_OFFSET = 8;
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.LITTLE_ENDIAN);

    private VerifiedBlock() {
    }

    /** Fills {@code blockSize} bytes of {@code buffer} as block {@code lba} at {@code generation}. */
    public static void fill(final MemorySegment buffer, final int blockSize, final long lba, final long generation) {
        buffer.asSlice(0, blockSize).fill((byte) 0);
        buffer.set(WORD, LBA_OFFSET, lba);
        buffer.set(WORD, GENERATION_OFFSET, generation);
        buffer.set(WORD, foldedOffset(blockSize), generation ^ lba);
    }

    /**
     * Checks block {@code lba} as read into {@code buffer} against the rule; null when it keeps it, else what is wrong
     * in words.
     *
     * @param oldest the oldest generation it may hold (0: it may still be unwritten)
     * @param newest the newest generation sent to it
     * @param lost   what {@code oldest} is, for the message: "acknowledged" or "durable"
     */
    public static String check(final MemorySegment buffer, final int blockSize, final long lba, final long oldest,
                               final long newest, final String lost) {
        final long seenLba = buffer.get(WORD, LBA_OFFSET);
        final long generation = buffer.get(WORD, GENERATION_OFFSET);
        final long folded = buffer.get(WORD, foldedOffset(blockSize));
        if (seenLba == 0 && generation == 0 && folded == 0) {
            return oldest == 0 ? null : "block " + lba + " is empty, " + lost + " generation " + oldest + " lost";
        }
        if (seenLba != lba || folded != (generation ^ lba)) {
            return "block " + lba + " is not whole or not its own (LBA " + seenLba + ", generation " + generation + ")";
        }
        if (generation < oldest) {
            return "block " + lba + " holds generation " + generation + ", " + lost + " generation " + oldest + " lost";
        }
        if (generation > newest) {
            return "block " + lba + " holds generation " + generation + ", never sent (last sent " + newest + ")";
        }
        return null;
    }

    private static long foldedOffset(final int blockSize) {
        return blockSize - Long.BYTES;
    }
}
