package org.rdmablock.protocol.nvme;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The list-shaped data of Identify and Get Log Page, written into a 4096-byte buffer: the active namespace list
 * (CNS {@link NvmeIdentify#CNS_ACTIVE_NAMESPACES}) and the changed namespace list
 * ({@link NvmeGetLogPage#LOG_CHANGED_NAMESPACES}), each up to 1024 little-endian namespace ids, zero-filled after the
 * last; and a namespace's identification descriptors (CNS {@link NvmeIdentify#CNS_NAMESPACE_DESCRIPTORS}: type,
 * length, two reserved bytes, then the identifier; the list ends at a zero type).
 */
public final class NvmeNamespaceLists {
    private static final ValueLayout.OfInt LE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Namespace ids in a 4096-byte list. */
    public static final int MAX_IDS = NvmeIdentify.DATA_LENGTH / Integer.BYTES;

    private NvmeNamespaceLists() {
    }

    /**
     * The active namespace list: the ids of {@code nsids} (ascending) greater than {@code after} (the command's nsid),
     * as many as fit, zeroes after them. Returns how many were written.
     */
    public static int writeActive(final MemorySegment out, final long offset, final long[] nsids, final long after) {
        out.asSlice(offset, NvmeIdentify.DATA_LENGTH).fill((byte) 0);
        int written = 0;
        for (final long nsid : nsids) {
            if (Long.compareUnsigned(nsid, after) > 0 && written < MAX_IDS) {
                out.set(LE_INT, offset + (long) written * Integer.BYTES, (int) nsid);
                written++;
            }
        }
        return written;
    }

    /**
     * The changed namespace list: {@code nsids}, or, when more changed than it holds, the one entry
     * {@link NvmeGetLogPage#CHANGED_NAMESPACES_OVERFLOW}. Returns how many entries were written.
     */
    public static int writeChanged(final MemorySegment out, final long offset, final long[] nsids) {
        out.asSlice(offset, NvmeIdentify.DATA_LENGTH).fill((byte) 0);
        if (nsids.length > NvmeGetLogPage.CHANGED_NAMESPACES_MAX) {
            out.set(LE_INT, offset, (int) NvmeGetLogPage.CHANGED_NAMESPACES_OVERFLOW);
            return 1;
        }
        for (int i = 0; i < nsids.length; i++) {
            out.set(LE_INT, offset + (long) i * Integer.BYTES, (int) nsids[i]);
        }
        return nsids.length;
    }

    /** Namespace id {@code index} of a list at {@code offset}, unsigned. */
    public static long id(final MemorySegment list, final long offset, final int index) {
        return Integer.toUnsignedLong(list.get(LE_INT, offset + (long) index * Integer.BYTES));
    }

    /**
     * A namespace's identification descriptors: its NGUID (16 bytes) and, when given, its EUI-64 (8 bytes; null for
     * none), then zeroes. Returns the bytes the descriptors take.
     */
    public static int writeDescriptors(final MemorySegment out, final long offset, final byte[] nguid, final byte[] eui64) {
        out.asSlice(offset, NvmeIdentify.DATA_LENGTH).fill((byte) 0);
        int at = descriptor(out, offset, 0, NvmeIdentify.NIDT_NGUID, nguid, 16);
        if (eui64 != null) {
            at = descriptor(out, offset, at, NvmeIdentify.NIDT_EUI64, eui64, 8);
        }
        return at;
    }

    private static int descriptor(final MemorySegment out, final long offset, final int at, final int type,
                                  final byte[] id, final int length) {
        if (id.length != length) {
            throw new IllegalArgumentException("an identifier of type " + type + " is " + length + " bytes, not " + id.length);
        }
        out.set(ValueLayout.JAVA_BYTE, offset + at, (byte) type);
        out.set(ValueLayout.JAVA_BYTE, offset + at + 1, (byte) length);
        MemorySegment.copy(MemorySegment.ofArray(id), 0, out, offset + at + NvmeIdentify.DESCRIPTOR_HEADER_LENGTH, length);
        return at + NvmeIdentify.DESCRIPTOR_HEADER_LENGTH + length;
    }
}
