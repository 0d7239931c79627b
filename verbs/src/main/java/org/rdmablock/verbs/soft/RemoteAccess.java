package org.rdmablock.verbs.soft;

import org.rdmablock.verbs.soft.wire.TerminateMessage;

/**
 * Checks of a peer's access to local memory by STag, as a NIC's responder checks rkeys (RFC 5040 §6.4 for tagged
 * buffers; InfiniBand's memory window binding rules for type 2 windows): the STag must name a valid region or a
 * bound window of the QP's protection domain (a window also bound to this QP), the range must lie inside it, and
 * both the STag and the QP must grant the right. A successful check leaves the resolved region and offset.
 *
 * <p>One instance per QP, used only by its I/O agent: the results are fields, not a returned object, so that a
 * check allocates nothing.
 */
final class RemoteAccess {
    static final int OK = 0;
    static final int INVALID_STAG = 1;
    static final int BOUNDS = 2;
    static final int RIGHTS = 3;
    static final int NOT_ASSOCIATED = 4;

    private final StagTable stags;
    private final SoftProtectionDomain pd;
    private final SoftQueuePair qp;
    private SoftMemoryRegion region;
    private long offset;

    RemoteAccess(final StagTable stags, final SoftProtectionDomain pd, final SoftQueuePair qp) {
        this.stags = stags;
        this.pd = pd;
        this.qp = qp;
    }

    /**
     * Checks an access to {@code [to, to + length)} under {@code stag} needing {@code right} (an
     * {@link org.rdmablock.verbs.AccessFlags} REMOTE_* bit); on {@link #OK} sets {@link #region()} and
     * {@link #offset()}.
     *
     * @return {@link #OK}, {@link #INVALID_STAG}, {@link #BOUNDS}, {@link #RIGHTS} or {@link #NOT_ASSOCIATED}
     */
    int check(final int stag, final long to, final long length, final int right) {
        final Object entry = stags.lookup(stag);
        final SoftMemoryRegion target;
        if (entry instanceof SoftMemoryRegion mr) {
            if (!mr.isValid()) {
                return INVALID_STAG;
            }
            if (mr.pd() != pd) {
                return NOT_ASSOCIATED;
            }
            if ((mr.access() & right) == 0) {
                return RIGHTS;
            }
            if (!mr.contains(to, length)) {
                return BOUNDS;
            }
            target = mr;
        } else if (entry instanceof SoftMemoryWindow mw) {
            if (!mw.isBound() || !mw.region().isValid()) {
                return INVALID_STAG;
            }
            if (mw.pd() != pd || mw.boundQp() != qp) {
                return NOT_ASSOCIATED;
            }
            if ((mw.access() & right) == 0) {
                return RIGHTS;
            }
            if (!mw.contains(to, length)) {
                return BOUNDS;
            }
            target = mw.region();
        } else {
            return INVALID_STAG;
        }
        if ((qp.responderAccess & right) == 0) {
            return RIGHTS;
        }
        region = target;
        offset = to - target.address();
        return OK;
    }

    /** The region the last successful check resolved to. */
    SoftMemoryRegion region() {
        return region;
    }

    /** The offset into {@link #region()} of the last successful check's start. */
    long offset() {
        return offset;
    }

    /** The RDMAP remote protection error code (RFC 5040 §4.8) reporting a failed check of a READ source or atomic target. */
    static int rdmapErrorCode(final int result) {
        return switch (result) {
            case BOUNDS -> TerminateMessage.RDMAP_BASE_BOUNDS;
            case RIGHTS -> TerminateMessage.RDMAP_ACCESS_RIGHTS;
            case NOT_ASSOCIATED -> TerminateMessage.RDMAP_STAG_NOT_ASSOCIATED;
            default -> TerminateMessage.RDMAP_INVALID_STAG;
        };
    }

    /** The DDP tagged buffer error code (RFC 5040 §4.8) reporting a failed check of a WRITE target. */
    static int ddpErrorCode(final int result) {
        return switch (result) {
            case BOUNDS -> TerminateMessage.DDP_BASE_BOUNDS;
            case NOT_ASSOCIATED -> TerminateMessage.DDP_STAG_NOT_ASSOCIATED;
            default -> TerminateMessage.DDP_INVALID_STAG;
        };
    }
}
