package org.rdmablock.verbs.soft;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * Where the payload of the incoming DDP segment goes: nowhere (discarded), one contiguous range of a memory
 * region (tagged placement of RDMA WRITE), or a scatter list of regions (a receive work request, or the sink of
 * an RDMA READ). Set up by the QP for each segment; advanced by the {@link FpduReader} as bytes arrive.
 */
final class Placement {
    private boolean discarding = true;
    private final SoftMemoryRegion[] regions;
    private final long[] offsets;
    private final long[] lengths;
    private int count;
    private int index;
    private long used;

    Placement(final int maxSge) {
        regions = new SoftMemoryRegion[Math.max(1, maxSge)];
        offsets = new long[regions.length];
        lengths = new long[regions.length];
    }

    void discard() {
        discarding = true;
        count = 0;
    }

    /** Contiguous placement at {@code offset} of {@code region}. */
    void region(final SoftMemoryRegion region, final long offset, final long length) {
        discarding = false;
        regions[0] = region;
        offsets[0] = offset;
        lengths[0] = length;
        count = 1;
        index = 0;
        used = 0;
    }

    /** Starts a scatter list; add elements with {@link #add}, then {@link #seek}. */
    void scatter() {
        discarding = false;
        count = 0;
        index = 0;
        used = 0;
    }

    void add(final SoftMemoryRegion region, final long offset, final long length) {
        regions[count] = region;
        offsets[count] = offset;
        lengths[count] = length;
        count++;
    }

    /** Positions the scatter list at byte {@code position} of the message. */
    void seek(final long position) {
        long skip = position;
        index = 0;
        while (index < count && skip >= lengths[index]) {
            skip -= lengths[index];
            index++;
        }
        used = skip;
    }

    /** Copies {@code length} bytes from {@code source} into the placement and advances it. */
    void copyFrom(final MemorySegment source, final long sourceOffset, final long length) {
        if (discarding) {
            return;
        }
        long done = 0;
        while (done < length) {
            final long n = Math.min(length - done, lengths[index] - used);
            MemorySegment.copy(source, sourceOffset + done, regions[index].segment(), offsets[index] + used, n);
            done += n;
            advance(n);
        }
    }

    /** Whether payload can be read from the socket straight into memory. */
    boolean isDirect() {
        return !discarding && index < count;
    }

    /** A view of the current contiguous piece, at most {@code max} bytes, for a direct socket read. */
    ByteBuffer view(final RegionViews views, final int max) {
        return views.view(regions[index], offsets[index] + used, (int) Math.min(max, lengths[index] - used));
    }

    /** Records {@code n} bytes placed through a {@link #view}. */
    void advance(final long n) {
        used += n;
        while (index < count && used >= lengths[index]) {
            used -= lengths[index];
            index++;
        }
    }

    /** Forgets region references (after the message, so deregistered regions can be collected). */
    void clear() {
        java.util.Arrays.fill(regions, 0, count, null);
        count = 0;
        discarding = true;
    }
}
