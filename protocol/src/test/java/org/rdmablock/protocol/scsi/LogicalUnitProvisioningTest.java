package org.rdmablock.protocol.scsi;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.rdmablock.protocol.scsi.LunHarness.assertCheckCondition;
import static org.rdmablock.protocol.scsi.LunHarness.assertGood;

/** UNMAP and WRITE SAME (10)/(16) with and without the UNMAP bit (SBC-3 5.28, 5.41, 5.42). */
class LogicalUnitProvisioningTest {

    @ParameterizedTest
    @ValueSource(ints = {512, 4096})
    void unmapDeallocatesEveryDescriptor(int blockSize) {
        LunHarness h = LunHarness.of(blockSize);
        fill(h, 0, 64, (byte) 0x11, blockSize);
        byte[] list = Cdbs.unmapList(2, 3, 10, 0, 20, 5);
        ScsiCommand c = h.run(Cdbs.unmap(list.length), list, 0);
        assertGood(c);
        assertEquals(2, h.backend.unmapCount(), "zero-length descriptors cost nothing");
        assertBlocks(h, 2, 3, (byte) 0, blockSize);
        assertBlocks(h, 5, 15, (byte) 0x11, blockSize);
        assertBlocks(h, 20, 5, (byte) 0, blockSize);
        assertBlocks(h, 25, 1, (byte) 0x11, blockSize);
    }

    @Test
    void unmapParameterErrors() {
        LunHarness h = new LunHarness(LunHarness.config(512).maxUnmapDescriptors(2).maxUnmapBlocks(100).build(), 1 << 22);
        assertGood(h.run(Cdbs.unmap(0), 0));
        assertCheckCondition(h.run(Cdbs.unmap(6), new byte[6], 0), SenseCode.PARAMETER_LIST_LENGTH_ERROR);
        byte[] three = Cdbs.unmapList(0, 1, 1, 1, 2, 1);
        assertCheckCondition(h.run(Cdbs.unmap(three.length), three, 0), SenseCode.INVALID_FIELD_IN_PARAMETER_LIST);
        byte[] tooMany = Cdbs.unmapList(0, 60, 100, 60);
        ScsiCommand c = h.run(Cdbs.unmap(tooMany.length), tooMany, 0);
        assertCheckCondition(c, SenseCode.INVALID_FIELD_IN_PARAMETER_LIST);
        assertEquals(8 + 16 + 8, LunHarness.fieldPointer(c), "the second descriptor's block count");
        byte[] outside = Cdbs.unmapList(h.unit.blockCount() - 1, 2);
        assertCheckCondition(h.run(Cdbs.unmap(outside.length), outside, 0), SenseCode.LBA_OUT_OF_RANGE);
        byte[] anchor = Cdbs.unmap(0);
        anchor[1] = 1;
        assertCheckCondition(h.run(anchor, 0), SenseCode.INVALID_FIELD_IN_CDB);
        assertEquals(0, h.backend.unmapCount(), "nothing unmapped by a refused command");
    }

    @Test
    void unmapOnAFullyProvisionedUnitIsAnUnknownCommand() {
        LunHarness h = new LunHarness(LunHarness.config(512).thinProvisioning(false).build(), 1 << 22);
        byte[] list = Cdbs.unmapList(0, 1);
        assertCheckCondition(h.run(Cdbs.unmap(list.length), list, 0), SenseCode.INVALID_COMMAND_OPERATION_CODE);
        assertCheckCondition(h.run(Cdbs.writeSame16(0, 1, true, true), 0), SenseCode.INVALID_FIELD_IN_CDB);
    }

    @ParameterizedTest
    @ValueSource(ints = {512, 4096})
    void writeSame16WithUnmapAndZeroesUnmaps(int blockSize) {
        LunHarness h = LunHarness.of(blockSize);
        fill(h, 0, 40, (byte) 0x22, blockSize);
        assertGood(h.run(Cdbs.writeSame16(4, 8, true, false), new byte[blockSize], 0));
        assertEquals(1, h.backend.unmapCount());
        assertBlocks(h, 4, 8, (byte) 0, blockSize);
        assertBlocks(h, 12, 1, (byte) 0x22, blockSize);
        assertGood(h.run(Cdbs.writeSame16(20, 4, true, true), 0));       // NDOB: no data-out at all
        assertEquals(2, h.backend.unmapCount());
        assertBlocks(h, 20, 4, (byte) 0, blockSize);
    }

