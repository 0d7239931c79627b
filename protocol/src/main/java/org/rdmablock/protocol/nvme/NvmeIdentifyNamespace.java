package org.rdmablock.protocol.nvme;

/**
 * The Identify Namespace data structure (CNS {@link NvmeIdentify#CNS_NAMESPACE}), 4096 bytes: Linux
 * {@code struct nvme_id_ns}, the fields a target fills for a namespace of one LBA format.
 */
public final class NvmeIdentifyNamespace extends NvmeStructure<NvmeIdentifyNamespace> {
    /** Size of the structure. */
    public static final int LENGTH = 4096;
    /** Namespace size in logical blocks, 8 bytes. */
    public static final int NSZE_OFFSET = 0;
    /** Namespace capacity in logical blocks, 8 bytes. */
    public static final int NCAP_OFFSET = 8;
    /** Namespace utilization in logical blocks, 8 bytes. */
    public static final int NUSE_OFFSET = 16;
    /** Namespace features ({@link #FEATURE_THIN}), 1 byte. */
    public static final int NSFEAT_OFFSET = 24;
    /** Number of LBA formats, 0's based, 1 byte. */
    public static final int NLBAF_OFFSET = 25;
    /** Formatted LBA size: the LBA format in use, 1 byte. */
    public static final int FLBAS_OFFSET = 26;
    /** Namespace multi-path I/O and sharing capabilities, 1 byte. */
    public static final int NMIC_OFFSET = 30;
    /** Deallocate logical block features ({@link #DEALLOCATED_READS_ZEROES}), 1 byte. */
    public static final int DLFEAT_OFFSET = 33;
    /** Namespace attributes ({@link #ATTRIBUTE_WRITE_PROTECTED}), 1 byte. */
    public static final int NSATTR_OFFSET = 99;
    /** Namespace globally unique identifier, 16 bytes. */
    public static final int NGUID_OFFSET = 104;
    /** IEEE extended unique identifier, 8 bytes. */
    public static final int EUI64_OFFSET = 120;
    /** The first LBA format (4 bytes each: metadata size 2, data size log2 1, relative performance 1). */
    public static final int LBAF_OFFSET = 128;
    /** An LBA format's data size byte, within it. */
    public static final int LBAF_DATA_SIZE = 2;
    /** The bytes of one LBA format (struct nvme_lbaf). */
    public static final int LBAF_LENGTH = 4;

    /** NSFEAT: thin provisioning, NUSE meaningful (NVME_NS_FEAT_THIN). */
    public static final int FEATURE_THIN = 1 << 0;
    /** NMIC: shared by several controllers (NVME_NS_NMIC_SHARED). */
    public static final int NMIC_SHARED = 1 << 0;
    /** DLFEAT: deallocated blocks read as zeroes (bits 2:0 = 001b). */
    public static final int DEALLOCATED_READS_ZEROES = 0x1;
    /** DLFEAT: Write Zeroes may deallocate (bit 3). */
    public static final int WRITE_ZEROES_DEALLOCATES = 1 << 3;
    /** NSATTR: write protected (bit 0). */
    public static final int ATTRIBUTE_WRITE_PROTECTED = 1 << 0;

    /** Zeroes the structure, ready for the setters. */
    public NvmeIdentifyNamespace reset() {
        clear(LENGTH);
        return this;
    }

    /** Size, capacity and utilization, in logical blocks. */
    public NvmeIdentifyNamespace setBlocks(final long size, final long capacity, final long used) {
        put64(NSZE_OFFSET, size);
        put64(NCAP_OFFSET, capacity);
        put64(NUSE_OFFSET, used);
        return this;
    }

    public long size() {
        return u64(NSZE_OFFSET);
    }

    public long capacity() {
        return u64(NCAP_OFFSET);
    }

    public long utilization() {
        return u64(NUSE_OFFSET);
    }

    public int features() {
        return u8(NSFEAT_OFFSET);
    }

    public NvmeIdentifyNamespace setFeatures(final int nsfeat) {
        putU8(NSFEAT_OFFSET, nsfeat);
        return this;
    }

    /**
     * One LBA format, in use: blocks of {@code blockSize} bytes (a power of two) without metadata, as LBA format 0 of
     * one (NLBAF 0, FLBAS 0).
     */
    public NvmeIdentifyNamespace setOnlyLbaFormat(final int blockSize) {
        if (Integer.bitCount(blockSize) != 1 || blockSize < 512) {
            throw new IllegalArgumentException("a block size is a power of two of at least 512, not " + blockSize);
        }
        putU8(NLBAF_OFFSET, 0);
        putU8(FLBAS_OFFSET, 0);
        putU16(LBAF_OFFSET, 0);
        putU8(LBAF_OFFSET + LBAF_DATA_SIZE, Integer.numberOfTrailingZeros(blockSize));
        putU8(LBAF_OFFSET + LBAF_DATA_SIZE + 1, 0);
        return this;
    }

    /** The number of LBA formats (the field plus one). */
    public int lbaFormats() {
        return u8(NLBAF_OFFSET) + 1;
    }

    /** The LBA format in use (FLBAS bits 3:0 and 6:5). */
    public int formatInUse() {
        final int flbas = u8(FLBAS_OFFSET);
        return flbas & 0xF | (flbas & 0x60) >>> 1;
    }

    /** The block size of LBA format {@code index}, in bytes. */
    public int blockSize(final int index) {
        return 1 << u8(LBAF_OFFSET + (long) index * LBAF_LENGTH + LBAF_DATA_SIZE);
    }

    public NvmeIdentifyNamespace setSharing(final int nmic) {
        putU8(NMIC_OFFSET, nmic);
        return this;
    }

    public int deallocateFeatures() {
        return u8(DLFEAT_OFFSET);
    }

    public NvmeIdentifyNamespace setDeallocateFeatures(final int dlfeat) {
        putU8(DLFEAT_OFFSET, dlfeat);
        return this;
    }

    public int attributes() {
        return u8(NSATTR_OFFSET);
    }

    public NvmeIdentifyNamespace setAttributes(final int nsattr) {
        putU8(NSATTR_OFFSET, nsattr);
        return this;
    }

    /** Sets the NGUID (16 bytes) and the EUI-64 (8 bytes) the namespace is known by. */
    public NvmeIdentifyNamespace setIdentifiers(final byte[] nguid, final byte[] eui64) {
        if (nguid.length != 16 || eui64.length != 8) {
            throw new IllegalArgumentException("an NGUID is 16 bytes and an EUI-64 8");
        }
        java.lang.foreign.MemorySegment.copy(java.lang.foreign.MemorySegment.ofArray(nguid), 0, segment, offset + NGUID_OFFSET, 16);
        java.lang.foreign.MemorySegment.copy(java.lang.foreign.MemorySegment.ofArray(eui64), 0, segment, offset + EUI64_OFFSET, 8);
        return this;
    }
}
