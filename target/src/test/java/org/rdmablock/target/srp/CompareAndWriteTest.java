package org.rdmablock.target.srp;

import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.rdmablock.protocol.scsi.BackendCallback;
import org.rdmablock.protocol.scsi.BackendStatus;
import org.rdmablock.protocol.scsi.BlockBackend;
import org.rdmablock.protocol.scsi.CallDeferral;
import org.rdmablock.protocol.scsi.ForwardingBackend;
import org.rdmablock.protocol.scsi.LogicalUnit;
import org.rdmablock.protocol.scsi.LogicalUnitConfig;
import org.rdmablock.protocol.scsi.LunAddress;
import org.rdmablock.protocol.scsi.ScsiStatus;
import org.rdmablock.target.backend.BackendFactory;
import org.rdmablock.target.backend.InPlaceStorage;
import org.rdmablock.target.backend.LunBackend;
import org.rdmablock.target.config.LunConfig;
import org.rdmablock.target.metrics.TargetStatistics;
import org.rdmablock.target.srp.TestInitiator.Response;

import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.ProtectionDomain;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rdmablock.target.Waiting.waitUpTo;

/**
 * COMPARE AND WRITE is atomic against every other write to its blocks, from any initiator: racing ones have exactly
 * one winner, and a plain WRITE racing them lands wholly before or wholly after each (the outcome is one of a serial
 * order's), on a LUN served through the data buffers and on one served in place; a WRITE that arrives while a COMPARE
 * AND WRITE is between its read and its write waits for it.
 */
class CompareAndWriteTest extends TargetTestBase {
    private static final int ROUNDS = Integer.getInteger("rdmablock.caw.rounds", 500);
    private static final long LBA = 40;
    private static final int BLOCK = 512;
    private static final int MISCOMPARE = 0x0E;
    private static final long IN = 0x10_0000;

    private static byte[] compareAndWrite(final long lba) {
        return ByteBuffer.allocate(16).put(0, (byte) 0x89).putLong(2, lba).put(13, (byte) 1).array();
    }

    private static byte[] concat(final byte[] a, final byte[] b) {
        final byte[] both = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        return both;
    }

    /** A memory LUN served in place (its WRITEs' data lands by RDMA READ straight in its memory), beside LUN 0. */
    private static final long IN_PLACE_LUN = LunAddress.encode(2);
    private LunBackend inPlace;

    @BeforeEach
    void addInPlaceLun() {
        inPlace = memoryLun(2);
        serve(2, inPlace);
    }

    /** A 4 MiB memory LUN of 512-byte blocks, numbered {@code number}. */
    private static LunBackend memoryLun(final int number) {
        return BackendFactory.open(new LunConfig(number, LunConfig.BackendKind.MEMORY, null, 4L << 20, BLOCK, false,
                LunConfig.WriteCachePolicy.WRITE_BACK, false, 0, List.of(), false, false));
    }

    /** Serves {@code backend} as LUN {@code number} to every initiator. */
    private void serve(final int number, final BlockBackend backend) {
        units.add(new LogicalUnit(number, LogicalUnitConfig.builder().serialNumber("lun" + number).blockSize(BLOCK)
                .maxTransferBytes(1 << 20).build(), backend));
    }

    /** {@code data} written at {@link #LBA} by {@code ini}, answered GOOD. */
    private static void writeBlock(final TestInitiator ini, final long lun, final byte[] data) {
        fill(ini, IN, data);
        assertEquals(ScsiStatus.GOOD, ini.execute(lun, TestInitiator.write16(LBA, 1), BLOCK, 0, IN, false).status());
    }

    @AfterEach
    void closeInPlaceLun() {
        inPlace.close();
    }

    /** An in-place LUN whose read completions a test may hold, as {@link TargetTestBase#lun0Gate} holds LUN 0's. */
    private static final class GatedInPlace extends ForwardingBackend implements InPlaceStorage {
        final CompletionGate gate = new CompletionGate();

        GatedInPlace(final LunBackend memory) {
            super(memory);
        }

        @Override
        public void read(final long deviceOffset, final MemorySegment buffer, final long bufferOffset, final int length,
                         final BackendCallback callback) {
            delegate.read(deviceOffset, buffer, bufferOffset, length, new BackendCallback() {
                @Override
                public void completed(final BackendStatus status) {
                    gate.execute(() -> callback.completed(status));
                }

                @Override
                public CallDeferral deferral() {
                    return callback.deferral();
                }
            });
        }

