package org.rdmablock.target.core;

/**
 * Hands out contiguous runs of fixed-size chunks of one registered data region, first fit over a bitmap (one bit per
 * chunk, set when taken). Owned by the intake stage's thread alone (it takes and returns every run), so it needs no
 * lock and allocates nothing.
 *
 * <p>The pipeline uses 4 KiB chunks ({@link CommandPipeline#DATA_CHUNK_BYTES}): a 4 KiB command takes 4 KiB, and
 * every run starts on a 4096-byte boundary of the region, as O_DIRECT backends need. 64 MiB is 16384 chunks, 256
 * words of the bitmap, so {@link #take} works a word at a time: it finds the next free chunk with
 * {@link Long#numberOfTrailingZeros} on the inverted word, steps over whole free words while it measures a run, and
 * starts at a hint, the lowest word that can have a free chunk (every word below it is full), which keeps the search
 * first fit. Runs that do not fit wait in the caller's FIFO; the pool does nothing against starvation.
 */
final class DataBufferPool {
    private final long[] used;
    private final int chunks;
    private final int chunkShift;
    /** Bits of the last word past the last chunk: set for good, so that no run reaches them. */
    private final int padding;
    /** Every word below this one is full. */
    private int firstFreeWord;

    DataBufferPool(final long regionBytes, final int chunkBytes) {
        if (Integer.bitCount(chunkBytes) != 1) {
            throw new IllegalArgumentException("chunk size must be a power of two: " + chunkBytes);
        }
        this.chunkShift = Integer.numberOfTrailingZeros(chunkBytes);
        final long chunkCount = regionBytes >>> chunkShift;
        if (chunkCount > Integer.MAX_VALUE - 64) {
            throw new IllegalArgumentException("too many chunks: " + chunkCount);
        }
        this.chunks = (int) chunkCount;
        this.used = new long[(chunks + 63) >>> 6];
        this.padding = (used.length << 6) - chunks;
        if (padding > 0) {
            used[used.length - 1] = -1L << chunks; // the shift counts chunks % 64
        }
    }

    /** Chunks needed for {@code bytes} (at least one). */
    int chunksFor(final long bytes) {
        return (int) Math.max(1, (bytes + (1L << chunkShift) - 1) >>> chunkShift);
    }

    /** Byte offset of chunk {@code chunk} in the region. */
    long offset(final int chunk) {
        return (long) chunk << chunkShift;
    }

    /** Chunks in the region. */
    int capacity() {
        return chunks;
    }

    /** Takes {@code count} contiguous chunks, the lowest such run; returns the first, or -1 when no run that long is free. */
    int take(final int count) {
        if (count < 1) {
            throw new IllegalArgumentException("chunk count must be positive: " + count);
        }
        if (count > chunks) {
            return -1;
        }
        final long[] bits = used;
        int word = firstFreeWord;
        long free = word < bits.length ? ~bits[word] : 0;
        boolean lowestFree = true;
        while (true) {
            while (free == 0) {
                if (++word >= bits.length) {
                    if (lowestFree) {
                        firstFreeWord = bits.length;
                    }
                    return -1;
                }
                free = ~bits[word];
            }
            if (lowestFree) {
                firstFreeWord = word;
                lowestFree = false;
            }
            final int start = (word << 6) + Long.numberOfTrailingZeros(free);
            if (start > chunks - count) {
                return -1; // any run starts here or later
            }
            final int end = freeUntil(start, start + count);
            if (end - start == count) {
                mark(start, count, true);
                return start;
            }
            // end is taken: look again past it
            word = end >>> 6;
            free = ~bits[word] & (-1L << end);
        }
    }

    /** Gives back a run that {@link #take} returned. */
    void release(final int first, final int count) {
        assert first >= 0 && count >= 1 && first <= chunks - count && allTaken(first, count)
                : "not a taken run: " + first + " + " + count;
        mark(first, count, false);
        firstFreeWord = Math.min(firstFreeWord, first >>> 6);
    }

    /** Chunks in use, for tests and statistics (on another thread: a snapshot). */
    int inUse() {
        int n = 0;
        for (final long word : used) {
            n += Long.bitCount(word);
        }
        return n - padding;
    }

    /** The first taken chunk in [{@code start}, {@code limit}), or {@code limit} when none; {@code limit <= chunks}. */
    private int freeUntil(final int start, final int limit) {
        int word = start >>> 6;
        long taken = used[word] & (-1L << start);
        int base = word << 6;
        while (taken == 0) {
            base += 64;
            if (base >= limit) {
                return limit;
            }
            taken = used[++word]; // a whole free word is 64 chunks of the run at once
        }
        return Math.min(base + Long.numberOfTrailingZeros(taken), limit);
    }

    private boolean allTaken(final int first, final int count) {
        final int last = first + count - 1;
        final int firstWord = first >>> 6;
        final int lastWord = last >>> 6;
        final long head = -1L << first;
        final long tail = -1L >>> (63 - (last & 63));
        if (firstWord == lastWord) {
            return (used[firstWord] & head & tail) == (head & tail);
        }
        for (int w = firstWord + 1; w < lastWord; w++) {
            if (used[w] != -1L) {
                return false;
            }
        }
        return (used[firstWord] & head) == head && (used[lastWord] & tail) == tail;
    }

    private void mark(final int first, final int count, final boolean taken) {
        final int last = first + count - 1;
        final int firstWord = first >>> 6;
        final int lastWord = last >>> 6;
        final long head = -1L << first; // chunks first .. end of its word
        final long tail = -1L >>> (63 - (last & 63)); // start of last's word .. last
        if (firstWord == lastWord) {
            set(firstWord, head & tail, taken);
            return;
        }
        set(firstWord, head, taken);
        final long whole = taken ? -1L : 0L;
        for (int w = firstWord + 1; w < lastWord; w++) {
            used[w] = whole;
        }
        set(lastWord, tail, taken);
    }

    private void set(final int word, final long mask, final boolean taken) {
        if (taken) {
            used[word] |= mask;
        } else {
            used[word] &= ~mask;
        }
    }
}
