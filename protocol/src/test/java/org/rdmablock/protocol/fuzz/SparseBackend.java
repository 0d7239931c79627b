package org.rdmablock.protocol.fuzz;

import org.rdmablock.protocol.scsi.BackendCallback;
import org.rdmablock.protocol.scsi.BackendStatus;
import org.rdmablock.protocol.scsi.BlockBackend;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The backend of the engine fuzz properties: one per input, so that an iteration depends on nothing before
 * it. Creating one costs nothing, because a 4 KiB page is allocated only when a write touches it; pages
 * never written, or unmapped, read as zeroes. Completes inline.
 *
 * <p>It also enforces what {@link BlockBackend} says {@code LogicalUnit} guarantees its backends: every
 * device range lies inside the device and starts on a block boundary, writes and unmaps cover whole
 * blocks, and every buffer range lies inside the buffer. A violation throws {@link AssertionError}, failing
 * the property, where a real backend would read or write the wrong place.
 */
final class SparseBackend implements BlockBackend {
    private static final int PAGE = 4096;

    private final long sizeBytes;
    private final int blockSize;
    private final boolean unmapReadsZeroes;
    private Map<Long, byte[]> pages;

    SparseBackend(long sizeBytes, int blockSize, boolean unmapReadsZeroes) {
        this.sizeBytes = sizeBytes;
        this.blockSize = blockSize;
        this.unmapReadsZeroes = unmapReadsZeroes;
    }

    @Override
    public long sizeBytes() {
        return sizeBytes;
    }

    @Override
    public boolean supportsUnmap() {
        return true;
    }

    @Override
    public boolean unmapReadsZeroes() {
        return unmapReadsZeroes;
    }

    @Override
    public void read(long deviceOffset, MemorySegment buffer, long bufferOffset, int length, BackendCallback callback) {
        checkDevice("read", deviceOffset, length, false);
        checkBuffer("read", buffer, bufferOffset, length);
        for (long done = 0; done < length; ) {
            long at = deviceOffset + done;
            int inPage = (int) (at % PAGE);
            int n = (int) Math.min(length - done, PAGE - inPage);
            byte[] page = pages == null ? null : pages.get(at / PAGE);
            if (page == null) {
                buffer.asSlice(bufferOffset + done, n).fill((byte) 0);
            } else {
                MemorySegment.copy(page, inPage, buffer, ValueLayout.JAVA_BYTE, bufferOffset + done, n);
            }
            done += n;
        }
        callback.completed(BackendStatus.OK);
    }

    @Override
    public void write(long deviceOffset, MemorySegment buffer, long bufferOffset, int length, boolean forceUnitAccess,
                      BackendCallback callback) {
        checkDevice("write", deviceOffset, length, true);
        checkBuffer("write", buffer, bufferOffset, length);
        if (pages == null) {
            pages = new HashMap<>();
        }
        for (long done = 0; done < length; ) {
            long at = deviceOffset + done;
            int inPage = (int) (at % PAGE);
            int n = (int) Math.min(length - done, PAGE - inPage);
            byte[] page = pages.computeIfAbsent(at / PAGE, p -> new byte[PAGE]);
            MemorySegment.copy(buffer, ValueLayout.JAVA_BYTE, bufferOffset + done, page, inPage, n);
            done += n;
        }
        callback.completed(BackendStatus.OK);
    }

    @Override
    public void flush(BackendCallback callback) {
        callback.completed(BackendStatus.OK);
    }

    @Override
    public void unmap(long deviceOffset, long length, BackendCallback callback) {
        checkDevice("unmap", deviceOffset, length, true);
        for (long done = 0; pages != null && done < length; ) {
            long at = deviceOffset + done;
            int inPage = (int) (at % PAGE);
            int n = (int) Math.min(length - done, PAGE - inPage);
            byte[] page = pages.get(at / PAGE);
            if (page != null) {
                Arrays.fill(page, inPage, inPage + n, (byte) 0);
            }
            done += n;
        }
        callback.completed(BackendStatus.OK);
    }

    private void checkDevice(String operation, long deviceOffset, long length, boolean wholeBlocks) {
        if (deviceOffset < 0 || length < 0 || length > sizeBytes - deviceOffset) {
            throw new AssertionError(operation + " of " + length + " bytes at " + deviceOffset + " is outside the " + sizeBytes + "-byte device");
        }
        if (deviceOffset % blockSize != 0 || (wholeBlocks && length % blockSize != 0)) {
            throw new AssertionError(operation + " of " + length + " bytes at " + deviceOffset + " is not on " + blockSize + "-byte blocks");
        }
    }

    private static void checkBuffer(String operation, MemorySegment buffer, long bufferOffset, long length) {
        if (bufferOffset < 0 || length > buffer.byteSize() - bufferOffset) {
            throw new AssertionError(operation + " of " + length + " bytes at buffer offset " + bufferOffset + " is outside the "
                    + buffer.byteSize() + "-byte buffer");
        }
    }
}
