package org.rdmablock.verbs.soft;

import java.nio.ByteBuffer;

/**
 * ByteBuffer views of memory regions for socket I/O, cached so that a transfer allocates nothing once its region
 * has been seen: a small direct-mapped cache keyed by region and 1 GiB window. Owned by one I/O path (a QP's
 * transmitter or receiver); positions and limits are set per use.
 */
final class RegionViews {
    private static final int SLOTS = 16;

    private final SoftMemoryRegion[] regions = new SoftMemoryRegion[SLOTS];
    private final int[] windows = new int[SLOTS];
    private final ByteBuffer[] views = new ByteBuffer[SLOTS];

    /**
     * A view of {@code length} bytes at {@code offset} within {@code region}: position at the offset, limit after
     * the bytes, clipped at the end of the offset's view window (see {@link SoftMemoryRegion#viewLimit}).
     */
    ByteBuffer view(final SoftMemoryRegion region, final long offset, final int length) {
        final int window = (int) (offset / SoftMemoryRegion.VIEW_SPAN);
        final int slot = (System.identityHashCode(region) ^ window) & (SLOTS - 1);
        ByteBuffer view = views[slot];
        if (regions[slot] != region || windows[slot] != window) {
            view = region.newView(window);
            regions[slot] = region;
            windows[slot] = window;
            views[slot] = view;
        }
        final int start = (int) (offset - (long) window * SoftMemoryRegion.VIEW_SPAN);
        final int n = (int) Math.min(length, SoftMemoryRegion.viewLimit(offset));
        view.limit(start + n).position(start);
        return view;
    }

    /** Forgets every view (a region may have been deregistered). */
    void clear() {
        java.util.Arrays.fill(regions, null);
        java.util.Arrays.fill(views, null);
    }
}
