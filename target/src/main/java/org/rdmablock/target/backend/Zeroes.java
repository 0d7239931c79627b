package org.rdmablock.target.backend;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A shared block of zeroes, copied from to zero a range of a buffer without slicing it (a slice is an object, and
 * the read path of the null and file backends must not allocate), and written from when a file system cannot punch
 * holes. Never written to; any thread may use it.
 */
final class Zeroes {
    /** Bytes of zeroes kept: larger ranges are zeroed in several copies. */
    static final int BYTES = 1 << 20;
    /** Aligned for O_DIRECT writes from it. */
    static final MemorySegment SEGMENT = Arena.global().allocate(BYTES, FileBackend.DIRECT_IO_ALIGNMENT);

    private Zeroes() {
    }

    /** Zeroes {@code length} bytes of {@code target} from {@code offset}. */
    static void fill(MemorySegment target, long offset, long length) {
        for (long done = 0; done < length; ) {
            long n = Math.min(length - done, BYTES);
            MemorySegment.copy(SEGMENT, 0, target, offset + done, n);
            done += n;
        }
    }
}
