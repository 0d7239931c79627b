package org.rdmablock.verbs.soft;

import org.rdmablock.verbs.MemoryWindow;
import org.rdmablock.verbs.ProtectionDomain;

/**
 * A type 2 memory window of the soft provider. Its fields change only on the owning QP's send path (bind and
 * local invalidate) or its receive path (SEND with Invalidate); the responder of that same QP reads them, and
 * the tag is republished with release semantics after each change.
 */
final class SoftMemoryWindow implements MemoryWindow, StagTable.StagEntry {
    private final SoftProtectionDomain pd;
    private volatile int stag;
    private volatile boolean bound;
    private SoftMemoryRegion region;
    private long address;
    private long length;
    private int access;
    private SoftQueuePair qp;

    SoftMemoryWindow(final SoftProtectionDomain pd, final int stag) {
        this.pd = pd;
        this.stag = stag;
    }

    @Override
    public ProtectionDomain protectionDomain() {
        return pd;
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
    public int nextRkey() {
        return (stag & 0xFFFF_FF00) | ((stag + 1) & 0xFF);
    }

    /** Binds the window (BIND_MW work request on {@code owner}); returns the new tag. */
    int bind(final SoftQueuePair owner, final SoftMemoryRegion mr, final long addr, final long len, final int rights) {
        region = mr;
        address = addr;
        length = len;
        access = rights;
        qp = owner;
        final int next = nextRkey();
        stag = next;
        bound = true;
        pd.device().stags().publish(next, this);
        return next;
    }

    /** Invalidates the binding: the tag stops granting access. */
    void invalidate() {
        bound = false;
    }

    boolean isBound() {
        return bound;
    }

    SoftMemoryRegion region() {
        return region;
    }

    long address() {
        return address;
    }

    long length() {
        return length;
    }

    int access() {
        return access;
    }

    SoftQueuePair boundQp() {
        return qp;
    }

    SoftProtectionDomain pd() {
        return pd;
    }

    boolean contains(final long addr, final long len) {
        return SoftMemoryRegion.within(address, length, addr, len);
    }

    @Override
    public void close() {
        bound = false;
        pd.device().stags().release(stag);
        pd.released(this);
    }
}
