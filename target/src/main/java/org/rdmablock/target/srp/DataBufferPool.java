package org.rdmablock.target.srp;

/**
 * Hands out contiguous runs of fixed-size chunks of one registered data region, first fit over a bitmap. Owned by
 * the intake stage's thread alone (it takes and returns every run), so it needs no lock and allocates nothing.
 */
final class DataBufferPool {
    private final long[] used;
    private final int chunks;
    private final int chunkShift;

    DataBufferPool(final long regionBytes, final int chunkBytes) {
        if (Integer.bitCount(chunkBytes) != 1) {
            throw new IllegalArgumentException("chunk size must be a power of two: " + chunkBytes);
        }
        this.chunkShift = Integer.numberOfTrailingZeros(chunkBytes);
        this.chunks = (int) (regionBytes >>> chunkShift);
        this.used = new long[(chunks + 63) >>> 6];
    }

    /** Chunks needed for {@code bytes} (at least one). */
    int chunksFor(final long bytes) {
        return (int) Math.max(1, (bytes + (1L << chunkShift) - 1) >>> chunkShift);
    }

    /** Byte offset of chunk {@code chunk} in the region. */
    long offset(final int chunk) {
        return (long) chunk << chunkShift;
    }

    /** Takes {@code count} contiguous chunks; returns the first, or -1 when no run that long is free. */
    int take(final int count) {
        int run = 0;
        for (int chunk = 0; chunk < chunks; chunk++) {
            if ((used[chunk >>> 6] & (1L << chunk)) != 0) {
                run = 0;
                continue;
            }
            if (++run == count) {
                final int first = chunk - count + 1;
                mark(first, count, true);
                return first;
            }
        }
        return -1;
    }

    void release(final int first, final int count) {
        mark(first, count, false);
    }

    /** Chunks in use, for tests and statistics. */
    int inUse() {
        int n = 0;
        for (final long word : used) {
            n += Long.bitCount(word);
        }
        return n;
    }

    private void mark(final int first, final int count, final boolean taken) {
        for (int chunk = first; chunk < first + count; chunk++) {
            if (taken) {
                used[chunk >>> 6] |= 1L << chunk;
            } else {
                used[chunk >>> 6] &= ~(1L << chunk);
            }
        }
    }
}
