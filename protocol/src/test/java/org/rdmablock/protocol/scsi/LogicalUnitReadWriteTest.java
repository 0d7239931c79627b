package org.rdmablock.protocol.scsi;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.rdmablock.protocol.scsi.LunHarness.assertCheckCondition;
import static org.rdmablock.protocol.scsi.LunHarness.assertGood;

/** READ/WRITE (6)/(10)/(12)/(16), FUA and write-cache semantics, capacity, range errors and residuals, at both block sizes. */
class LogicalUnitReadWriteTest {

    @ParameterizedTest
    @ValueSource(ints = {512, 4096})
    void readCapacity10And16(int blockSize) {
        LunHarness h = LunHarness.of(blockSize);
        long blocks = h.backend.sizeBytes() / blockSize;
        assertGood(h.run(Cdbs.readCapacity10(), 8));
        ByteBuffer rc10 = ByteBuffer.wrap(h.dataIn());
        assertEquals(blocks - 1, Integer.toUnsignedLong(rc10.getInt(0)));
        assertEquals(blockSize, rc10.getInt(4));

        assertGood(h.run(Cdbs.readCapacity16(32), 32));
        ByteBuffer rc16 = ByteBuffer.wrap(h.dataIn());
        assertEquals(32, rc16.capacity());
        assertEquals(blocks - 1, rc16.getLong(0));
        assertEquals(blockSize, rc16.getInt(8));
        assertEquals(0, rc16.get(12));                     // no protection
        assertEquals(0xC0, rc16.get(14) & 0xC0);           // LBPME and LBPRZ: thin, unmapped reads zero
    }

    @ParameterizedTest
    @ValueSource(ints = {512, 4096})
    void readCapacity16ReportsPhysicalBlockExponentAndNoLbpmeWhenFull(int blockSize) {
        LunHarness h = new LunHarness(LunHarness.config(blockSize).thinProvisioning(false).physicalBlockExponent(3).build(), 1 << 22);
        assertGood(h.run(Cdbs.readCapacity16(32), 32));
        assertEquals(3, h.dataInByte(13) & 0x0F);
        assertEquals(0, h.dataInByte(14));
    }

