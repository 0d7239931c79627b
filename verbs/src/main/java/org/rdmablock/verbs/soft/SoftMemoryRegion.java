package org.rdmablock.verbs.soft;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

import org.rdmablock.verbs.AccessFlags;
import org.rdmablock.verbs.MemoryRegion;
import org.rdmablock.verbs.ProtectionDomain;
import org.rdmablock.verbs.VerbsException;

/** A registered memory region of the soft provider: a native segment named by one STag (lkey = rkey, as in siw). */
final class SoftMemoryRegion implements MemoryRegion, StagTable.StagEntry {
    /** Largest span one ByteBuffer view covers; transfers are split at these boundaries (see {@link #viewLimit}). */
    static final long VIEW_SPAN = 1L << 30;

    private final SoftProtectionDomain pd;
    private final MemorySegment segment;
    private final long address;
    private final long length;
    private final int access;
    private final int stag;
    private volatile boolean valid = true;

    SoftMemoryRegion(final SoftProtectionDomain pd, final MemorySegment segment, final int access, final int stag) {
        this.pd = pd;
        this.segment = segment;
        this.address = segment.address();
        this.length = segment.byteSize();
        this.access = access;
        this.stag = stag;
    }

    @Override
    public ProtectionDomain protectionDomain() {
        return pd;
    }

    SoftProtectionDomain pd() {
        return pd;
    }

    @Override
    public MemorySegment segment() {
        return segment;
    }

    @Override
    public long address() {
        return address;
    }

    @Override
    public long length() {
        return length;
    }

    @Override
    public int lkey() {
        return stag;
    }

    @Override
    public int rkey() {
        return stag;
    }

    @Override
    public int stag() {
        return stag;
    }

    @Override
    public int access() {
        return access;
    }

    boolean isValid() {
        return valid;
    }

    /** Whether {@code [addr, addr + len)} lies inside the region (overflow-safe). */
    boolean contains(final long addr, final long len) {
        return within(address, length, addr, len);
    }

    /** Whether {@code [addr, addr + len)} lies inside {@code [base, base + size)}, without overflow. */
    static boolean within(final long base, final long size, final long addr, final long len) {
        return len >= 0 && Long.compareUnsigned(addr, base) >= 0 && addr - base <= size - len;
    }

    /** A fresh ByteBuffer over the {@link #VIEW_SPAN}-sized window {@code window} of the region, for I/O caches. */
    ByteBuffer newView(final int window) {
        final long start = (long) window * VIEW_SPAN;
        return segment.asSlice(start, Math.min(VIEW_SPAN, length - start)).asByteBuffer();
    }

    /** How many bytes from {@code offset} stay inside one view window. */
    static long viewLimit(final long offset) {
        return VIEW_SPAN - (offset & (VIEW_SPAN - 1));
    }

    @Override
    public void close() {
        if (valid) {
            valid = false;
            pd.device().stags().release(stag);
            pd.released(this);
        }
    }

    @Override
    public String toString() {
        return "mr{stag=0x" + Integer.toHexString(stag) + ", len=" + length + ", " + AccessFlags.toString(access) + "}";
    }

    static void requireNative(final MemorySegment segment) {
        if (!segment.isNative()) {
            throw new VerbsException(VerbsException.EFAULT, "only native memory can be registered (got a heap segment)");
        }
    }
}
