package org.rdmablock.target.core;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The data buffer pool: runs never overlap and stay inside the region, the lowest free run that fits is the one
 * handed out, a run that does not fit is refused, and the count of chunks in use follows every take and release.
 * The random test checks each step against a model of one boolean per chunk, searched chunk by chunk.
 */
class DataBufferPoolTest {
    private static final int CHUNK = 4096;

    @Test
    void theTargetsRegionHoldsSixteenThousandFourKibCommands() {
        final DataBufferPool pool = new DataBufferPool(DeviceResources.MIN_DATA_BYTES, CommandPipeline.DATA_CHUNK_BYTES);
        final int perCommand = pool.chunksFor(4096);
        assertEquals(1, perCommand, "a 4 KiB command takes one chunk");
        for (int i = 0; i < 16384; i++) {
            final int first = pool.take(perCommand);
            assertEquals(i, first, "command " + i);
            assertEquals(0, pool.offset(first) % 4096, "runs start on a 4096-byte boundary");
        }
        assertEquals(16384, pool.inUse());
        assertEquals(-1, pool.take(1), "the 16385th finds none");
    }

    @Test
    void chunksForRoundsUpAndOffsetsAreChunkMultiples() {
        final DataBufferPool pool = pool(64);
        assertEquals(1, pool.chunksFor(0));
        assertEquals(1, pool.chunksFor(1));
        assertEquals(1, pool.chunksFor(4096));
        assertEquals(2, pool.chunksFor(4097));
        assertEquals(16, pool.chunksFor(65536));
        assertEquals(256, pool.chunksFor(1 << 20));
        assertEquals(0, pool.offset(0));
        assertEquals(4096, pool.offset(1));
        assertEquals(16383L * 4096, pool.offset(16383));
        assertThrows(IllegalArgumentException.class, () -> new DataBufferPool(1 << 20, 3000));
    }

    @Test
    void aRunLongerThanTheRegionOrLongerThanAnyFreeRunIsRefused() {
        final DataBufferPool pool = pool(256);
        assertEquals(-1, pool.take(257));
        assertEquals(0, pool.inUse());
        // every other 16-chunk run taken: 128 chunks free, but no 17 of them together
        final int[] runs = new int[16];
        for (int i = 0; i < 16; i++) {
            runs[i] = pool.take(16);
            assertEquals(i * 16, runs[i]);
        }
        for (int i = 0; i < 16; i += 2) {
            pool.release(runs[i], 16);
        }
        assertEquals(128, pool.inUse());
        assertEquals(-1, pool.take(17), "128 chunks free, none 17 long");
        assertEquals(128, pool.inUse(), "a refused take takes nothing");
        assertEquals(0, pool.take(16), "the lowest 16-chunk hole");
        assertEquals(32, pool.take(16), "the next one");
    }

    @Test
    void runsCrossWordBoundaries() {
        final DataBufferPool pool = pool(512);
        assertEquals(0, pool.take(60));
        assertEquals(60, pool.take(10), "chunks 60 to 69 span the first and second word");
        assertEquals(70, pool.take(130), "chunks 70 to 199 span the second to fourth word");
        assertEquals(200, pool.take(1));
        assertEquals(201, pool.inUse());
        pool.release(60, 10);
        assertEquals(191, pool.inUse());
        assertEquals(201, pool.take(11), "an 11-chunk run goes past the 10-chunk hole");
        pool.release(201, 11);
        assertEquals(60, pool.take(10), "the hole across the boundary is whole again");
        assertEquals(-1, pool.take(512 - 201 + 1));
        assertEquals(201, pool.take(512 - 201), "the rest, to the end of the last word");
        assertEquals(512, pool.inUse());
        pool.release(70, 130);
        assertEquals(-1, pool.take(131));
        assertEquals(70, pool.take(130), "the 130-chunk hole across two boundaries fits 130");
    }

