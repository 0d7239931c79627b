package org.rdmablock.target.backend.crash;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * What a crash-test writer writes, derived from a seed so that the checking side can recompute it instead of being
 * told: writer {@code w} owns the blocks whose number modulo {@code writers} is {@code w}, and its write number
 * {@code seq} (0, 1, 2, … in order, one at a time) goes to {@link #blockOf(int, long)}. A block written by write
 * {@code seq} holds {@link #fill its version}: every 512-byte sector starts with (block, seq, sector index) and goes on
 * with bytes derived from them and the seed, so that each sector says which write it came from and any torn or stray
 * byte shows. A sector of zeroes was never written. Immutable; any thread.
 *
 * @param seed       varies the schedule and the contents between trials
 * @param writers    writer threads (or initiators), each with its own blocks
 * @param blocks     blocks written to, from block 0; a multiple of {@code writers}
 * @param blockSize  bytes per block, a multiple of {@link #SECTOR_BYTES}
 */
public record WriteSchedule(long seed, int writers, int blocks, int blockSize) {
    /** The unit a block's version is checked in: a torn write can mix versions at this granularity at most. */
    public static final int SECTOR_BYTES = 512;
    private static final int HEADER_LONGS = 3;

    public WriteSchedule {
        if (writers <= 0 || blocks <= 0 || blocks % writers != 0 || blockSize <= 0 || blockSize % SECTOR_BYTES != 0) {
            throw new IllegalArgumentException("writers " + writers + ", blocks " + blocks + ", block size " + blockSize);
        }
    }

    /** The writer that owns {@code block}. */
    public int writerOf(long block) {
        return (int) (block % writers);
    }

    /** The block that writer {@code writer}'s write number {@code seq} goes to. */
    public long blockOf(int writer, long seq) {
        long owned = blocks / writers;
        return Long.remainderUnsigned(mix(seed ^ mix(writer * 0x632BE59BD9B4E019L + seq)), owned) * writers + writer;
    }

    /** Writes the version of {@code block} that write {@code seq} puts there into {@code buffer} at {@code offset}. */
    public void fill(MemorySegment buffer, long offset, long block, long seq) {
        for (int sector = 0; sector < blockSize / SECTOR_BYTES; sector++) {
            long at = offset + (long) sector * SECTOR_BYTES;
            for (int i = 0; i < SECTOR_BYTES / Long.BYTES; i++) {
                buffer.set(ValueLayout.JAVA_LONG_UNALIGNED, at + (long) i * Long.BYTES, word(block, seq, sector, i));
            }
        }
    }

    /**
     * Which write the sector {@code sector} of {@code block}, read into {@code buffer} at {@code offset}, came from: its
     * seq, {@link #NEVER_WRITTEN} for zeroes, or {@link #CORRUPT} when it is no version of this block's sector at all.
     */
    public long sectorVersion(MemorySegment buffer, long offset, long block, int sector) {
        long at = offset + (long) sector * SECTOR_BYTES;
        long seq = buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, at + Long.BYTES);
        boolean zero = true;
        boolean matches = true;
        for (int i = 0; i < SECTOR_BYTES / Long.BYTES; i++) {
            long word = buffer.get(ValueLayout.JAVA_LONG_UNALIGNED, at + (long) i * Long.BYTES);
            zero &= word == 0;
            matches &= word == word(block, seq, sector, i);
        }
        return zero ? NEVER_WRITTEN : matches ? seq : CORRUPT;
    }

    /** {@link #sectorVersion} of a sector of zeroes. */
    public static final long NEVER_WRITTEN = -1;
    /** {@link #sectorVersion} of a sector that is no version at all. */
    public static final long CORRUPT = -2;

    private long word(long block, long seq, int sector, int index) {
        return switch (index) {
            case 0 -> block;
            case 1 -> seq;
            case 2 -> sector;
            default -> mix(seed + mix(block * 0x9E3779B97F4A7C15L + seq) + sector * 0xBF58476D1CE4E5B9L + index - HEADER_LONGS);
        };
    }

    /** SplitMix64's finaliser: a well-spread 64-bit hash. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
