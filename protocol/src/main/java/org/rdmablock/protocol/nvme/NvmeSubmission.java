package org.rdmablock.protocol.nvme;

/**
 * A submission queue entry, the 64 bytes of a command capsule: Linux {@code struct nvme_common_command} and, over the
 * same bytes, {@code struct nvme_rw_command} (read, write, compare, write zeroes) and the Fabrics command header
 * ({@code struct nvmf_common_command}: its type at byte 4). The data pointer at {@link #DPTR_OFFSET} is an SGL
 * descriptor on Fabrics: {@link #sgl(NvmeSglDescriptor)}.
 */
public final class NvmeSubmission extends NvmeStructure<NvmeSubmission> {
    /** Size of an entry (the capsule without in-capsule data). */
    public static final int LENGTH = 64;
    /** The opcode ({@link NvmeOpcode}), 1 byte. */
    public static final int OPCODE_OFFSET = 0;
    /** Flags, 1 byte: FUSE in bits 1:0, PSDT in bits 7:6 ({@link #FLAGS_SGL_METABUF}). */
    public static final int FLAGS_OFFSET = 1;
    /** The command identifier the completion echoes, 2 bytes. */
    public static final int COMMAND_ID_OFFSET = 2;
    /** The namespace, 4 bytes; on a Fabrics command byte 4 is its type instead ({@link #FCTYPE_OFFSET}). */
    public static final int NSID_OFFSET = 4;
    /** A Fabrics command's type ({@link NvmfCommandType}), 1 byte. */
    public static final int FCTYPE_OFFSET = 4;
    /** The metadata pointer, 8 bytes. */
    public static final int METADATA_OFFSET = 16;
    /** The data pointer: a 16-byte SGL descriptor on Fabrics ({@link NvmeSglDescriptor}). */
    public static final int DPTR_OFFSET = 24;
    /** Command dword 10, the first of the six command-specific dwords (10 to 15, 4 bytes each). */
    public static final int CDW10_OFFSET = 40;
    /** Read / write: the starting LBA, 8 bytes (dwords 10 and 11). */
    public static final int SLBA_OFFSET = 40;
    /** Read / write: the number of logical blocks, 0's based, 2 bytes (dword 12 bits 15:0). */
    public static final int NLB_OFFSET = 48;
    /** Read / write: control, 2 bytes (dword 12 bits 31:16): {@link #CONTROL_FUA}, {@link #CONTROL_LIMITED_RETRY}. */
    public static final int CONTROL_OFFSET = 50;
    /** Read / write: dataset management, 4 bytes (dword 13). */
    public static final int DSMGMT_OFFSET = 52;

    /** PSDT 01b: SGLs for the data, the metadata pointer one contiguous buffer (Linux NVME_CMD_SGL_METABUF). */
    public static final int FLAGS_SGL_METABUF = 0x40;
    /** PSDT 10b: SGLs, the metadata pointer an SGL segment of one descriptor (Linux NVME_CMD_SGL_METASEG). */
    public static final int FLAGS_SGL_METASEG = 0x80;
    /** The PSDT bits (Linux NVME_CMD_SGL_ALL). */
    public static final int FLAGS_PSDT_MASK = 0xC0;
    /** The FUSE bits (Linux NVME_CMD_FUSE_FIRST | NVME_CMD_FUSE_SECOND). */
    public static final int FLAGS_FUSE_MASK = 0x03;
    /** Control: force unit access (Linux NVME_RW_FUA). */
    public static final int CONTROL_FUA = 1 << 14;
    /** Control: limited retry (Linux NVME_RW_LR). */
    public static final int CONTROL_LIMITED_RETRY = 1 << 15;
    /** Write Zeroes control: deallocate (Linux NVME_WZ_DEAC). */
    public static final int CONTROL_DEALLOCATE = 1 << 9;

    /** Zeroes the entry, ready for the setters. */
    public NvmeSubmission reset() {
        clear(LENGTH);
        return this;
    }

    public int opcode() {
        return u8(OPCODE_OFFSET);
    }

    public NvmeSubmission setOpcode(final int opcode) {
        putU8(OPCODE_OFFSET, opcode);
        return this;
    }

    public int flags() {
        return u8(FLAGS_OFFSET);
    }

    public NvmeSubmission setFlags(final int flags) {
        putU8(FLAGS_OFFSET, flags);
        return this;
    }

    public int commandId() {
        return u16(COMMAND_ID_OFFSET);
    }

    public NvmeSubmission setCommandId(final int id) {
        putU16(COMMAND_ID_OFFSET, id);
        return this;
    }

    /** The namespace id, unsigned. */
    public long nsid() {
        return u32(NSID_OFFSET);
    }

    public NvmeSubmission setNsid(final long nsid) {
        put32(NSID_OFFSET, nsid);
        return this;
    }

    /** A Fabrics command's type (when {@link #opcode()} is {@link NvmeOpcode#FABRICS}). */
    public int fabricsType() {
        return u8(FCTYPE_OFFSET);
    }

    public NvmeSubmission setFabricsType(final int type) {
        putU8(FCTYPE_OFFSET, type);
        return this;
    }

    public long metadata() {
        return u64(METADATA_OFFSET);
    }

    /** Command dword {@code n} (10 to 15), unsigned. */
    public long cdw(final int n) {
        return u32(dword(n));
    }

    public NvmeSubmission setCdw(final int n, final long value) {
        put32(dword(n), value);
        return this;
    }

    private static int dword(final int n) {
        if (n < 10 || n > 15) {
            throw new IllegalArgumentException("command dwords are 10 to 15, not " + n);
        }
        return CDW10_OFFSET + (n - 10) * Integer.BYTES;
    }

    /** Read / write: the starting LBA. */
    public long startingLba() {
        return u64(SLBA_OFFSET);
    }

    public NvmeSubmission setStartingLba(final long lba) {
        put64(SLBA_OFFSET, lba);
        return this;
    }

    /** Read / write: the number of logical blocks (the field plus one: it is 0's based), 1 to 65536. */
    public int blocks() {
        return u16(NLB_OFFSET) + 1;
    }

    /** Sets the number of logical blocks, 1 to 65536 (written 0's based). */
    public NvmeSubmission setBlocks(final int blocks) {
        if (blocks < 1 || blocks > 1 << 16) {
            throw new IllegalArgumentException("1 to 65536 blocks, not " + blocks);
        }
        putU16(NLB_OFFSET, blocks - 1);
        return this;
    }

    public int control() {
        return u16(CONTROL_OFFSET);
    }

    public NvmeSubmission setControl(final int control) {
        putU16(CONTROL_OFFSET, control);
        return this;
    }

    /** Wraps {@code descriptor} over this entry's data pointer and returns it. */
    public NvmeSglDescriptor sgl(final NvmeSglDescriptor descriptor) {
        return descriptor.wrap(segment, offset + DPTR_OFFSET);
    }
}
