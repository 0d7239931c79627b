package org.rdmablock.verbs.soft;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.security.SecureRandom;

import org.rdmablock.verbs.VerbsException;

/**
 * The device's table of steering tags (iWARP STags = IB lkeys and rkeys) for memory regions and windows.
 * A tag is a 24-bit index and an 8-bit key (RFC 5040 §2.1 "STag"). Both are drawn at random for each registration,
 * so that a peer cannot guess another region's tag from its own (a counter would hand out its neighbours); a released
 * tag stops matching at once. The indices are sparse, so entries live in an open-addressed table (linear probing,
 * at most half full) rather than in an array by index. Lookups are lock-free and allocate nothing; allocation,
 * publication and release lock the table.
 */
final class StagTable {
    /** Largest index: 24 bits. */
    private static final int INDEX_LIMIT = 1 << 24;
    /** Live entries at most: the table of twice as many slots stays within 2^23. */
    private static final int MAX_ENTRIES = 1 << 22;
    private static final int INITIAL_SLOTS = 1024;
    private static final VarHandle ELEMENT = MethodHandles.arrayElementVarHandle(StagEntry[].class);
    /** A slot whose index is allocated but whose entry is not yet published: no tag matches it. */
    private static final StagEntry RESERVED = () -> 0;
    /** A released slot: probing goes on past it; no tag matches it. */
    private static final StagEntry RELEASED = () -> 0;

    /** The slots; replaced whole when the table grows, so that a lookup reads one consistent array. */
    private volatile StagEntry[] slots = new StagEntry[INITIAL_SLOTS];
    /** Each slot's index (-1: none); read and written under the lock only. */
    private int[] indices = filledIndices(INITIAL_SLOTS);
    /** Slots not null: live, reserved and released ones; the table grows before it is half full of them. */
    private int occupied;
    private int live;
    private final SecureRandom random = new SecureRandom();

    /** Something an STag can name: a memory region or a memory window. */
    interface StagEntry {
        /** The current tag of the entry; lookups compare it with the full tag. */
        int stag();
    }

    /** Reserves an unused random index and returns the tag {@code index << 8 | key}, its key random too. */
    synchronized int allocate() {
        if (live == MAX_ENTRIES) {
            throw new VerbsException(VerbsException.ENOMEM, "STag table full");
        }
        int index;
        do {
            index = random.nextInt(INDEX_LIMIT);
        } while (index == 0 || slotOf(index) >= 0); // index 0 is never handed out: STag 0 is never valid
        insert(index, RESERVED);
        live++;
        return index << 8 | random.nextInt(256);
    }

    /** Publishes {@code entry} under its tag's index (allocated before; a window's rebinding publishes it again). */
    synchronized void publish(final int stag, final StagEntry entry) {
        final int slot = slotOf(stag >>> 8);
        if (slot < 0) {
            throw new IllegalStateException("STag " + Integer.toHexString(stag) + " was not allocated");
        }
        ELEMENT.setRelease(slots, slot, entry);
    }

    /** Removes the entry at {@code stag}'s index; the index may be drawn again. */
    synchronized void release(final int stag) {
        final int slot = slotOf(stag >>> 8);
        if (slot < 0) {
            return;
        }
        indices[slot] = -1;
        ELEMENT.setRelease(slots, slot, RELEASED);
        live--;
    }

    /** The entry a tag names, or null when the tag is unknown or stale. */
    StagEntry lookup(final int stag) {
        final StagEntry[] table = slots;
        final int mask = table.length - 1;
        for (int slot = home(stag >>> 8, mask), probes = 0; probes <= mask; slot = (slot + 1) & mask, probes++) {
            final StagEntry entry = (StagEntry) ELEMENT.getAcquire(table, slot);
            if (entry == null) {
                return null;
            }
            if (entry != RESERVED && entry != RELEASED && entry.stag() == stag) {
                return entry;
            }
        }
        return null;
    }

    /** Live entries (allocated and not released). */
    synchronized int size() {
        return live;
    }

    /** The slot holding {@code index}, or -1; under the lock. */
    private int slotOf(final int index) {
        final int mask = indices.length - 1;
        for (int slot = home(index, mask); slots[slot] != null; slot = (slot + 1) & mask) {
            if (indices[slot] == index) {
                return slot;
            }
        }
        return -1;
    }

    private void insert(final int index, final StagEntry entry) {
        if ((occupied + 1) * 2 > indices.length) {
            rebuild();
        }
        final int mask = indices.length - 1;
        int slot = home(index, mask);
        while (slots[slot] != null) {
            slot = (slot + 1) & mask;
        }
        indices[slot] = index;
        ELEMENT.setRelease(slots, slot, entry);
        occupied++;
    }

    /** A new table, large enough for twice the live entries, without the released slots; published whole. */
    private void rebuild() {
        int size = INITIAL_SLOTS;
        while (size < (live + 1) * 4) {
            size *= 2;
        }
        final StagEntry[] oldSlots = slots;
        final int[] oldIndices = indices;
        final StagEntry[] newSlots = new StagEntry[size];
        final int[] newIndices = filledIndices(size);
        final int mask = size - 1;
        int count = 0;
        for (int i = 0; i < oldSlots.length; i++) {
            if (oldIndices[i] >= 0) {
                int slot = home(oldIndices[i], mask);
                while (newSlots[slot] != null) {
                    slot = (slot + 1) & mask;
                }
                newSlots[slot] = oldSlots[i];
                newIndices[slot] = oldIndices[i];
                count++;
            }
        }
        indices = newIndices;
        occupied = count;
        slots = newSlots; // the volatile write publishes the filled array
    }

    private static int home(final int index, final int mask) {
        return (index * 0x9E37_79B9 >>> 8) & mask;
    }

    private static int[] filledIndices(final int size) {
        final int[] indices = new int[size];
        java.util.Arrays.fill(indices, -1);
        return indices;
    }
}