        @Override
        public MemoryRegion regionIn(final ProtectionDomain pd) {
            return ((InPlaceStorage) delegate).regionIn(pd);
        }

        @Override
        public void releaseRegionIn(final ProtectionDomain pd) {
            ((InPlaceStorage) delegate).releaseRegionIn(pd);
        }
    }

    /** The block at {@link #LBA} as the LUN's memory holds it, read past any gate. */
    private static byte[] inMemory(final LunBackend memory) {
        final MemorySegment copy = MemorySegment.ofArray(new byte[BLOCK]);
        final java.util.concurrent.atomic.AtomicReference<BackendStatus> status = new java.util.concurrent.atomic.AtomicReference<>();
        memory.read(LBA * BLOCK, copy, 0, BLOCK, status::set);
        assertEquals(BackendStatus.OK, status.get());
        return copy.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
    }

    @Test
    void aWriteArrivingDuringACompareAndWriteIsNotPlacedInTheLunsMemory() {
        final LunBackend memory = memoryLun(3);
        try {
            final GatedInPlace gated = new GatedInPlace(memory);
            serve(3, gated);
            final long lun = LunAddress.encode(3);
            final TestInitiator a = login(0xA);
            final TestInitiator c = login(0xC);
            final byte[] start = pattern(BLOCK, 17);
            writeBlock(a, lun, start);
            final byte[] plain = pattern(BLOCK, 19);
            gated.gate.hold();
            submitCompareAndWrite(a, lun, 1, start, pattern(BLOCK, 18));
            waitUpTo(SETTLE, "the COMPARE AND WRITE's read waits").until(gated.gate::heldCount, held -> held == 1);
            submitWrite(c, lun, 2, plain);
            assertThrows(ConditionTimeoutException.class, () -> waitUpTo(Duration.ofMillis(300), "the WRITE's data in memory")
                    .until(() -> Arrays.equals(inMemory(memory), plain)), "the WRITE's data stays out of the LUN's memory");
            gated.gate.release();
            assertEquals(ScsiStatus.GOOD, a.awaitResponse().status(), "the compare saw the blocks as they were");
            assertEquals(ScsiStatus.GOOD, c.awaitResponse().status());
            assertArrayEquals(plain, inMemory(memory), "the WRITE landed after the COMPARE AND WRITE");
        } finally {
            memory.close();
        }
    }

    private static void submitCompareAndWrite(final TestInitiator ini, final long lun, final long tag, final byte[] expected,
                                              final byte[] fresh) {
        fill(ini, 0, concat(expected, fresh));
        ini.submit(tag, lun, compareAndWrite(LBA), 2 * BLOCK, 0, 0, false);
    }

    private static void submitWrite(final TestInitiator ini, final long lun, final long tag, final byte[] data) {
        fill(ini, 0, data);
        ini.submit(tag, lun, TestInitiator.write16(LBA, 1), BLOCK, 0, 0, false);
    }

    private static byte[] readBlock(final TestInitiator ini, final long lun) {
        assertEquals(ScsiStatus.GOOD, ini.execute(lun, TestInitiator.read16(LBA, 1), 0, BLOCK, IN, false).status());
        return bytesAt(ini, IN, BLOCK);
    }

    /** What one racer does to the block: A and B compare-and-write, C writes. */
    private record Step(char who, byte[] expected, byte[] fresh) {
    }

    /** Every (A's status, B's status, final block) a serial order of the three steps gives, from {@code start}. */
    private static List<String> serialOutcomes(final byte[] start, final List<Step> steps) {
        final List<String> outcomes = new ArrayList<>();
        for (final int[] order : new int[][] {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}) {
            byte[] block = start;
            final Map<Character, Integer> status = new HashMap<>();
            for (final int i : order) {
                final Step s = steps.get(i);
                if (s.expected() == null || Arrays.equals(block, s.expected())) {
                    block = s.fresh();
                    status.put(s.who(), ScsiStatus.GOOD);
                } else {
                    status.put(s.who(), ScsiStatus.CHECK_CONDITION);
                }
            }
            outcomes.add(status.get('A') + "/" + status.get('B') + "/" + Arrays.hashCode(block));
        }
        return outcomes;
    }

