package org.rdmablock.protocol.scsi;

import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.rdmablock.protocol.scsi.LunHarness.assertCheckCondition;
import static org.rdmablock.protocol.scsi.LunHarness.assertGood;

/**
 * GET LBA STATUS (SBC-4 5.8) in the engine: a descriptor per run of mapped or deallocated blocks from the starting LBA,
 * runs of one status merged, as many as the allocation length holds, over a backend whose provisioning the test sets.
 */
class LogicalUnitGetLbaStatusTest {
    private static final int BLOCK = 512;
    private static final long BYTES = 1 << 20;

    /** Deallocated: blocks [8, 24) and from block 1000 on; mapped otherwise; answered in runs of at most 4 KiB. */
    private static final class Holes extends ForwardingBackend {
        Holes() {
            super(new InMemoryBackend(BYTES));
        }

        @Override
        public long provisioning(final long deviceOffset, final long length) {
            final long block = deviceOffset / BLOCK;
            final boolean deallocated = block >= 8 && block < 24 || block >= 1000;
            final long edge = block < 8 ? 8 : block < 24 ? 24 : block < 1000 ? 1000 : BYTES / BLOCK;
            final long run = Math.min(Math.min(length, 4096), edge * BLOCK - deviceOffset); // small runs: merged
            return deallocated ? -run : run;
        }
    }

    private final LunHarness h = new LunHarness(LunHarness.config(BLOCK).build(), BYTES);

    private static LunHarness harness() {
        return new LunHarness(LunHarness.config(BLOCK).build(), new Holes());
    }

    @Test
    void runsOfOneStatusAreOneDescriptorFromTheStartingLba() {
        final LunHarness h = harness();
        assertGood(h.run(Cdbs.getLbaStatus(4, 1024), 1024));
        final ByteBuffer in = ByteBuffer.wrap(h.dataIn());
        assertEquals(4 + 4 * 16, in.getInt(0), "PARAMETER DATA LENGTH: four descriptors");
        assertDescriptor(in, 0, 4, 4, 0);
        assertDescriptor(in, 1, 8, 16, 1);
        assertDescriptor(in, 2, 24, 976, 0);
        assertDescriptor(in, 3, 1000, BYTES / BLOCK - 1000, 1);
    }

    @Test
    void theAllocationLengthBoundsTheDescriptorsAndTheLastLbaIsTheLimit() {
        final LunHarness h = harness();
        assertGood(h.run(Cdbs.getLbaStatus(0, 8 + 2 * 16), 8 + 2 * 16));
        final ByteBuffer two = ByteBuffer.wrap(h.dataIn());
        assertEquals(4 + 2 * 16, two.getInt(0));
        assertDescriptor(two, 1, 8, 16, 1);
        assertGood(h.run(Cdbs.getLbaStatus(BYTES / BLOCK - 1, 64), 64));
        assertDescriptor(ByteBuffer.wrap(h.dataIn()), 0, BYTES / BLOCK - 1, 1, 1);
        assertCheckCondition(h.run(Cdbs.getLbaStatus(BYTES / BLOCK, 64), 64), SenseCode.LBA_OUT_OF_RANGE);
        final byte[] reportType = Cdbs.getLbaStatus(0, 64);
        reportType[14] = 1;
        assertCheckCondition(h.run(reportType, 64), SenseCode.INVALID_FIELD_IN_CDB);
    }

    @Test
    void aBackendThatCannotTellReportsEverythingMapped() {
        assertGood(h.run(Cdbs.getLbaStatus(0, 64), 64));
        final ByteBuffer in = ByteBuffer.wrap(h.dataIn());
        assertEquals(4 + 16, in.getInt(0));
        assertDescriptor(in, 0, 0, BYTES / BLOCK, 0);
    }

    private static void assertDescriptor(final ByteBuffer in, final int index, final long lba, final long blocks, final int status) {
        final int at = 8 + 16 * index;
        assertEquals(lba, in.getLong(at), "descriptor " + index + ": LBA");
        assertEquals(blocks, Integer.toUnsignedLong(in.getInt(at + 8)), "descriptor " + index + ": blocks");
        assertEquals(status, in.get(at + 12) & 0x0F, "descriptor " + index + ": provisioning status");
    }
}