    @ParameterizedTest
    @ValueSource(ints = {512, 4096})
    void writeSameWithAPatternWritesEveryBlock(int blockSize) {
        LunHarness h = LunHarness.of(blockSize);
        byte[] pattern = new byte[blockSize];
        Arrays.fill(pattern, (byte) 0x3C);
        pattern[0] = 1;
        // More blocks than the 1 MiB data buffer holds, so the write is chained.
        int blocks = (LunHarness.BUFFER / blockSize) * 2 + 3;
        LunHarness big = new LunHarness(LunHarness.config(blockSize).build(), (long) (blocks + 10) * blockSize);
        assertGood(big.run(Cdbs.writeSame16(5, blocks, true, false), pattern, 0));   // non-zero pattern: written, not unmapped
        assertEquals(0, big.backend.unmapCount());
        assertEquals(3, big.backend.writeCount(), "one write per buffer-full");
        for (long lba = 5; lba < 5 + blocks; lba += 997) {
            assertEquals(1, big.backend.storage().get(ValueLayout.JAVA_BYTE, lba * blockSize));
            assertEquals(0x3C, big.backend.storage().get(ValueLayout.JAVA_BYTE, lba * blockSize + blockSize - 1));
        }
        assertEquals(0, big.backend.storage().get(ValueLayout.JAVA_BYTE, (5L + blocks) * blockSize), "stops at the range end");

        assertGood(h.run(Cdbs.writeSame10(1, 2, false), pattern, 0));
        assertEquals(1, h.backend.storage().get(ValueLayout.JAVA_BYTE, 2L * blockSize));
        assertEquals(0, h.backend.unmapCount());
    }

    @Test
    void writeSameLimitsAndErrors() {
        LunHarness h = new LunHarness(LunHarness.config(512).maxWriteSameBlocks(16).build(), 1 << 22);
        ScsiCommand zero = h.run(Cdbs.writeSame16(0, 0, false, false), new byte[512], 0);
        assertCheckCondition(zero, SenseCode.INVALID_FIELD_IN_CDB);
        assertEquals(10, LunHarness.fieldPointer(zero));
        assertCheckCondition(h.run(Cdbs.writeSame16(0, 17, false, false), new byte[512], 0), SenseCode.INVALID_FIELD_IN_CDB);
        assertCheckCondition(h.run(Cdbs.writeSame16(h.unit.blockCount() - 1, 2, false, false), new byte[512], 0),
                SenseCode.LBA_OUT_OF_RANGE);
        assertCheckCondition(h.run(Cdbs.writeSame16(0, 2, false, false), new byte[100], 0), SenseCode.INVALID_FIELD_IN_CDB);
        byte[] anchor = Cdbs.writeSame16(0, 1, true, false);
        anchor[1] |= 0x10;
        assertCheckCondition(h.run(anchor, new byte[512], 0), SenseCode.INVALID_FIELD_IN_CDB);
    }

    @Test
    void writeSameChainSurvivesAsynchronousCompletionAndErrors() throws Exception {
        var executor = java.util.concurrent.Executors.newSingleThreadExecutor();
        try (InMemoryBackend backend = new InMemoryBackend(1 << 24, executor)) {
            LogicalUnit unit = new LogicalUnit(LunHarness.config(512).maxWriteSameBlocks(1 << 15).build(), backend);
            MemorySegment buffer = java.lang.foreign.Arena.ofAuto().allocate(8192);
            buffer.asSlice(0, 512).fill((byte) 9);
            var done = new java.util.concurrent.LinkedBlockingQueue<Integer>();
            ScsiCommand cmd = new ScsiCommand().setCompletion(c -> done.add(c.status()));
            cmd.setCdb(Cdbs.writeSame16(0, 1 << 15, false, false)).setDataBuffer(buffer, 0, 8192).setExpectedLengths(512, 0);
            unit.execute(cmd);
            assertEquals(ScsiStatus.GOOD, done.poll(10, java.util.concurrent.TimeUnit.SECONDS));
            assertEquals((1 << 15) * 512 / 8192, backend.writeCount());
            assertEquals(9, backend.storage().get(ValueLayout.JAVA_BYTE, (1L << 15) * 512 - 1));

            backend.failNext(InMemoryBackend.Operation.WRITE, BackendStatus.IO_ERROR);
            unit.execute(cmd);
            assertEquals(ScsiStatus.CHECK_CONDITION, done.poll(10, java.util.concurrent.TimeUnit.SECONDS));
            assertTrue(done.isEmpty());
        } finally {
            executor.shutdownNow();
        }
    }

    @Test
    void longSynchronousChainDoesNotRecurse() {
        // 2^17 one-block writes completing inline: a recursive design would overflow the stack.
        LunHarness h = new LunHarness(LunHarness.config(512).maxWriteSameBlocks(1 << 17).build(), 1L << 26);
        h.buffer.asSlice(0, 512).fill((byte) 4);
        ScsiCommand c = h.runWithBufferCapacity(Cdbs.writeSame16(0, 1 << 17, false, false), 512);
        assertGood(c);
        assertEquals(1 << 17, h.backend.writeCount());
    }

    private static void fill(LunHarness h, long lba, int blocks, byte value, int blockSize) {
        h.backend.storage().asSlice(lba * blockSize, (long) blocks * blockSize).fill(value);
    }

    private static void assertBlocks(LunHarness h, long lba, int blocks, byte value, int blockSize) {
        byte[] bytes = h.backend.storage().asSlice(lba * blockSize, (long) blocks * blockSize).toArray(ValueLayout.JAVA_BYTE);
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] != value) {
                throw new AssertionError("byte " + i + " from LBA " + lba + " is " + bytes[i] + ", expected " + value);
            }
        }
    }
}
