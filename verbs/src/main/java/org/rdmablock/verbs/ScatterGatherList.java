package org.rdmablock.verbs;

/**
 * A fixed-capacity list of scatter/gather elements ({@code struct ibv_sge}: address, length, lkey) owned by a
 * work request. Reused across posts: {@link #clear()} and add again; nothing is allocated after construction.
 */
public final class ScatterGatherList {
    private final long[] addresses;
    private final int[] lengths;
    private final int[] lkeys;
    private int count;

    public ScatterGatherList(final int capacity) {
        addresses = new long[capacity];
        lengths = new int[capacity];
        lkeys = new int[capacity];
    }

    public ScatterGatherList clear() {
        count = 0;
        return this;
    }

    /** Appends an element by raw address, length and lkey. */
    public ScatterGatherList add(final long address, final int length, final int lkey) {
        if (count == addresses.length) {
            throw new VerbsException(VerbsException.EINVAL, "scatter/gather list is full (" + count + " elements)");
        }
        addresses[count] = address;
        lengths[count] = length;
        lkeys[count] = lkey;
        count++;
        return this;
    }

    /** Appends {@code length} bytes at {@code offset} within {@code region}. */
    public ScatterGatherList add(final MemoryRegion region, final long offset, final int length) {
        return add(region.address() + offset, length, region.lkey());
    }

    /** Number of elements. */
    public int count() {
        return count;
    }

    public int capacity() {
        return addresses.length;
    }

    public long address(final int i) {
        return addresses[i];
    }

    public int length(final int i) {
        return lengths[i];
    }

    public int lkey(final int i) {
        return lkeys[i];
    }

    /** Sum of the element lengths. */
    public long totalLength() {
        long total = 0;
        for (int i = 0; i < count; i++) {
            total += lengths[i] & 0xFFFF_FFFFL;
        }
        return total;
    }
}
