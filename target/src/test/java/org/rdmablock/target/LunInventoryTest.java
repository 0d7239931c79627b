package org.rdmablock.target;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmablock.protocol.scsi.BackendCallback;
import org.rdmablock.protocol.scsi.BackendStatus;
import org.rdmablock.protocol.scsi.BlockBackend;
import org.rdmablock.protocol.scsi.ForwardingBackend;
import org.rdmablock.protocol.scsi.InMemoryBackend;
import org.rdmablock.protocol.scsi.LogicalUnit;
import org.rdmablock.protocol.scsi.LogicalUnitTable;
import org.rdmablock.protocol.scsi.LunAddress;
import org.rdmablock.protocol.scsi.ScsiCommand;
import org.rdmablock.protocol.scsi.ScsiStatus;
import org.rdmablock.protocol.scsi.SenseCode;
import org.rdmablock.target.config.InitiatorPortId;
import org.rdmablock.target.config.LunConfig;
import org.rdmablock.target.config.TargetConfig;
import org.rdmablock.target.config.TargetConfigReader;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SIGHUP's LUN changes at the inventory level, with backends that record what happens to them: a removed or changed
 * LUN leaves the tables before the reload waits for the commands in flight, and its backend closes only after that
 * wait; a changed LUN that fails to reopen is left out rather than served closed.
 */
class LunInventoryTest {
    private static final InitiatorPortId INITIATOR = new InitiatorPortId(0x1111, 0x2222);
    private static final String HEAD = "[target]\nid_ext = \"0x0002c90300a1b2c3\"\nioc_guid = \"0x0002c90300a1b2c3\"\n";

    @TempDir
    Path dir;

    /** What happened, in order: "open N", "read-end N", "quiesce", "close N". */
    private final List<String> events = Collections.synchronizedList(new ArrayList<>());
    /** The backends opened, newest last, per LUN. */
    private final ConcurrentHashMap<Integer, List<GatedBackend>> opened = new ConcurrentHashMap<>();
    private final List<Thread> executing = new ArrayList<>();
    private final Arena arena = Arena.ofShared();
    /** "initiator lun condition" for each unit attention of a unit changed in place. */
    private final List<String> unitChanges = Collections.synchronizedList(new ArrayList<>());

    @AfterEach
    void releaseEverything() throws InterruptedException {
        opened.values().forEach(list -> list.forEach(b -> b.release.countDown()));
        for (final Thread t : executing) {
            t.join(5_000);
        }
        arena.close();
    }

    /** A backend whose reads block until released; records whether it was closed while a read was running. */
    private final class GatedBackend extends ForwardingBackend implements AutoCloseable {
        final int lun;
        final CountDownLatch readStarted = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicInteger reading = new AtomicInteger();
        final AtomicBoolean closed = new AtomicBoolean();
        final AtomicBoolean closedDuringRead = new AtomicBoolean();

        GatedBackend(final int lun) {
            super(new InMemoryBackend(4 << 20));
            this.lun = lun;
        }

        @Override
        public void read(final long deviceOffset, final MemorySegment buffer, final long bufferOffset, final int length,
                         final BackendCallback callback) {
            reading.incrementAndGet();
            readStarted.countDown();
            final boolean released;
            try {
                released = release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            } finally {
                events.add("read-end " + lun);
                reading.decrementAndGet();
            }
            // as the real backends do: an I/O on a closed backend fails
            callback.completed(released && !closed.get() ? BackendStatus.OK : BackendStatus.IO_ERROR);
        }

        @Override
        public void write(final long deviceOffset, final MemorySegment buffer, final long bufferOffset, final int length,
                          final boolean forceUnitAccess, final BackendCallback callback) {
            callback.completed(closed.get() ? BackendStatus.IO_ERROR : BackendStatus.OK);
        }

        @Override
        public void close() {
            events.add("close " + lun);
            if (reading.get() > 0) {
                closedDuringRead.set(true);
            }
            closed.set(true);
        }
    }

    private BlockBackend open(final LunConfig lun) {
        events.add("open " + lun.number());
        final GatedBackend backend = new GatedBackend(lun.number());
        opened.computeIfAbsent(lun.number(), n -> Collections.synchronizedList(new ArrayList<>())).add(backend);
        return backend;
    }

    private GatedBackend backend(final int lun, final int nth) {
        return opened.get(lun).get(nth);
    }

    private TargetConfig config(final String luns) throws Exception {
        return TargetConfigReader.read(HEAD + luns, "test", dir);
    }

