package org.rdmablock.target.backend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import org.rdmablock.protocol.scsi.BackendStatus;
import org.rdmablock.protocol.scsi.BlockBackend;

/**
 * What a device should hold after the writes and unmaps a test made, kept in a byte array; compared with what the
 * backend reads back, the whole device at once, so that a write landing in the wrong place is caught too.
 */
final class DeviceModel {
    private final byte[] bytes;

    DeviceModel(long sizeBytes) {
        this.bytes = new byte[Math.toIntExact(sizeBytes)];
    }

    /** Fills {@code length} bytes of {@code buffer} with a pattern that differs for every seed and every offset. */
    static void fillPattern(MemorySegment buffer, long offset, long length, long seed) {
        long state = seed * 0x9E3779B97F4A7C15L + 1;
        for (long i = 0; i < length; i++) {
            if ((i & 7) == 0) {
                state ^= state << 13;
                state ^= state >>> 7;
                state ^= state << 17;
            }
            buffer.set(ValueLayout.JAVA_BYTE, offset + i, (byte) (state >>> ((i & 7) * 8)));
        }
    }

    /** Records a write of {@code length} bytes from {@code buffer} at device offset {@code deviceOffset}. */
    void write(long deviceOffset, MemorySegment buffer, long bufferOffset, int length) {
        MemorySegment.copy(buffer, ValueLayout.JAVA_BYTE, bufferOffset, bytes, (int) deviceOffset, length);
    }

    /** Records an unmap: the range reads as zeroes. */
    void unmap(long deviceOffset, long length) {
        Arrays.fill(bytes, (int) deviceOffset, (int) (deviceOffset + length), (byte) 0);
    }

    /** Copies from {@code other} the blocks whose number modulo {@code stride} is {@code remainder}. */
    void takeBlocks(DeviceModel other, int blockSize, int remainder, int stride) {
        for (int at = remainder * blockSize; at < bytes.length; at += stride * blockSize) {
            System.arraycopy(other.bytes, at, bytes, at, blockSize);
        }
    }

    /**
     * Reads the whole device through {@code scratch} (1 MiB at a time, dirtied first so that a read that writes nothing
     * is caught) and fails at the first byte that differs from the model, or from zeroes when {@code keepsData} is false.
     */
    void assertMatches(BlockBackend backend, MemorySegment scratch, boolean keepsData) {
        int chunk = (int) Math.min(scratch.byteSize(), 1 << 20);
        Completion done = new Completion();
        for (long at = 0; at < bytes.length; at += chunk) {
            int n = (int) Math.min(chunk, bytes.length - at);
            scratch.asSlice(0, n).fill((byte) 0xA5);
            backend.read(at, scratch, 0, n, done.reset());
            done.assertStatus(BackendStatus.OK, "read of " + n + " bytes at " + at);
            MemorySegment expected = keepsData ? MemorySegment.ofArray(bytes).asSlice(at, n) : MemorySegment.ofArray(new byte[n]);
            long mismatch = MemorySegment.mismatch(scratch, 0, n, expected, 0, n);
            if (mismatch != -1) {
                fail("device byte " + (at + mismatch) + " reads " + scratch.get(ValueLayout.JAVA_BYTE, mismatch) + ", expected "
                        + expected.get(ValueLayout.JAVA_BYTE, mismatch));
            }
        }
        assertEquals(bytes.length, backend.sizeBytes(), "device size");
    }
}
