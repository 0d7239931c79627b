package org.rdmablock.verbs;

/**
 * A type 2 memory window ({@code struct ibv_mw}): a remote key to a sub-range of a memory region with its own
 * rights, bound and invalidated through work requests on a QP, and usable only through that QP. Until bound,
 * its rkey grants nothing.
 */
public interface MemoryWindow extends AutoCloseable {
    ProtectionDomain protectionDomain();

    /** The current rkey: valid between a completed bind and an invalidation. */
    int rkey();

    /**
     * The rkey the next bind will give: the same index with the next 8-bit key, as ibv_inc_rkey(3) computes, so
     * that a stale key from an earlier binding stops working.
     */
    int nextRkey();

    /** Deallocates the window (ibv_dealloc_mw). */
    @Override
    void close();
}