    @Test
    void aFullPoolGivesOutWhatIsReleasedAgain() {
        final DataBufferPool pool = pool(16384);
        for (int i = 0; i < 16384; i++) {
            assertEquals(i, pool.take(1));
        }
        assertEquals(-1, pool.take(1));
        pool.release(12345, 1);
        pool.release(64, 1);
        pool.release(16383, 1);
        assertEquals(16381, pool.inUse());
        assertEquals(64, pool.take(1), "lowest first");
        assertEquals(12345, pool.take(1));
        assertEquals(16383, pool.take(1), "the last chunk of the last word");
        assertEquals(-1, pool.take(1));
        for (int i = 1000; i < 1300; i++) {
            pool.release(i, 1);
        }
        assertEquals(-1, pool.take(301));
        assertEquals(1000, pool.take(300), "300 single releases make one run");
        assertEquals(16384, pool.inUse());
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 63, 64, 65, 100, 16384})
    void aRunOfTheWholeRegion(final int chunks) {
        final DataBufferPool pool = pool(chunks);
        assertEquals(chunks, pool.capacity());
        assertEquals(-1, pool.take(chunks + 1));
        assertEquals(0, pool.take(chunks));
        assertEquals(chunks, pool.inUse());
        assertEquals(-1, pool.take(1));
        pool.release(0, chunks);
        assertEquals(0, pool.inUse());
        assertEquals(0, pool.take(1));
        assertEquals(-1, pool.take(chunks), "one chunk taken: the whole region is not free");
        pool.release(0, 1);
        assertEquals(0, pool.take(chunks));
        pool.release(0, chunks);
        if (chunks > 1) {
            assertEquals(0, pool.take(chunks - 1));
            assertEquals(chunks - 1, pool.take(1), "the last chunk, right before the word's unused bits");
            assertEquals(-1, pool.take(1), "no chunk past the region");
        }
    }

    @Test
    void aRegionThatIsNotAWholeNumberOfChunksEndsAtItsLastWholeChunk() {
        final DataBufferPool pool = new DataBufferPool(10L * CHUNK + 100, CHUNK);
        assertEquals(10, pool.capacity());
        assertEquals(-1, pool.take(11));
        assertEquals(0, pool.take(10));
        assertEquals(10, pool.inUse());
    }

    @Test
    void aTakeOfNoChunksIsABug() {
        assertThrows(IllegalArgumentException.class, () -> pool(64).take(0));
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 70, 200, 1000, 16384})
    void randomTakesAndReleasesMatchAModelOfOneBooleanPerChunk(final int chunks) {
        final Random random = new Random(chunks * 31L + 7);
        final DataBufferPool pool = pool(chunks);
        final boolean[] taken = new boolean[chunks];
        final List<int[]> held = new ArrayList<>();
        int inUse = 0;
        int refused = 0;
        int longest = 0;
        for (int step = 0; step < 40_000; step++) {
            final boolean takes = held.isEmpty() || random.nextInt(100) < (inUse * 100 < chunks * 80 ? 60 : 40);
            if (takes) {
                final int count = count(random, chunks);
                final int expected = lowestFreeRun(taken, count);
                final int first = pool.take(count);
                assertEquals(expected, first, "step " + step + ": take(" + count + ") with " + inUse + " of " + chunks + " in use");
                if (first >= 0) {
                    for (int c = first; c < first + count; c++) {
                        assertTrue(!taken[c], "step " + step + ": chunk " + c + " handed out twice");
                        taken[c] = true;
                    }
                    held.add(new int[] {first, count});
                    inUse += count;
                    longest = Math.max(longest, count);
                } else {
                    refused++;
                }
            } else {
                final int[] run = held.remove(random.nextInt(held.size()));
                pool.release(run[0], run[1]);
                for (int c = run[0]; c < run[0] + run[1]; c++) {
                    taken[c] = false;
                }
                inUse -= run[1];
            }
            assertEquals(inUse, pool.inUse(), "step " + step);
        }
        assertTrue(refused > 0, "some takes found no run");
        assertTrue(chunks < 64 || longest > 64, "runs longer than a word were taken: " + longest);
    }

    /** Mostly short runs (4 KiB to 64 KiB commands), some long ones up to 1 MiB, a few as long as the region. */
    private static int count(final Random random, final int chunks) {
        final int kind = random.nextInt(100);
        final int count;
        if (kind < 60) {
            count = 1;
        } else if (kind < 90) {
            count = 1 + random.nextInt(16);
        } else if (kind < 99) {
            count = 1 + random.nextInt(256);
        } else {
            count = 1 + random.nextInt(chunks + 1); // may be one more than the region
        }
        return Math.min(count, chunks + 1);
    }

    /** The model's answer: the lowest start of {@code count} free chunks, found one chunk at a time, or -1. */
    private static int lowestFreeRun(final boolean[] taken, final int count) {
        int run = 0;
        for (int c = 0; c < taken.length; c++) {
            run = taken[c] ? 0 : run + 1;
            if (run == count) {
                return c - count + 1;
            }
        }
        return -1;
    }

    private static DataBufferPool pool(final int chunks) {
        return new DataBufferPool((long) chunks * CHUNK, CHUNK);
    }
}
