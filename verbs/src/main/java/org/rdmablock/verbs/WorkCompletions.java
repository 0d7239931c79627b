package org.rdmablock.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * A reusable array of work completions that {@link CompletionQueue#poll} fills; read entry {@code i} of the
 * last poll with the accessors. It is a flyweight over native memory laid out exactly as an array of
 * libibverbs' {@code struct ibv_wc} (verbs.h), so that a hardware provider polls straight into it.
 *
 * <pre>
 *  0 wr_id u64 | 8 status u32 | 12 opcode u32 | 16 vendor_err u32 | 20 byte_len u32 | 24 imm_data be32 /
 *  invalidated_rkey u32 | 28 qp_num u32 | 32 src_qp u32 | 36 wc_flags u32 | 40 pkey_index u16 | 42 slid u16 |
 *  44 sl u8 | 45 dlid_path_bits u8 | size 48
 * </pre>
 *
 * Not thread-safe: one instance per polling thread.
 */
public final class WorkCompletions {
    /** Size of one {@code struct ibv_wc}. */
    public static final int ENTRY_SIZE = 48;
    public static final int WR_ID_OFFSET = 0;
    public static final int STATUS_OFFSET = 8;
    public static final int OPCODE_OFFSET = 12;
    public static final int VENDOR_ERR_OFFSET = 16;
    public static final int BYTE_LEN_OFFSET = 20;
    /** imm_data (network byte order) when WITH_IMM is set; invalidated_rkey (host order) when WITH_INV is set. */
    public static final int IMM_DATA_OFFSET = 24;
    public static final int QP_NUM_OFFSET = 28;
    public static final int SRC_QP_OFFSET = 32;
    public static final int WC_FLAGS_OFFSET = 36;
    public static final int PKEY_INDEX_OFFSET = 40;
    public static final int SLID_OFFSET = 42;
    public static final int SL_OFFSET = 44;
    public static final int DLID_PATH_BITS_OFFSET = 45;

    /** wc_flags: a GRH is present in the receive buffer (UD). */
    public static final int FLAG_GRH = 1;
    /** wc_flags: immediate data is valid. */
    public static final int FLAG_WITH_IMM = 1 << 1;
    /** wc_flags: the SEND invalidated {@link #invalidatedRkey}. */
    public static final int FLAG_WITH_INV = 1 << 3;

    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfInt BE32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final MemorySegment segment;
    private final int capacity;

    /** Allocates room for {@code capacity} completions in native memory that the garbage collector frees. */
    public WorkCompletions(final int capacity) {
        this(Arena.ofAuto(), capacity);
    }

    /** Allocates room for {@code capacity} completions in {@code arena}. */
    public WorkCompletions(final Arena arena, final int capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity must be positive: " + capacity);
        }
        this.capacity = capacity;
        this.segment = arena.allocate((long) capacity * ENTRY_SIZE, 8);
    }

    /** How many completions one poll can return. */
    public int capacity() {
        return capacity;
    }

    /** The native array of {@code struct ibv_wc}, for providers. */
    public MemorySegment segment() {
        return segment;
    }

    private static long at(final int i) {
        return (long) i * ENTRY_SIZE;
    }

    public long wrId(final int i) {
        return segment.get(U64, at(i) + WR_ID_OFFSET);
    }

    public int statusCode(final int i) {
        return segment.get(U32, at(i) + STATUS_OFFSET);
    }

    public WcStatus status(final int i) {
        return WcStatus.of(statusCode(i));
    }

    /** True when entry {@code i} completed successfully. */
    public boolean isSuccess(final int i) {
        return statusCode(i) == 0;
    }

    /** The opcode; only meaningful when the status is SUCCESS (as in libibverbs). */
    public WcOpcode opcode(final int i) {
        return WcOpcode.of(segment.get(U32, at(i) + OPCODE_OFFSET));
    }

    public int vendorError(final int i) {
        return segment.get(U32, at(i) + VENDOR_ERR_OFFSET);
    }

    /** Bytes received (receive completions) or transferred (RDMA READ, atomics). */
    public int byteLength(final int i) {
        return segment.get(U32, at(i) + BYTE_LEN_OFFSET);
    }

    public int flags(final int i) {
        return segment.get(U32, at(i) + WC_FLAGS_OFFSET);
    }

    public boolean hasImmediate(final int i) {
        return (flags(i) & FLAG_WITH_IMM) != 0;
    }

    /** The immediate data in host order (as the sender posted it); valid when {@link #hasImmediate}. */
    public int immediateData(final int i) {
        return segment.get(BE32, at(i) + IMM_DATA_OFFSET);
    }

    /** The rkey a SEND_WITH_INV invalidated; valid when {@link #FLAG_WITH_INV} is set. */
    public int invalidatedRkey(final int i) {
        return segment.get(U32, at(i) + IMM_DATA_OFFSET);
    }

    public int qpNum(final int i) {
        return segment.get(U32, at(i) + QP_NUM_OFFSET);
    }

    /** The sending QP's number (UD receives). */
    public int sourceQp(final int i) {
        return segment.get(U32, at(i) + SRC_QP_OFFSET);
    }

    // ---- writers, for software providers -------------------------------------------------------------------

    /**
     * Writes entry {@code i} (for providers that produce completions in software). {@code immOrRkey} is the
     * immediate data in host order when {@code flags} has WITH_IMM, else the invalidated rkey or 0.
     */
    public void set(final int i, final long wrId, final int status, final int opcode, final int byteLen,
                    final int immOrRkey, final int qpNum, final int srcQp, final int flags) {
        write(segment, at(i), wrId, status, opcode, byteLen, immOrRkey, qpNum, srcQp, flags);
    }

    /** Writes one {@code struct ibv_wc} at {@code base} of {@code target} (see {@link #set}). */
    public static void write(final MemorySegment target, final long base, final long wrId, final int status,
                             final int opcode, final int byteLen, final int immOrRkey, final int qpNum,
                             final int srcQp, final int flags) {
        target.set(U64, base + WR_ID_OFFSET, wrId);
        target.set(U32, base + STATUS_OFFSET, status);
        target.set(U32, base + OPCODE_OFFSET, opcode);
        target.set(U32, base + VENDOR_ERR_OFFSET, 0);
        target.set(U32, base + BYTE_LEN_OFFSET, byteLen);
        if ((flags & FLAG_WITH_IMM) != 0) {
            target.set(BE32, base + IMM_DATA_OFFSET, immOrRkey);
        } else {
            target.set(U32, base + IMM_DATA_OFFSET, immOrRkey);
        }
        target.set(U32, base + QP_NUM_OFFSET, qpNum);
        target.set(U32, base + SRC_QP_OFFSET, srcQp);
        target.set(U32, base + WC_FLAGS_OFFSET, flags);
        target.set(U64, base + PKEY_INDEX_OFFSET, 0L);
    }

    /** A readable form of entry {@code i}, for logs and test failures (allocates). */
    public String toString(final int i) {
        return "wc{wr_id=" + wrId(i) + ", status=" + status(i) + ", opcode=" + opcode(i) + ", byte_len=" + byteLength(i)
            + ", qp=" + qpNum(i) + ", flags=" + flags(i) + (hasImmediate(i) ? ", imm=0x" + Integer.toHexString(immediateData(i)) : "")
            + "}";
    }
}
