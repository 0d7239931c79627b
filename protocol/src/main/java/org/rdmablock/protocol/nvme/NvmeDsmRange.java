package org.rdmablock.protocol.nvme;

/**
 * One range of a Dataset Management command's data (Linux {@code struct nvme_dsm_range}, 16 bytes): context
 * attributes, the number of logical blocks (1's based, unlike the I/O commands' field), the starting LBA.
 */
public final class NvmeDsmRange extends NvmeStructure<NvmeDsmRange> {
    public static final int LENGTH = 16;
    public static final int CONTEXT_ATTRIBUTES_OFFSET = 0;
    public static final int BLOCKS_OFFSET = 4;
    public static final int LBA_OFFSET = 8;

    /** Logical blocks in the range. */
    public long blocks() {
        return u32(BLOCKS_OFFSET);
    }

    public long startingLba() {
        return u64(LBA_OFFSET);
    }

    public NvmeDsmRange set(final long lba, final long blocks) {
        put32(CONTEXT_ATTRIBUTES_OFFSET, 0);
        put32(BLOCKS_OFFSET, blocks);
        put64(LBA_OFFSET, lba);
        return this;
    }
}
