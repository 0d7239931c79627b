package org.rdmablock.verbs.soft;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The soft device's STag table (issue 42 §1 asks for remote keys an initiator cannot guess): tags drawn at random, so
 * that one region's tag says nothing of the next one's; every published tag found, released and stale ones not, also
 * across the table's growth and with released slots in the probe chains.
 */
class StagTableTest {
    private record Entry(int stag) implements StagTable.StagEntry {
    }

    @Test
    void tagsAreDrawnAtRandomNotCounted() {
        final StagTable table = new StagTable();
        final List<Integer> tags = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            final int stag = table.allocate();
            table.publish(stag, new Entry(stag));
            tags.add(stag);
        }
        final Set<Integer> indices = new HashSet<>();
        int neighbours = 0;
        int highIndices = 0;
        for (int i = 0; i < tags.size(); i++) {
            final int index = tags.get(i) >>> 8;
            assertNotEquals(0, index, "index 0 makes STag 0's neighbours");
            indices.add(index);
            highIndices += index >= 1 << 20 ? 1 : 0;
            if (i > 0 && Math.abs(index - (tags.get(i - 1) >>> 8)) <= 1) {
                neighbours++;
            }
        }
        assertEquals(tags.size(), indices.size(), "each live tag has an index of its own");
        assertTrue(neighbours < 5, "consecutive registrations got neighbouring indices " + neighbours + " times: a counter");
        assertTrue(highIndices > 900, "indices spread over the 24 bits: " + highIndices + " of 1000 at or above 2^20");
        assertTrue(tags.stream().map(t -> t & 0xFF).distinct().count() > 200, "keys drawn, not all alike");
    }

    @Test
    void publishedTagsAreFoundReleasedAndStaleOnesAreNotAcrossGrowth() {
        final StagTable table = new StagTable();
        final List<Entry> live = new ArrayList<>();
        final List<Integer> released = new ArrayList<>();
        for (int round = 0; round < 4; round++) {
            for (int i = 0; i < 5000; i++) {
                final int stag = table.allocate();
                assertNull(table.lookup(stag), "an allocated tag matches nothing until it is published");
                final Entry entry = new Entry(stag);
                table.publish(stag, entry);
                live.add(entry);
            }
            for (int i = live.size() - 1; i >= 0; i -= 2) { // every other one released: released slots in the chains
                final Entry gone = live.remove(i);
                table.release(gone.stag());
                released.add(gone.stag());
            }
        }
        assertEquals(live.size(), table.size());
        for (final Entry entry : live) {
            assertSame(entry, table.lookup(entry.stag()));
            assertNull(table.lookup(entry.stag() ^ 0x01), "the same index with another key");
        }
        for (final int stag : released) {
            assertNull(table.lookup(stag), "released tag " + Integer.toHexString(stag));
        }
        assertNull(table.lookup(0), "STag 0");
    }

    @Test
    void aRebindingPublishesTheSameIndexWithANewKey() {
        final StagTable table = new StagTable();
        final int first = table.allocate();
        final Entry before = new Entry(first);
        table.publish(first, before);
        final int next = (first & 0xFFFF_FF00) | ((first + 1) & 0xFF);
        final Entry after = new Entry(next);
        table.publish(next, after);
        assertSame(after, table.lookup(next));
        assertNull(table.lookup(first), "the old key stops matching");
        assertEquals(1, table.size());
    }
}