    @ParameterizedTest
    @ValueSource(ints = {512, 4096})
    void writeThenReadBackInEveryCdbSize(int blockSize) {
        LunHarness h = LunHarness.of(blockSize);
        Random random = new Random(blockSize);
        byte[][] writes = {
                Cdbs.rw6(true, 3, 2), Cdbs.rw10(true, 10, 3, false), Cdbs.rw12(true, 20, 1, false), Cdbs.rw16(true, 30, 4, false)};
        byte[][] reads = {
                Cdbs.rw6(false, 3, 2), Cdbs.rw10(false, 10, 3, false), Cdbs.rw12(false, 20, 1, false), Cdbs.rw16(false, 30, 4, false)};
        int[] blocks = {2, 3, 1, 4};
        long[] lbas = {3, 10, 20, 30};
        for (int i = 0; i < writes.length; i++) {
            byte[] data = new byte[blocks[i] * blockSize];
            random.nextBytes(data);
            ScsiCommand w = h.run(writes[i], data, 0);
            assertGood(w);
            assertEquals(ResidualKind.NONE, w.dataOutResidualKind());
            assertArrayEquals(data, h.backend.storage().asSlice(lbas[i] * blockSize, data.length).toArray(ValueLayout.JAVA_BYTE),
                    "backend holds what WRITE sent");
            h.buffer.fill((byte) 0);
            ScsiCommand r = h.run(reads[i], data.length);
            assertGood(r);
            assertEquals(data.length, r.dataInLength());
            assertEquals(ResidualKind.NONE, r.dataInResidualKind());
            assertArrayEquals(data, h.dataIn(), "READ returns what WRITE stored");
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {512, 4096})
    void read6TransferLengthZeroMeans256Blocks(int blockSize) {
        LunHarness h = LunHarness.of(blockSize);
        ScsiCommand r = h.run(Cdbs.rw6(false, 0, 0), 256 * blockSize);
        assertGood(r);
        assertEquals(256L * blockSize, r.dataInLength());
    }

    @ParameterizedTest
    @ValueSource(ints = {512, 4096})
    void fuaAndWriteThroughAskTheBackendForDurability(int blockSize) {
        LunHarness h = LunHarness.of(blockSize);
        assertGood(h.run(Cdbs.rw10(true, 0, 1, false), new byte[blockSize], 0));
        assertEquals(0, h.backend.forcedWriteCount(), "write-back, no FUA");
        assertGood(h.run(Cdbs.rw16(true, 0, 1, true), new byte[blockSize], 0));
        assertEquals(1, h.backend.forcedWriteCount(), "FUA");

        LunHarness writeThrough = new LunHarness(LunHarness.config(blockSize).writeCacheEnabled(false).build(), 1 << 22);
        assertGood(writeThrough.run(Cdbs.rw10(true, 0, 1, false), new byte[blockSize], 0));
        assertEquals(1, writeThrough.backend.forcedWriteCount(), "write cache disabled: every write is forced");
    }

    @ParameterizedTest
    @ValueSource(ints = {512, 4096})
    void lbaOutOfRange(int blockSize) {
        LunHarness h = LunHarness.of(blockSize);
        long blocks = h.unit.blockCount();
        assertGood(h.run(Cdbs.rw16(false, blocks - 1, 1, false), blockSize));
        assertCheckCondition(h.run(Cdbs.rw16(false, blocks - 1, 2, false), 2 * blockSize), SenseCode.LBA_OUT_OF_RANGE);
        assertCheckCondition(h.run(Cdbs.rw16(false, blocks, 1, false), blockSize), SenseCode.LBA_OUT_OF_RANGE);
        assertCheckCondition(h.run(Cdbs.rw16(false, -1L, 1, false), blockSize), SenseCode.LBA_OUT_OF_RANGE);
        assertCheckCondition(h.run(Cdbs.rw16(true, Long.MAX_VALUE, 1, false), new byte[blockSize], 0), SenseCode.LBA_OUT_OF_RANGE);
        assertCheckCondition(h.run(Cdbs.verify16(blocks, 1), 0), SenseCode.LBA_OUT_OF_RANGE);
        assertGood(h.run(Cdbs.verify16(0, 8), 0));
        assertGood(h.run(Cdbs.rw10(false, blocks, 0, false), 0));    // zero blocks at the end is no error
    }

    @ParameterizedTest
    @ValueSource(ints = {512, 4096})
    void transferLongerThanTheBlockLimitIsAnInvalidField(int blockSize) {
        LunHarness h = LunHarness.of(blockSize);
        int max = (int) h.unit.maxTransferBlocks();
        ScsiCommand c = h.run(Cdbs.rw10(false, 0, max + 1, false), LunHarness.BUFFER);
        assertCheckCondition(c, SenseCode.INVALID_FIELD_IN_CDB);
        assertEquals(7, LunHarness.fieldPointer(c), "points at the transfer length");
    }

    @ParameterizedTest
    @ValueSource(ints = {512, 4096})
    void readResidualsUnderflowAndOverflow(int blockSize) {
        LunHarness h = LunHarness.of(blockSize);
        byte[] data = new byte[2 * blockSize];
        Arrays.fill(data, (byte) 0x5A);
        assertGood(h.run(Cdbs.rw10(true, 4, 2, false), data, 0));

        ScsiCommand under = h.run(Cdbs.rw10(false, 4, 2, false), 3 * blockSize);
        assertGood(under);
        assertEquals(2L * blockSize, under.dataInLength());
        assertEquals(ResidualKind.UNDERFLOW, under.dataInResidualKind());
        assertEquals(blockSize, under.dataInResidual());

        h.buffer.fill((byte) 0);
        ScsiCommand over = h.run(Cdbs.rw10(false, 4, 2, false), blockSize + 100);
        assertGood(over);
        assertEquals(blockSize + 100, over.dataInLength(), "only what the initiator's buffer takes");
        assertEquals(ResidualKind.OVERFLOW, over.dataInResidualKind());
        assertEquals(blockSize - 100, over.dataInResidual());
        assertEquals(0x5A, h.dataInByte(blockSize + 99));
        assertEquals(0, h.dataInByte(blockSize + 100), "nothing written past the offered length");
    }

    @ParameterizedTest
    @ValueSource(ints = {512, 4096})
    void writeResidualsUnderflowWritesAndOverflowRefuses(int blockSize) {
        LunHarness h = LunHarness.of(blockSize);
        byte[] more = new byte[3 * blockSize];
        Arrays.fill(more, (byte) 7);
        ScsiCommand under = h.run(Cdbs.rw10(true, 0, 2, false), more, 0);
        assertGood(under);
        assertEquals(ResidualKind.UNDERFLOW, under.dataOutResidualKind());
        assertEquals(blockSize, under.dataOutResidual());
        assertEquals(7, h.backend.storage().get(ValueLayout.JAVA_BYTE, 2L * blockSize - 1));
        assertEquals(0, h.backend.storage().get(ValueLayout.JAVA_BYTE, 2L * blockSize), "only the CDB's blocks written");

        long writesBefore = h.backend.writeCount();
        ScsiCommand over = h.run(Cdbs.rw10(true, 10, 2, false), new byte[blockSize], 0);
        assertCheckCondition(over, SenseCode.INVALID_FIELD_IN_CDB);
        assertEquals(ResidualKind.OVERFLOW, over.dataOutResidualKind());
        assertEquals(blockSize, over.dataOutResidual());
        assertEquals(writesBefore, h.backend.writeCount(), "nothing written");
    }

    @ParameterizedTest
    @ValueSource(ints = {512, 4096})
    void commandsWithoutDataLeaveOfferedBytesAsUnderflow(int blockSize) {
        LunHarness h = LunHarness.of(blockSize);
        ScsiCommand c = h.run(Cdbs.testUnitReady(), 512);
        assertGood(c);
        assertEquals(ResidualKind.UNDERFLOW, c.dataInResidualKind());
        assertEquals(512, c.dataInResidual());
        assertEquals(0, c.dataInLength());
    }

    @ParameterizedTest
    @ValueSource(ints = {512, 4096})
    void backendErrorsBecomeMediumErrorsWithTheLba(int blockSize) {
        LunHarness h = LunHarness.of(blockSize);
        h.backend.failNext(InMemoryBackend.Operation.READ, BackendStatus.IO_ERROR);
        ScsiCommand r = h.run(Cdbs.rw10(false, 9, 1, false), blockSize);
        assertCheckCondition(r, SenseCode.UNRECOVERED_READ_ERROR);
        assertEquals(ResidualKind.UNDERFLOW, r.dataInResidualKind(), "failed READ moved nothing");
        assertEquals(0x80, r.senseData().get(ValueLayout.JAVA_BYTE, 0) & 0x80, "information field valid");
        assertEquals(9, r.senseData().get(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 3));

        h.backend.failNext(InMemoryBackend.Operation.WRITE, BackendStatus.IO_ERROR);
        assertCheckCondition(h.run(Cdbs.rw10(true, 0, 1, false), new byte[blockSize], 0), SenseCode.WRITE_ERROR);
        h.backend.failNext(InMemoryBackend.Operation.WRITE, BackendStatus.NO_SPACE);
        assertCheckCondition(h.run(Cdbs.rw10(true, 0, 1, false), new byte[blockSize], 0), SenseCode.SPACE_ALLOCATION_FAILED_WRITE_PROTECT);
        h.backend.failNext(InMemoryBackend.Operation.FLUSH, BackendStatus.INTERNAL_ERROR);
        assertCheckCondition(h.run(Cdbs.synchronizeCache10(0, 0), 0), SenseCode.INTERNAL_TARGET_FAILURE);
    }

    @ParameterizedTest
    @ValueSource(ints = {512, 4096})
    void readOnlyUnitRefusesWrites(int blockSize) {
        LunHarness h = new LunHarness(LunHarness.config(blockSize).readOnly(true).build(), 1 << 22);
        assertCheckCondition(h.run(Cdbs.rw10(true, 0, 1, false), new byte[blockSize], 0), SenseCode.WRITE_PROTECTED);
        assertGood(h.run(Cdbs.rw10(false, 0, 1, false), blockSize));
    }

    @ParameterizedTest
    @ValueSource(ints = {512, 4096})
    void aWriteProtectedWhileServingRefusesWritesUntilLifted(int blockSize) {
        LunHarness h = LunHarness.of(blockSize);
        assertGood(h.run(Cdbs.rw10(true, 0, 1, false), new byte[blockSize], 0));
        h.unit.writeProtect(true);
        assertCheckCondition(h.run(Cdbs.rw10(true, 0, 1, false), new byte[blockSize], 0), SenseCode.WRITE_PROTECTED);
        assertEquals(false, h.unit.reachesBackend(decoded(Cdbs.rw10(true, 0, 1, false)), null), "a placed WRITE would be refused");
        assertGood(h.run(Cdbs.rw10(false, 0, 1, false), blockSize));
        h.unit.writeProtect(false);
        assertGood(h.run(Cdbs.rw10(true, 0, 1, false), new byte[blockSize], 0));
    }

    @ParameterizedTest
    @ValueSource(ints = {512, 4096})
    void aCapacityChangedWhileServingIsWhatReadCapacityAndTheRangeChecksUse(int blockSize) {
        LunHarness h = LunHarness.of(blockSize);
        long blocks = h.unit.blockCount();
        h.unit.changeCapacity(blocks / 2);
        assertGood(h.run(Cdbs.readCapacity16(32), 32));
        assertEquals(blocks / 2 - 1, ByteBuffer.wrap(h.dataIn()).getLong(0));
        assertCheckCondition(h.run(Cdbs.rw16(false, blocks / 2, 1, false), blockSize), SenseCode.LBA_OUT_OF_RANGE);
        h.unit.changeCapacity(blocks);
        assertGood(h.run(Cdbs.rw16(false, blocks / 2, 1, false), blockSize));
        assertGood(h.run(Cdbs.readCapacity10(), 8));
        assertEquals(blocks - 1, Integer.toUnsignedLong(ByteBuffer.wrap(h.dataIn()).getInt(0)));
    }

    private static CdbDecoder decoded(byte[] cdb) {
        CdbDecoder d = new CdbDecoder();
        java.lang.foreign.MemorySegment segment = java.lang.foreign.MemorySegment.ofArray(cdb);
        assertEquals(true, d.decode(segment, 0, cdb.length));
        return d;
    }

    @ParameterizedTest
    @ValueSource(ints = {512, 4096})
    void synchronizeCacheFlushes(int blockSize) {
        LunHarness h = LunHarness.of(blockSize);
        assertGood(h.run(Cdbs.synchronizeCache10(0, 0), 0));
        assertGood(h.run(Cdbs.synchronizeCache16(8, 16), 0));
        assertEquals(2, h.backend.flushCount());
        assertCheckCondition(h.run(Cdbs.synchronizeCache16(h.unit.blockCount(), 1), 0), SenseCode.LBA_OUT_OF_RANGE);
        assertEquals(2, h.backend.flushCount());
    }

    @org.junit.jupiter.api.Test
    void startStopAndPreventAllowAreAcceptedNoOps() {
        LunHarness h = LunHarness.of(512);
        assertGood(h.run(Cdbs.startStopUnit(false), 0));
        assertGood(h.run(Cdbs.startStopUnit(true), 0));
        assertGood(h.run(new byte[]{0x1E, 0, 0, 0, 1, 0}, 0));
        assertGood(h.run(Cdbs.rw10(false, 0, 1, false), 512));   // still serving after a STOP: always ready
        assertEquals(0, h.backend.writeCount() + h.backend.flushCount() + h.backend.unmapCount());
    }
}
