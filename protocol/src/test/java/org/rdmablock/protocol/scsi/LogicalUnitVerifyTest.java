package org.rdmablock.protocol.scsi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.rdmablock.protocol.scsi.LunHarness.assertCheckCondition;
import static org.rdmablock.protocol.scsi.LunHarness.assertGood;

/**
 * VERIFY's byte check (SBC-4 5.29, BYTCHK 01b and 11b): the data-out compared with the medium, MISCOMPARE DURING
 * VERIFY OPERATION with the first differing byte's offset in INFORMATION, across the engine's compare chunks and with a
 * backend that completes on another thread.
 */
class LogicalUnitVerifyTest {

    /** The fixed-format sense's INFORMATION (bytes 3-6), which must be VALID. */
    private static long information(final ScsiCommand c) {
        final ByteBuffer sense = ByteBuffer.wrap(c.senseData().asSlice(0, c.senseLength()).toArray(ValueLayout.JAVA_BYTE));
        assertEquals(0x80, sense.get(0) & 0x80, "VALID");
        return Integer.toUnsignedLong(sense.getInt(3));
    }

    private static byte[] random(final int length, final long seed) {
        final byte[] data = new byte[length];
        new Random(seed).nextBytes(data);
        return data;
    }

    @ParameterizedTest
    @ValueSource(ints = {512, 4096})
    void dataOutEqualToTheMediumIsGoodAndOneDifferingByteIsAMiscompareAtItsOffset(final int blockSize) {
        final LunHarness h = LunHarness.of(blockSize);
        final byte[] data = random(3 * blockSize, blockSize);
        assertGood(h.run(Cdbs.rw16(true, 4, 3, false), data, 0));
        assertGood(h.run(Cdbs.verify16(4, 3, CdbDecoder.BYTCHK_DATA_OUT), data, 0));
        assertGood(h.run(Cdbs.verify10(4, 3, CdbDecoder.BYTCHK_DATA_OUT), data, 0));

        final int at = 2 * blockSize + 17;
        data[at] ^= 0x40;
        final ScsiCommand c = h.run(Cdbs.verify16(4, 3, CdbDecoder.BYTCHK_DATA_OUT), data, 0);
        assertCheckCondition(c, SenseCode.MISCOMPARE_DURING_VERIFY_OPERATION);
        assertEquals(at, information(c));
        assertEquals(SenseKey.MISCOMPARE, LunHarness.senseKey(c));
    }

    @ParameterizedTest
    @ValueSource(ints = {512, 4096})
    void oneBlockOfDataOutIsComparedWithEachBlockOfTheRange(final int blockSize) {
        final LunHarness h = LunHarness.of(blockSize);
        final byte[] block = random(blockSize, 7);
        final byte[] five = new byte[5 * blockSize];
        for (int i = 0; i < 5; i++) {
            System.arraycopy(block, 0, five, i * blockSize, blockSize);
        }
        assertGood(h.run(Cdbs.rw16(true, 10, 5, false), five, 0));
        assertGood(h.run(Cdbs.verify16(10, 5, CdbDecoder.BYTCHK_ONE_BLOCK), block, 0));

        five[3 * blockSize + 5] ^= 1; // block 3 of the medium differs
        assertGood(h.run(Cdbs.rw16(true, 10, 5, false), five, 0));
        final ScsiCommand c = h.run(Cdbs.verify16(10, 5, CdbDecoder.BYTCHK_ONE_BLOCK), block, 0);
        assertCheckCondition(c, SenseCode.MISCOMPARE_DURING_VERIFY_OPERATION);
        assertEquals(3L * blockSize + 5, information(c));
    }

