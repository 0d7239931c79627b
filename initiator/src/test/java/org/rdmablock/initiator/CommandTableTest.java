package org.rdmablock.initiator;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The command slots' bookkeeping: what a slot carries over from one use to the next, and what counts as in flight. */
class CommandTableTest {
    /**
     * A command that got ABORT TASK but was answered before the ABORT's own answer: its slot's next command is timed
     * out like any other. (It was not: the slot kept "an ABORT TASK is on the way", so a hung command in it was never
     * aborted; FaultTest caught it once on a slow machine.)
     */
    @Test
    void aSlotAnsweredWhileItsAbortWasOnTheWayIsTimedOutAgainOnItsNextUse() {
        final CommandTable table = new CommandTable(4);
        final OutstandingCommand first = table.acquire();
        first.nextTag();
        first.add(new IoRequest(), 0, 4096);
        first.aborting = true; // TaskManagement sent ABORT TASK for it
        table.release(first); // ... and its response came first
        final OutstandingCommand next = table.acquire();
        assertSame(first, next, "the slot freed last is used next");
        assertFalse(next.aborting, "the next command in the slot is not taken as aborted");
    }

    @Test
    void quarantinedSlotsAreNeitherFreeNorInFlight() {
        final CommandTable table = new CommandTable(2);
        final OutstandingCommand c = table.acquire();
        c.nextTag();
        c.add(new IoRequest(), 0, 512);
        assertEquals(1, table.inFlight());
        c.aborting = true;
        table.quarantine(c);
        assertEquals(0, table.inFlight(), "aborted: no longer in flight");
        assertFalse(table.allFree(), "but its slot is not free");
        assertTrue(c.quarantined);
        assertFalse(c.aborting);
        assertNull(c.parts[0], "its parts went to the retry queue");
        table.releaseQuarantined(c);
        assertTrue(table.allFree(), "its late answer frees the slot");
    }
}
