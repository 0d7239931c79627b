package org.rdmablock.protocol.scsi;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** A nexus's unit attentions: each reported once, the inventory's on any LUN, a unit's only on its own LUN. */
class UnitAttentionsTest {
    @Test
    void aUnitsConditionIsReportedOnceAndOnlyOnItsOwnLun() {
        final UnitAttentions a = new UnitAttentions();
        assertNull(a.take(0));
        a.unitChanged(3, SenseCode.CAPACITY_DATA_HAS_CHANGED);
        a.unitChanged(3, SenseCode.CAPACITY_DATA_HAS_CHANGED); // raised twice before it is reported: reported once
        assertEquals(1, a.pendingCount());
        assertNull(a.take(0), "LUN 0 has no condition of LUN 3's");
        assertEquals(SenseCode.CAPACITY_DATA_HAS_CHANGED, a.take(3));
        assertNull(a.take(3));
        assertEquals(0, a.pendingCount());
    }

    @Test
    void theInventorysConditionComesFirstThenEachOfTheUnitsInTurn() {
        final UnitAttentions a = new UnitAttentions();
        a.unitChanged(1, SenseCode.MODE_PARAMETERS_CHANGED);
        a.unitChanged(1, SenseCode.CAPACITY_DATA_HAS_CHANGED);
        a.lunsChanged();
        assertEquals(3, a.pendingCount());
        assertEquals(SenseCode.REPORTED_LUNS_DATA_HAS_CHANGED, a.take(7), "on any LUN");
        assertEquals(SenseCode.CAPACITY_DATA_HAS_CHANGED, a.take(1));
        assertEquals(SenseCode.MODE_PARAMETERS_CHANGED, a.take(1));
        assertNull(a.take(1));
    }

    @Test
    void oneTakenAndPutBackIsReportedByTheNextCommand() {
        final UnitAttentions a = new UnitAttentions();
        a.lunsChanged();
        a.unitChanged(2, SenseCode.CAPACITY_DATA_HAS_CHANGED);
        final SenseCode taken = a.take(2);
        a.raise(2, taken); // the command was answered BUSY
        assertEquals(SenseCode.REPORTED_LUNS_DATA_HAS_CHANGED, a.take(2));
        assertEquals(SenseCode.CAPACITY_DATA_HAS_CHANGED, a.take(2));
        a.raise(2, SenseCode.CAPACITY_DATA_HAS_CHANGED);
        assertEquals(SenseCode.CAPACITY_DATA_HAS_CHANGED, a.take(2));
        assertNull(a.take(2));
    }

    @Test
    void onlyAUnitsOwnConditionsAreRaisedPerUnit() {
        assertThrows(IllegalArgumentException.class,
                () -> new UnitAttentions().unitChanged(0, SenseCode.REPORTED_LUNS_DATA_HAS_CHANGED));
    }
}
