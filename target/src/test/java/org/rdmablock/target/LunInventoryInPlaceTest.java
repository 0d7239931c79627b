package org.rdmablock.target;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmablock.protocol.scsi.LogicalUnit;
import org.rdmablock.protocol.scsi.LogicalUnitTable;
import org.rdmablock.protocol.scsi.SenseCode;
import org.rdmablock.target.backend.BackendFactory;
import org.rdmablock.target.config.InitiatorPortId;
import org.rdmablock.target.config.LunConfig;
import org.rdmablock.target.config.TargetConfig;
import org.rdmablock.target.config.TargetConfigReader;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The changes a served LUN takes without closing (size, write protection, allowed initiators), on real backends: the
 * unit stays the same object in every table, its initiators get the unit attention of the change, and what cannot be
 * done (a shrink not forced, a memory LUN's size) is refused with nothing changed, the other LUNs of the same apply
 * included.
 */
class LunInventoryInPlaceTest {
    private static final InitiatorPortId A = new InitiatorPortId(0xA, 1);
    private static final InitiatorPortId B = new InitiatorPortId(0xB, 2);
    private static final long MIB = 1 << 20;

    @TempDir
    Path dir;
    private final List<String> told = new ArrayList<>();
    private final AtomicInteger quiesced = new AtomicInteger();

    private final LunInventory.Attentions attentions = (initiator, lun, condition) ->
            told.add(initiator + (condition == SenseCode.REPORTED_LUNS_DATA_HAS_CHANGED ? " luns" : " " + lun + " " + condition));

    private TargetConfig config(final String luns) throws Exception {
        return TargetConfigReader.read(luns, "test", dir, TargetConfigReader.Storage.NOT_CHECKED);
    }

    private static String file(final int number, final String size, final String more) {
        return "[[lun]]\nnumber = %d\npath = \"lun%d.img\"\ncreate = true\nsize = \"%s\"\n%s\n".formatted(number, number, size,
                more);
    }

    private String apply(final LunInventory inventory, final String luns, final boolean force) throws Exception {
        return inventory.apply(config(luns).luns(), force, attentions, () -> {
            quiesced.incrementAndGet();
            return true;
        });
    }

    @Test
    void aGrownLunKeepsItsUnitAndItsInitiatorsAreToldItsCapacityChanged() throws Exception {
        try (LunInventory inventory = new LunInventory(config(file(0, "4MiB", "")), BackendFactory::open)) {
            final LogicalUnitTable view = inventory.unitsFor(A);
            final LogicalUnit unit = view.get(0);
            assertEquals(List.of("LUN 0 changed in place: resized from 4194304 to 8388608 bytes (CAPACITY DATA HAS CHANGED)"),
                    inventory.plan(config(file(0, "8MiB", "")).luns(), false));
            assertEquals(4 * MIB, Files.size(dir.resolve("lun0.img")), "a plan changes nothing");

            final String summary = apply(inventory, file(0, "8MiB", ""), false);

            assertTrue(summary.contains("1 changed in place"), summary);
            assertSame(unit, view.get(0), "the same unit serves on");
            assertEquals(8 * MIB / 512, unit.blockCount());
            assertEquals(8 * MIB, Files.size(dir.resolve("lun0.img")), "the file grew");
            assertEquals(List.of(A + " 0 CAPACITY_DATA_HAS_CHANGED"), told, "a unit attention, no inventory change");
            assertEquals(0, quiesced.get(), "growing waits for nothing");
            assertTrue(inventory.serves(config(file(0, "8MiB", "")).luns()));
        }
    }

    @Test
    void aShrinkIsRefusedUnlessForcedAndThenCutsTheFileAfterTheCommandsInFlight() throws Exception {
        try (LunInventory inventory = new LunInventory(config(file(0, "4MiB", "")), BackendFactory::open)) {
            final LogicalUnit unit = inventory.unitsFor(A).get(0);
            final LunInventory.Refused refused = assertThrows(LunInventory.Refused.class,
                    () -> apply(inventory, file(0, "2MiB", ""), false));
            assertTrue(refused.getMessage().startsWith("LUN 0 would shrink from 4194304 to 2097152 bytes"), refused.getMessage());
            assertEquals(4 * MIB / 512, unit.blockCount(), "refused: nothing changed");
            assertEquals(4 * MIB, Files.size(dir.resolve("lun0.img")));

            apply(inventory, file(0, "2MiB", ""), true);
            assertEquals(2 * MIB / 512, unit.blockCount());
            assertEquals(2 * MIB, Files.size(dir.resolve("lun0.img")));
            assertEquals(1, quiesced.get(), "the cut waits for the commands in flight");
            assertEquals(List.of(A + " 0 CAPACITY_DATA_HAS_CHANGED"), told);
        }
    }

    @Test
    void aShrinkWhoseCommandsDidNotFinishIsUndone() throws Exception {
        try (LunInventory inventory = new LunInventory(config(file(0, "4MiB", "")), BackendFactory::open)) {
            final LogicalUnit unit = inventory.unitsFor(A).get(0);
            final String summary = inventory.apply(config(file(0, "2MiB", "")).luns(), true, attentions, () -> false);
            assertTrue(summary.contains("LUN 0 not shrunk, it stays 4194304 bytes"), summary);
            assertEquals(4 * MIB / 512, unit.blockCount(), "the unit reports its old size again");
            assertEquals(4 * MIB, Files.size(dir.resolve("lun0.img")), "nothing cut");
            assertEquals(4 * MIB, inventory.configs().getFirst().sizeBytes(), "and the configuration keeps it");
            assertEquals(List.of(A + " 0 CAPACITY_DATA_HAS_CHANGED", A + " 0 CAPACITY_DATA_HAS_CHANGED"), told,
                    "told of the shrink as it showed, then of the undoing");
        }
    }

    @Test
    void aSizeAndAStorageKeyAtOnceAreRefusedWithWhy() throws Exception {
        try (LunInventory inventory = new LunInventory(config(file(0, "4MiB", "")), BackendFactory::open)) {
            final LunInventory.Refused refused = assertThrows(LunInventory.Refused.class,
                    () -> apply(inventory, file(0, "8MiB", "write_cache = \"write-back\""), false));
            assertTrue(refused.getMessage().contains("its size changes in place, its write_cache only by reopening it"),
                    refused.getMessage());
        }
    }

    @Test
    void aLunMadeReadOnlyAndWritableAgainStaysTheSameUnit() throws Exception {
        try (LunInventory inventory = new LunInventory(config(file(0, "4MiB", "")), BackendFactory::open)) {
            final LogicalUnit unit = inventory.unitsFor(A).get(0);
            apply(inventory, file(0, "4MiB", "read_only = true"), false);
            assertTrue(unit.writeProtected());
            assertEquals(List.of(A + " 0 MODE_PARAMETERS_CHANGED"), told);
            assertEquals(1, quiesced.get(), "no write still lands once the verb returns");
            apply(inventory, file(0, "4MiB", ""), false);
            assertFalse(unit.writeProtected(), "its file was opened for writing: writable again in place");
            assertSame(unit, inventory.unitsFor(A).get(0));
            assertEquals(List.of(A + " 0 MODE_PARAMETERS_CHANGED", A + " 0 MODE_PARAMETERS_CHANGED"), told,
                    "writable again is told too: Linux reads the WP bit only when it looks again");
        }
    }

    @Test
    void aLunOpenedReadOnlyIsReopenedToBeWritable() throws Exception {
        Files.write(dir.resolve("lun0.img"), new byte[(int) (4 * MIB)]);
        try (LunInventory inventory = new LunInventory(config(file(0, "4MiB", "read_only = true")), BackendFactory::open)) {
            final LogicalUnit before = inventory.unitsFor(A).get(0);
            assertEquals(List.of("LUN 0 reopened (read_only changed)"), inventory.plan(config(file(0, "4MiB", "")).luns(), false));
            apply(inventory, file(0, "4MiB", ""), false);
            final LogicalUnit after = inventory.unitsFor(A).get(0);
            assertFalse(after.writeProtected());
            assertFalse(before == after, "a new unit over storage opened for writing");
            assertTrue(told.contains(A + " luns"));
        }
    }

    @Test
    void changedInitiatorsMoveTheUnitBetweenTablesAndTellBoth() throws Exception {
        final String onlyA = "allowed_initiators = [\"0x" + A + "\"]";
        final String onlyB = "allowed_initiators = [\"0x" + B + "\"]";
        try (LunInventory inventory = new LunInventory(config(file(0, "4MiB", onlyA) + file(1, "4MiB", "")),
                BackendFactory::open)) {
            final LogicalUnitTable a = inventory.unitsFor(A);
            final LogicalUnitTable b = inventory.unitsFor(B);
            final LogicalUnit unit = a.get(0);
            assertNull(b.get(0));
            apply(inventory, file(0, "4MiB", onlyB) + file(1, "4MiB", ""), false);
            assertNull(a.get(0), "A no longer sees it");
            assertSame(unit, b.get(0), "B sees the same unit, never closed");
            assertEquals(List.of(A + " luns", B + " luns"), told.stream().sorted().toList());
            assertEquals(0, quiesced.get());
        }
    }

    @Test
    void aSizeTheBackendCannotTakeRefusesTheWholeApply() throws Exception {
        final String memory = "[[lun]]\nnumber = 0\nbackend = \"memory\"\nsize = \"4MiB\"\n";
        final List<Integer> opened = new ArrayList<>();
        try (LunInventory inventory = new LunInventory(config(memory), lun -> {
            opened.add(lun.number());
            return BackendFactory.open(lun);
        })) {
            final LunInventory.Refused refused = assertThrows(LunInventory.Refused.class,
                    () -> apply(inventory, memory.replace("4MiB", "8MiB") + file(5, "4MiB", ""), false));
            assertTrue(refused.getMessage().contains("LUN 0 cannot be resized while it serves: a memory LUN's size is fixed"),
                    refused.getMessage());
            assertEquals(List.of(0), opened, "the LUN added beside it was not opened");
            assertFalse(Files.exists(dir.resolve("lun5.img")));
            assertEquals(List.of(0), inventory.numbers());
            assertEquals(List.of(), told);
        }
    }

    @Test
    void onlyCreateOrGrowChangedIsRecordedWithoutReopening() throws Exception {
        try (LunInventory inventory = new LunInventory(config(file(0, "4MiB", "")), BackendFactory::open)) {
            final LogicalUnit unit = inventory.unitsFor(A).get(0);
            final List<LunConfig> wanted = config(file(0, "4MiB", "grow = true")).luns();
            assertEquals(List.of(), inventory.plan(wanted, false));
            apply(inventory, file(0, "4MiB", "grow = true"), false);
            assertSame(unit, inventory.unitsFor(A).get(0));
            assertTrue(inventory.serves(wanted));
            assertEquals(List.of(), told);
        }
    }
}