    @Test
    void aRangeLongerThanOneCompareChunkIsComparedToItsEnd() {
        final int blockSize = 512;
        final int blocks = 3 * LogicalUnit.COMPARE_CHUNK_BYTES / blockSize + 7; // four chunks, the last a short one
        final LunHarness h = LunHarness.of(blockSize);
        final byte[] data = random(blocks * blockSize, 3);
        assertGood(h.run(Cdbs.rw16(true, 0, blocks, false), data, 0));
        assertGood(h.run(Cdbs.verify16(0, blocks, CdbDecoder.BYTCHK_DATA_OUT), data, 0));
        final int last = data.length - 1;
        data[last] ^= (byte) 0x80;
        final ScsiCommand c = h.run(Cdbs.verify16(0, blocks, CdbDecoder.BYTCHK_DATA_OUT), data, 0);
        assertCheckCondition(c, SenseCode.MISCOMPARE_DURING_VERIFY_OPERATION);
        assertEquals(last, information(c));
    }

    @Test
    void aBackendCompletingOnAnotherThreadComparesEachChunkBeforeReadingTheNext() throws Exception {
        final int blockSize = 4096;
        final int blocks = 2 * LogicalUnit.COMPARE_CHUNK_BYTES / blockSize + 1;
        final ExecutorService completer = Executors.newSingleThreadExecutor();
        try {
            final InMemoryBackend backend = new InMemoryBackend(1 << 22, completer);
            final LogicalUnit unit = new LogicalUnit(LunHarness.config(blockSize).build(), backend);
            final MemorySegment buffer = Arena.ofAuto().allocate((long) blocks * blockSize, 4096);
            final byte[] data = random(blocks * blockSize, 11);
            MemorySegment.copy(data, 0, buffer, ValueLayout.JAVA_BYTE, 0, data.length);
            final ScsiCommand cmd = new ScsiCommand();
            assertGood(run(unit, cmd, Cdbs.rw16(true, 1, blocks, false), buffer));
            assertGood(run(unit, cmd, Cdbs.verify16(1, blocks, CdbDecoder.BYTCHK_DATA_OUT), buffer));
            final long at = LogicalUnit.COMPARE_CHUNK_BYTES + 100L; // in the second chunk
            buffer.set(ValueLayout.JAVA_BYTE, at, (byte) ~buffer.get(ValueLayout.JAVA_BYTE, at));
            final ScsiCommand c = run(unit, cmd, Cdbs.verify16(1, blocks, CdbDecoder.BYTCHK_DATA_OUT), buffer);
            assertCheckCondition(c, SenseCode.MISCOMPARE_DURING_VERIFY_OPERATION);
            assertEquals(at, information(c));
        } finally {
            completer.shutdownNow();
        }
    }

    private static ScsiCommand run(final LogicalUnit unit, final ScsiCommand cmd, final byte[] cdb, final MemorySegment buffer)
            throws Exception {
        final CompletableFuture<ScsiCommand> done = new CompletableFuture<>();
        cmd.setCdb(cdb).setDataBuffer(buffer, 0, buffer.byteSize()).setExpectedLengths(buffer.byteSize(), 0)
                .setCompletion(done::complete);
        unit.execute(cmd);
        return done.get(10, TimeUnit.SECONDS);
    }

    @Test
    void reservedByteCheckShortDataOutAndZeroBlocks() {
        final int blockSize = 512;
        final LunHarness h = LunHarness.of(blockSize);
        ScsiCommand c = h.run(Cdbs.verify16(0, 1, 2), new byte[blockSize], 0);
        assertCheckCondition(c, SenseCode.INVALID_FIELD_IN_CDB);
        assertEquals(1, LunHarness.fieldPointer(c), "BYTCHK 10b is reserved");

        c = h.run(Cdbs.verify16(0, 2, CdbDecoder.BYTCHK_DATA_OUT), new byte[blockSize], 0);
        assertCheckCondition(c, SenseCode.INVALID_FIELD_IN_CDB);
        assertEquals(10, LunHarness.fieldPointer(c), "less data-out than the blocks to compare");

        assertGood(h.run(Cdbs.verify16(0, 0, CdbDecoder.BYTCHK_DATA_OUT), 0));
        assertCheckCondition(h.run(Cdbs.verify16(h.unit.blockCount(), 1, CdbDecoder.BYTCHK_DATA_OUT), new byte[blockSize], 0),
                SenseCode.LBA_OUT_OF_RANGE);
    }
}
