package org.rdmablock.verbs.soft;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

import org.rdmablock.verbs.VerbsException;

/**
 * The device's table of steering tags (iWARP STags = IB lkeys and rkeys) for memory regions and windows.
 * A tag is a 24-bit table index and an 8-bit key (RFC 5040 §2.1 "STag"); a freed index is reused with the next
 * key, so a stale tag stops matching. Lookups are lock-free; allocation and release lock the table.
 */
final class StagTable {
    /** Largest index: 24 bits. */
    private static final int MAX_ENTRIES = 1 << 24;
    private static final VarHandle ELEMENT = MethodHandles.arrayElementVarHandle(StagEntry[].class);

    private volatile StagEntry[] entries = new StagEntry[1024];
    private int[] keys = new int[1024];
    private int[] freeList = new int[1024];
    private int freeCount;
    private int nextUnused = 1; // index 0 is never handed out: STag 0 is never valid

    /** Something an STag can name: a memory region or a memory window. */
    interface StagEntry {
        /** The current tag of the entry; lookups compare it with the full tag. */
        int stag();
    }

    /** Reserves an index and returns the tag {@code index << 8 | key} for {@code entry}'s first use. */
    synchronized int allocate() {
        final int index;
        if (freeCount > 0) {
            index = freeList[--freeCount];
        } else {
            if (nextUnused == MAX_ENTRIES) {
                throw new VerbsException(VerbsException.ENOMEM, "STag table full");
            }
            index = nextUnused++;
            if (index >= keys.length) {
                grow();
            }
        }
        keys[index] = (keys[index] + 1) & 0xFF;
        return index << 8 | keys[index];
    }

    /** Publishes {@code entry} under its tag's index and records the tag's key as the index's latest. */
    synchronized void publish(final int stag, final StagEntry entry) {
        keys[stag >>> 8] = stag & 0xFF;
        ELEMENT.setRelease(entries, stag >>> 8, entry);
    }

    /** Removes the entry at {@code stag}'s index and returns the index to the free list. */
    synchronized void release(final int stag) {
        final int index = stag >>> 8;
        ELEMENT.setRelease(entries, index, (StagEntry) null);
        if (freeCount == freeList.length) {
            freeList = Arrays.copyOf(freeList, freeList.length * 2);
        }
        freeList[freeCount++] = index;
    }

    /** The entry a tag names, or null when the tag is unknown or stale. */
    StagEntry lookup(final int stag) {
        final StagEntry[] table = entries;
        final int index = stag >>> 8;
        if (index >= table.length) {
            return null;
        }
        final StagEntry entry = (StagEntry) ELEMENT.getAcquire(table, index);
        return entry != null && entry.stag() == stag ? entry : null;
    }

    private void grow() {
        final int size = Math.min(MAX_ENTRIES, keys.length * 2);
        keys = Arrays.copyOf(keys, size);
        entries = Arrays.copyOf(entries, size);
    }
}