    /** A memory LUN; {@code changed}: with 4096-byte blocks, a change that reopens it (other storage). */
    private static String lun(final int number, final boolean changed) {
        return "[[lun]]\nnumber = %d\nbackend = \"memory\"\nsize = \"4MiB\"\nblock_size = %d\n".formatted(number,
                changed ? 4096 : 512);
    }

    /** Records each initiator told its inventory changed in {@code told}; a unit's change in {@link #unitChanges}. */
    private LunInventory.Attentions attentions(final List<InitiatorPortId> told) {
        return (initiator, lun, condition) -> {
            if (condition == SenseCode.REPORTED_LUNS_DATA_HAS_CHANGED) {
                told.add(initiator);
            } else {
                unitChanges.add(initiator + " " + lun + " " + condition);
            }
        };
    }

    /** Executes READ(10) of one block on {@code lun} through {@code table} on a thread of its own; its status lands in {@code status}. */
    private void readOn(final LogicalUnitTable table, final int lun, final AtomicInteger status) {
        final ScsiCommand cmd = new ScsiCommand()
                .setCdb(new byte[]{0x28, 0, 0, 0, 0, 0, 0, 0, 1, 0})
                .setDataBuffer(arena.allocate(4096, 4096), 0, 4096)
                .setExpectedLengths(0, 512)
                .setCompletion(c -> status.set(c.status()));
        final Thread t = Thread.ofPlatform().name("command-lun-" + lun).start(() -> table.execute(LunAddress.encode(lun), cmd));
        executing.add(t);
    }

    @Test
    void aRemovedOrChangedLunLeavesTheTablesThenWaitsForItsCommandsBeforeItsBackendCloses() throws Exception {
        final LunInventory inventory = new LunInventory(config(lun(0, false) + lun(1, false) + lun(2, false)), this::open);
        try {
            final LogicalUnitTable table = inventory.unitsFor(INITIATOR);
            final LogicalUnit unchanged = table.get(2);
            final LogicalUnit before = table.get(0);
            final AtomicInteger onChanged = new AtomicInteger(-1);
            final AtomicInteger onRemoved = new AtomicInteger(-1);
            readOn(table, 0, onChanged);
            readOn(table, 1, onRemoved);
            assertTrue(backend(0, 0).readStarted.await(5, TimeUnit.SECONDS));
            assertTrue(backend(1, 0).readStarted.await(5, TimeUnit.SECONDS));

            final AtomicBoolean detachedAtQuiesce = new AtomicBoolean();
            final AtomicBoolean openAtQuiesce = new AtomicBoolean();
            final List<InitiatorPortId> told = Collections.synchronizedList(new ArrayList<>());
            // LUN 0 changes (its block size: other storage), LUN 1 goes, LUN 2 stays
            final String summary = inventory.apply(config(lun(0, true) + lun(2, false)).luns(), false, attentions(told), () -> {
                events.add("quiesce");
                detachedAtQuiesce.set(table.get(0) == null && table.get(1) == null && table.get(2) == unchanged);
                openAtQuiesce.set(!backend(0, 0).closed.get() && !backend(1, 0).closed.get());
                // the commands in flight finish (as the pipeline's backend stage finishes its events)
                backend(0, 0).release.countDown();
                backend(1, 0).release.countDown();
                for (final Thread t : executing) {
                    try {
                        t.join(5_000);
                    } catch (InterruptedException e) {
                        throw new IllegalStateException(e);
                    }
                }
                return true;
            });

            for (final int lun : new int[]{0, 1}) {
                assertFalse(backend(lun, 0).closedDuringRead.get(), "LUN " + lun + " closed while a command read from it");
            }
            assertTrue(detachedAtQuiesce.get(), "the changed and removed units left the table before the wait");
            assertTrue(openAtQuiesce.get(), "no backend closed before the wait");
            for (final int lun : new int[]{0, 1}) {
                assertTrue(backend(lun, 0).closed.get(), "LUN " + lun + "'s old backend closed");
                assertTrue(events.indexOf("quiesce") < events.indexOf("close " + lun), events.toString());
                assertTrue(events.indexOf("read-end " + lun) < events.indexOf("close " + lun), events.toString());
            }
            assertEquals(ScsiStatus.GOOD, onChanged.get(), "the command in flight on the changed LUN succeeded");
            assertEquals(ScsiStatus.GOOD, onRemoved.get(), "the command in flight on the removed LUN succeeded");
            assertEquals(List.of("open 0", "open 1", "open 2", "quiesce", "read-end 0", "read-end 1", "close 0", "close 1",
                    "open 0"), orderOfRead(events), "detach, wait, close, reopen");

            assertNotNull(table.get(0), "the changed LUN serves again");
            assertNotSame(before, table.get(0));
            assertServedBy(table, 0, backend(0, 1));
            assertNull(table.get(1), "the removed LUN is gone");
            assertSame(unchanged, table.get(2), "the unchanged LUN keeps its unit");
            assertFalse(backend(2, 0).closed.get(), "and its backend");
            assertEquals(List.of(INITIATOR), told, "the initiator gets one unit attention");
            assertEquals(List.of(), unitChanges, "a reopened unit is a new one: no condition of the old unit's");
            assertTrue(summary.startsWith("LUNs now [0, 2]"), summary);
            assertTrue(summary.contains("1 reopened") && summary.contains("1 removed"), summary);
        } finally {
            inventory.close();
        }
    }