    @Test
    void racingCompareAndWritesHaveOneWinnerAndAPlainWriteLandsBeforeOrAfterEach() {
        race(LUN0);
    }

    /** The same on a LUN whose plain WRITEs are placed in place: one racing a COMPARE AND WRITE must not be. */
    @Test
    void theRaceHoldsOnALunServedInPlace() {
        race(IN_PLACE_LUN);
        assertTrue(statistics.count(TargetStatistics.Count.IN_PLACE) > 0, "some commands went in place");
    }

    private void race(final long lun) {
        final TestInitiator a = login(0xA);
        final TestInitiator b = login(0xB);
        final TestInitiator c = login(0xC);
        byte[] current = pattern(BLOCK, 0);
        writeBlock(a, lun, current);
        int bothCompared = 0;
        for (int round = 1; round <= ROUNDS; round++) {
            final byte[] fromA = pattern(BLOCK, 3 * round);
            final byte[] fromB = pattern(BLOCK, 3 * round + 1);
            final byte[] plain = pattern(BLOCK, 3 * round + 2);
            final boolean withWrite = round % 2 == 0;
            submitCompareAndWrite(a, lun, round, current, fromA);
            submitCompareAndWrite(b, lun, round, current, fromB);
            if (withWrite) {
                submitWrite(c, lun, round, plain);
            }
            final Response ra = a.awaitResponse();
            final Response rb = b.awaitResponse();
            if (withWrite) {
                assertEquals(ScsiStatus.GOOD, c.awaitResponse().status(), "round " + round + ": the plain WRITE");
            }
            for (final Response r : List.of(ra, rb)) {
                assertTrue(r.status() == ScsiStatus.GOOD || r.status() == ScsiStatus.CHECK_CONDITION && r.senseKey() == MISCOMPARE,
                        "round " + round + ": GOOD or MISCOMPARE, not " + r);
            }
            final byte[] after = readBlock(a, lun);
            final List<Step> steps = new ArrayList<>(List.of(new Step('A', current, fromA), new Step('B', current, fromB)));
            steps.add(withWrite ? new Step('C', null, plain) : new Step('C', current, current));
            final String seen = ra.status() + "/" + rb.status() + "/" + Arrays.hashCode(after);
            assertTrue(serialOutcomes(current, steps).contains(seen), "round " + round + ": " + seen
                    + " is no serial order's outcome (A " + ra.status() + ", B " + rb.status() + ")");
            if (!withWrite) {
                assertEquals(1, (ra.status() == ScsiStatus.GOOD ? 1 : 0) + (rb.status() == ScsiStatus.GOOD ? 1 : 0),
                        "round " + round + ": exactly one winner");
            }
            bothCompared += ra.status() == ScsiStatus.GOOD && rb.status() == ScsiStatus.GOOD ? 1 : 0;
            current = after;
        }
        assertEquals(0, bothCompared, "never two winners on one block");
    }

    @Test
    void aWriteThatArrivesDuringACompareAndWriteWaitsForIt() {
        final TestInitiator a = login(0xA);
        final TestInitiator c = login(0xC);
        final byte[] start = pattern(BLOCK, 7);
        writeBlock(a, LUN0, start);
        final byte[] fresh = pattern(BLOCK, 8);
        final byte[] plain = pattern(BLOCK, 9);
        lun0Gate.hold();
        submitCompareAndWrite(a, LUN0, 1, start, fresh);
        waitUpTo(SETTLE, "the COMPARE AND WRITE's read waits in the backend").until(lun0Gate::heldCount, held -> held == 1);
        submitWrite(c, LUN0, 2, plain);
        assertThrows(ConditionTimeoutException.class, () -> waitUpTo(Duration.ofMillis(300), "the WRITE reaching the backend")
                .until(lun0Gate::heldCount, held -> held > 1), "the WRITE waits for the COMPARE AND WRITE");
        lun0Gate.release();
        assertEquals(ScsiStatus.GOOD, a.awaitResponse().status(), "the compare found what it read before the WRITE");
        assertEquals(ScsiStatus.GOOD, c.awaitResponse().status());
        assertArrayEquals(plain, readBlock(a, LUN0), "the WRITE landed after the COMPARE AND WRITE");
    }
}
