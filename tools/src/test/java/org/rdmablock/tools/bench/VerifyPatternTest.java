package org.rdmablock.tools.bench;

import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The verify pattern tells a right block from a stale, misplaced or damaged one; sizes and durations parse as fio's. */
class VerifyPatternTest {
    @Test
    void aBlockMatchesOnlyItsOwnLbaAndGeneration() {
        try (Arena arena = Arena.ofConfined()) {
            final MemorySegment data = arena.allocate(8 * 512);
            VerifyPattern.fill(data, 0, 1000, 8, 512, 7);
            assertEquals(-1, VerifyPattern.firstMismatch(data, 0, 1000, 8, 512, 7));

            final long stale = VerifyPattern.firstMismatch(data, 0, 1000, 8, 512, 8);
            assertEquals(8, stale, "an older generation differs in the header's second word");
            assertTrue(VerifyPattern.describe(data, 0, 1000, 512, 8, stale).contains("header says LBA 1000, generation 7"));

            final long misplaced = VerifyPattern.firstMismatch(data, 512, 1000, 7, 512, 7);
            assertEquals(0, misplaced, "LBA 1001's block checked as LBA 1000's");
            assertTrue(VerifyPattern.describe(data, 512, 1000, 512, 7, misplaced).contains("header says LBA 1001"));

            for (final long at : new long[] {17, 511, 3 * 512 + 200, 8 * 512 - 1}) {
                final byte b = data.get(ValueLayout.JAVA_BYTE, at);
                data.set(ValueLayout.JAVA_BYTE, at, (byte) (b ^ 1));
                assertEquals(at, VerifyPattern.firstMismatch(data, 0, 1000, 8, 512, 7), "byte " + at);
                data.set(ValueLayout.JAVA_BYTE, at, b);
            }
            assertTrue(VerifyPattern.describe(MemorySegment.ofArray(new byte[512]), 0, 5, 512, 1, 0)
                    .contains("not the bench's pattern"));
        }
    }

    @Test
    void sizesAreFormattedInTheirLargestWholeUnit() {
        assertEquals("4KiB", Units.formatSize(4096));
        assertEquals("1536B", Units.formatSize(1536));
    }
}