    /** The events with the two reads' ends in LUN order (they may end in either order, both within the wait). */
    private static List<String> orderOfRead(final List<String> events) {
        final List<String> copy;
        synchronized (events) {
            copy = new ArrayList<>(events);
        }
        final int first = copy.indexOf("read-end 0");
        final int second = copy.indexOf("read-end 1");
        if (first > second && second >= 0) {
            copy.set(second, "read-end 0");
            copy.set(first, "read-end 1");
        }
        return copy;
    }

    /** A command on {@code lun} reads from {@code backend} and succeeds. */
    private void assertServedBy(final LogicalUnitTable table, final int lun, final GatedBackend backend) throws InterruptedException {
        backend.release.countDown();
        final AtomicInteger status = new AtomicInteger(-1);
        readOn(table, lun, status);
        executing.getLast().join(5_000);
        assertEquals(0, backend.readStarted.getCount(), "LUN " + lun + " reads from its reopened backend");
        assertEquals(ScsiStatus.GOOD, status.get());
    }

    @Test
    void aChangedLunThatFailsToReopenIsLeftOutAndTheOthersStayServed() throws Exception {
        final AtomicBoolean failReopen = new AtomicBoolean(true);
        final LunInventory inventory = new LunInventory(config(lun(0, false) + lun(1, false)), lun -> {
            if (lun.number() == 0 && opened.containsKey(0) && failReopen.get()) {
                throw new IllegalStateException("LUN 0 (test): cannot reopen");
            }
            return open(lun);
        });
        try {
            final LogicalUnitTable table = inventory.unitsFor(INITIATOR);
            final LogicalUnit unchanged = table.get(1);
            final List<InitiatorPortId> told = new ArrayList<>();
            final List<LunConfig> wanted = config(lun(0, true) + lun(1, false)).luns();

            final String summary = inventory.apply(wanted, false, attentions(told), () -> true);

            assertNull(table.get(0), "a LUN that failed to reopen is not served (its old backend is closed)");
            assertTrue(backend(0, 0).closed.get());
            assertSame(unchanged, table.get(1), "the unchanged LUN stays served");
            assertFalse(backend(1, 0).closed.get());
            assertTrue(summary.contains("failed to reopen") && summary.contains("LUN 0 (test): cannot reopen"), summary);
            assertTrue(summary.startsWith("LUNs now [1]"), summary);
            assertEquals(List.of(INITIATOR), told, "the initiator's inventory changed");
            assertEquals(1, inventory.describe().size());
            assertFalse(inventory.serves(wanted), "a LUN left out is not served");

            // the next reload of the same LUNs tries it again
            failReopen.set(false);
            final String retry = inventory.apply(wanted, false, attentions(told), () -> true);
            assertTrue(retry.contains("1 reopened"), retry);
            assertServedBy(table, 0, backend(0, 1));
            assertSame(unchanged, table.get(1));
            assertTrue(inventory.serves(wanted));
        } finally {
            inventory.close();
        }
    }

    @Test
    void anAddedLunThatFailsToOpenChangesNothing() throws Exception {
        final LunInventory inventory = new LunInventory(config(lun(0, false)), lun -> {
            if (lun.number() == 5) {
                throw new IllegalStateException("LUN 5 (test): cannot open");
            }
            return open(lun);
        });
        try {
            final LogicalUnitTable table = inventory.unitsFor(INITIATOR);
            final LogicalUnit before = table.get(0);
            final AtomicBoolean quiesced = new AtomicBoolean();
            final List<LunConfig> wanted = config(lun(0, true) + lun(5, false)).luns();
            final IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> inventory.apply(wanted, false, attentions(new ArrayList<>()), () -> {
                        quiesced.set(true);
                        return true;
                    }));
            assertTrue(e.getMessage().startsWith("LUN 5"), e.getMessage());
            assertSame(before, table.get(0), "the LUN it would have changed stays as it was");
            assertFalse(backend(0, 0).closed.get(), "and open");
            assertFalse(quiesced.get());
        } finally {
            inventory.close();
        }
    }
}
