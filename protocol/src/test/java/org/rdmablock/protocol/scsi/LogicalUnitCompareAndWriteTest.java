package org.rdmablock.protocol.scsi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.rdmablock.protocol.scsi.LunHarness.assertCheckCondition;
import static org.rdmablock.protocol.scsi.LunHarness.assertGood;

/**
 * COMPARE AND WRITE (SBC-4 5.3) in the engine: equal blocks are replaced by the write instance, a difference is
 * MISCOMPARE with its offset and writes nothing, and the length limit the Block Limits VPD page reports.
 */
class LogicalUnitCompareAndWriteTest {
    private static byte[] random(final int length, final long seed) {
        final byte[] data = new byte[length];
        new Random(seed).nextBytes(data);
        return data;
    }

    private static byte[] concat(final byte[] verify, final byte[] write) {
        final byte[] both = Arrays.copyOf(verify, verify.length + write.length);
        System.arraycopy(write, 0, both, verify.length, write.length);
        return both;
    }

    private static byte[] medium(final LunHarness h, final long lba, final int blocks, final int blockSize) {
        assertGood(h.run(Cdbs.rw16(false, lba, blocks, false), blocks * blockSize));
        return h.dataIn();
    }

    @ParameterizedTest
    @ValueSource(ints = {512, 4096})
    void equalBlocksAreReplacedAndADifferenceIsAMiscompareThatWritesNothing(final int blockSize) {
        final LunHarness h = LunHarness.of(blockSize);
        final byte[] old = random(2 * blockSize, 1);
        final byte[] fresh = random(2 * blockSize, 2);
        assertGood(h.run(Cdbs.rw16(true, 6, 2, false), old, 0));
        assertGood(h.run(Cdbs.compareAndWrite(6, 2, false), concat(old, fresh), 0));
        assertArrayEquals(fresh, medium(h, 6, 2, blockSize));

        final byte[] stale = old.clone(); // the medium holds fresh now: comparing with old differs at byte 0
        final int at = blockSize + 3;
        final byte[] almost = fresh.clone();
        almost[at] ^= 0x10;
        ScsiCommand c = h.run(Cdbs.compareAndWrite(6, 2, true), concat(almost, stale), 0);
        assertCheckCondition(c, SenseCode.MISCOMPARE_DURING_VERIFY_OPERATION);
        assertEquals(SenseKey.MISCOMPARE, LunHarness.senseKey(c));
        assertEquals(at, ByteBuffer.wrap(c.senseData().asSlice(0, c.senseLength()).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE))
                .getInt(3), "INFORMATION: the first differing byte");
        assertArrayEquals(fresh, medium(h, 6, 2, blockSize), "nothing written");
    }

    @Test
    void theLengthLimitIsTheBlockLimitsPagesAndZeroBlocksIsNoError() {
        final LunHarness h = LunHarness.of(512);
        assertGood(h.run(Cdbs.inquiryVpd(0xB0, 64), 64));
        assertEquals(128, h.dataInByte(5), "MAXIMUM COMPARE AND WRITE LENGTH: 64 KiB of 512-byte blocks");
        assertEquals(128, h.unit.maxCompareAndWriteBlocks());
        assertEquals(16, LunHarness.of(4096).unit.maxCompareAndWriteBlocks());
        final ScsiCommand tooLong = h.run(Cdbs.compareAndWrite(0, 129, false), new byte[2 * 129 * 512], 0);
        assertCheckCondition(tooLong, SenseCode.INVALID_FIELD_IN_CDB);
        assertEquals(13, LunHarness.fieldPointer(tooLong));
        assertGood(h.run(Cdbs.compareAndWrite(0, 0, false), 0));
        assertCheckCondition(h.run(Cdbs.compareAndWrite(0, 2, false), new byte[3 * 512], 0), SenseCode.INVALID_FIELD_IN_CDB);
        assertCheckCondition(h.run(Cdbs.compareAndWrite(h.unit.blockCount() - 1, 2, false), new byte[4 * 512], 0),
                SenseCode.LBA_OUT_OF_RANGE);
        final byte[] protect = Cdbs.compareAndWrite(0, 1, false);
        protect[1] = (byte) 0x20;
        assertCheckCondition(h.run(protect, new byte[1024], 0), SenseCode.INVALID_FIELD_IN_CDB);
    }

    @Test
    void aReadOnlyUnitRefusesItAndTheOperationCodesListIt() {
        final LunHarness h = new LunHarness(LunHarness.config(512).readOnly(true).build(), 1 << 20);
        assertCheckCondition(h.run(Cdbs.compareAndWrite(0, 1, false), new byte[1024], 0), SenseCode.WRITE_PROTECTED);
        assertGood(h.run(Cdbs.reportOpcodes(1, false, 0x89, 0, 64), 64));
        assertEquals(3, h.dataIn()[1] & 0x07, "supported");
        assertEquals(16, ByteBuffer.wrap(h.dataIn()).getShort(2));
    }

    @Test
    void aWriteErrorAfterAnEqualCompareIsAWriteErrorAndAReadErrorBeforeIsAReadError() {
        final LunHarness h = LunHarness.of(512);
        h.backend.failNext(InMemoryBackend.Operation.WRITE, BackendStatus.IO_ERROR);
        assertCheckCondition(h.run(Cdbs.compareAndWrite(0, 1, false), new byte[1024], 0), SenseCode.WRITE_ERROR);
        h.backend.failNext(InMemoryBackend.Operation.READ, BackendStatus.IO_ERROR);
        assertCheckCondition(h.run(Cdbs.compareAndWrite(0, 1, false), new byte[1024], 0), SenseCode.UNRECOVERED_READ_ERROR);
    }
}
