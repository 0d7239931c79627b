package org.rdmablock.target.srp;

import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.rdmablock.protocol.scsi.ScsiStatus;
import org.rdmablock.target.srp.TestInitiator.Response;

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
 * order's); a WRITE that arrives while a COMPARE AND WRITE is between its read and its write waits for it.
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

    private static void submitCompareAndWrite(final TestInitiator ini, final long tag, final byte[] expected, final byte[] fresh) {
        fill(ini, 0, concat(expected, fresh));
        ini.submit(tag, LUN0, compareAndWrite(LBA), 2 * BLOCK, 0, 0, false);
    }

    private static void submitWrite(final TestInitiator ini, final long tag, final byte[] data) {
        fill(ini, 0, data);
        ini.submit(tag, LUN0, TestInitiator.write16(LBA, 1), BLOCK, 0, 0, false);
    }

    private static byte[] readBlock(final TestInitiator ini) {
        assertEquals(ScsiStatus.GOOD, ini.execute(LUN0, TestInitiator.read16(LBA, 1), 0, BLOCK, IN, false).status());
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
        final TestInitiator a = login(0xA);
        final TestInitiator b = login(0xB);
        final TestInitiator c = login(0xC);
        byte[] current = pattern(BLOCK, 0);
        fill(a, IN, current);
        assertEquals(ScsiStatus.GOOD, a.execute(LUN0, TestInitiator.write16(LBA, 1), BLOCK, 0, IN, false).status());
        int bothCompared = 0;
        for (int round = 1; round <= ROUNDS; round++) {
            final byte[] fromA = pattern(BLOCK, 3 * round);
            final byte[] fromB = pattern(BLOCK, 3 * round + 1);
            final byte[] plain = pattern(BLOCK, 3 * round + 2);
            final boolean withWrite = round % 2 == 0;
            submitCompareAndWrite(a, round, current, fromA);
            submitCompareAndWrite(b, round, current, fromB);
            if (withWrite) {
                submitWrite(c, round, plain);
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
            final byte[] after = readBlock(a);
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
        fill(a, IN, start);
        assertEquals(ScsiStatus.GOOD, a.execute(LUN0, TestInitiator.write16(LBA, 1), BLOCK, 0, IN, false).status());
        final byte[] fresh = pattern(BLOCK, 8);
        final byte[] plain = pattern(BLOCK, 9);
        lun0Gate.hold();
        submitCompareAndWrite(a, 1, start, fresh);
        waitUpTo(SETTLE, "the COMPARE AND WRITE's read waits in the backend").until(lun0Gate::heldCount, held -> held == 1);
        submitWrite(c, 2, plain);
        assertThrows(ConditionTimeoutException.class, () -> waitUpTo(Duration.ofMillis(300), "the WRITE reaching the backend")
                .until(lun0Gate::heldCount, held -> held > 1), "the WRITE waits for the COMPARE AND WRITE");
        lun0Gate.release();
        assertEquals(ScsiStatus.GOOD, a.awaitResponse().status(), "the compare found what it read before the WRITE");
        assertEquals(ScsiStatus.GOOD, c.awaitResponse().status());
        assertArrayEquals(plain, readBlock(a), "the WRITE landed after the COMPARE AND WRITE");
    }
}
