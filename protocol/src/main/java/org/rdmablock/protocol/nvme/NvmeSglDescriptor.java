package org.rdmablock.protocol.nvme;

/**
 * An SGL descriptor, 16 bytes: Linux {@code struct nvme_sgl_desc} (a data block: 8-byte address, 4-byte length) and,
 * over the same bytes, {@code struct nvme_keyed_sgl_desc} (a keyed data block: 8-byte address, 3-byte length, 4-byte
 * key). Byte 15 identifies it: the descriptor type in its upper four bits, the subtype in the lower
 * ({@link #typeOf}). On RDMA the host sends a keyed data block (the target moves the data by RDMA READ or WRITE with
 * that key) or, for a write small enough, a data block with the offset subtype: the data follows the entry in the
 * capsule, at that offset.
 */
public final class NvmeSglDescriptor extends NvmeStructure<NvmeSglDescriptor> {
    /** Size of a descriptor. */
    public static final int LENGTH = 16;
    /** The address (keyed: the host's virtual address; offset subtype: the offset in the capsule's data), 8 bytes. */
    public static final int ADDRESS_OFFSET = 0;
    /** A data block's length, 4 bytes. */
    public static final int LENGTH_OFFSET = 8;
    /** A keyed data block's length, 3 bytes. */
    public static final int KEYED_LENGTH_OFFSET = 8;
    /** A keyed data block's key (the memory region's rkey), 4 bytes. */
    public static final int KEY_OFFSET = 11;
    /** A data block's reserved bytes, 3. */
    public static final int RESERVED_OFFSET = 12;
    /** The SGL identifier: type in bits 7:4, subtype in bits 3:0. */
    public static final int IDENTIFIER_OFFSET = 15;

    /** Type: data block (Linux NVME_SGL_FMT_DATA_DESC). */
    public static final int TYPE_DATA_BLOCK = 0x0;
    /** Type: segment (Linux NVME_SGL_FMT_SEG_DESC). */
    public static final int TYPE_SEGMENT = 0x2;
    /** Type: last segment (Linux NVME_SGL_FMT_LAST_SEG_DESC). */
    public static final int TYPE_LAST_SEGMENT = 0x3;
    /** Type: keyed data block (Linux NVME_KEY_SGL_FMT_DATA_DESC). */
    public static final int TYPE_KEYED_DATA_BLOCK = 0x4;
    /** Type: transport data block (Linux NVME_TRANSPORT_SGL_DATA_DESC; TCP's). */
    public static final int TYPE_TRANSPORT_DATA_BLOCK = 0x5;
    /** Subtype: an address (Linux NVME_SGL_FMT_ADDRESS). */
    public static final int SUBTYPE_ADDRESS = 0x0;
    /** Subtype: an offset in the capsule's in-capsule data (Linux NVME_SGL_FMT_OFFSET). */
    public static final int SUBTYPE_OFFSET = 0x1;
    /** Subtype: transport specific A (Linux NVME_SGL_FMT_TRANSPORT_A; TCP's). */
    public static final int SUBTYPE_TRANSPORT_A = 0xA;
    /** Subtype: invalidate the key when done, by SEND with invalidate (Linux NVME_SGL_FMT_INVALIDATE). */
    public static final int SUBTYPE_INVALIDATE = 0xF;
    /** The largest length a keyed descriptor carries: 24 bits. */
    public static final int MAX_KEYED_LENGTH = (1 << 24) - 1;

    /** The identifier byte of a descriptor of {@code type} and {@code subtype}. */
    public static int typeOf(final int type, final int subtype) {
        return type << 4 | subtype;
    }

    /** The whole identifier byte. */
    public int identifier() {
        return u8(IDENTIFIER_OFFSET);
    }

    /** The descriptor type (bits 7:4). */
    public int type() {
        return identifier() >>> 4;
    }

    /** The descriptor subtype (bits 3:0). */
    public int subtype() {
        return identifier() & 0xF;
    }

    public long address() {
        return u64(ADDRESS_OFFSET);
    }

    /** A data block's length, unsigned. */
    public long length() {
        return u32(LENGTH_OFFSET);
    }

    /** A keyed data block's length. */
    public int keyedLength() {
        return u24(KEYED_LENGTH_OFFSET);
    }

    /** A keyed data block's key, unsigned. */
    public long key() {
        return u32(KEY_OFFSET);
    }

    /** Makes this a keyed data block: the host's buffer at {@code address}, {@code length} bytes, its {@code key}. */
    public NvmeSglDescriptor setKeyed(final long address, final int length, final long key, final boolean invalidate) {
        if (length < 0 || length > MAX_KEYED_LENGTH) {
            throw new IllegalArgumentException("a keyed descriptor holds 0 to " + MAX_KEYED_LENGTH + " bytes, not " + length);
        }
        put64(ADDRESS_OFFSET, address);
        putU24(KEYED_LENGTH_OFFSET, length);
        put32(KEY_OFFSET, key);
        putU8(IDENTIFIER_OFFSET, typeOf(TYPE_KEYED_DATA_BLOCK, invalidate ? SUBTYPE_INVALIDATE : SUBTYPE_ADDRESS));
        return this;
    }

    /** Makes this an in-capsule data block: {@code length} bytes at {@code offset} after the entry. */
    public NvmeSglDescriptor setInCapsule(final long offsetInCapsule, final long length) {
        put64(ADDRESS_OFFSET, offsetInCapsule);
        put32(LENGTH_OFFSET, length);
        putU24(RESERVED_OFFSET, 0);
        putU8(IDENTIFIER_OFFSET, typeOf(TYPE_DATA_BLOCK, SUBTYPE_OFFSET));
        return this;
    }
}
