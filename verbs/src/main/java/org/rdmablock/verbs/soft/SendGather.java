package org.rdmablock.verbs.soft;

/**
 * The gather list of the send request being transmitted, resolved to memory regions, and how it is cut into FPDU
 * payloads copied into the writer's staging buffer.
 *
 * <p>Owned by the QP's transmit owner; the resolved regions are kept in a preallocated array.
 */
final class SendGather {
    private final LocalAccess localAccess;
    private final SoftMemoryRegion[] regions;

    SendGather(final LocalAccess localAccess, final int maxSge) {
        this.localAccess = localAccess;
        this.regions = new SoftMemoryRegion[maxSge];
    }

    /**
     * Checks the gather (or, for READ and atomics, the sink) list against the STag table before the request's
     * first FPDU.
     *
     * @return false on a local protection error
     */
    boolean resolve(final SendWqe wqe) {
        final boolean write = wqe.opcode.needsResponse();
        for (int i = 0; i < wqe.sgeCount; i++) {
            if (wqe.isInline) {
                regions[i] = null;
                continue;
            }
            final SoftMemoryRegion region = localAccess.region(wqe.lkeys[i], wqe.addresses[i], wqe.lengths[i] & 0xFFFF_FFFFL, write);
            if (region == null) {
                return false;
            }
            regions[i] = region;
        }
        return true;
    }

    /** Payload of the request's next segment: what remains, at most {@code maxSegment}. */
    int nextPayload(final SendWqe wqe, final int maxSegment) {
        return (int) Math.min(wqe.totalLength - wqe.sent, maxSegment);
    }

    /** Copies {@code payload} bytes (from {@link #nextPayload}) at the request's {@code sent} offset and finishes the FPDU. */
    void append(final SendWqe wqe, final int payload, final FpduWriter writer) {
        int copied = 0;
        long skip = wqe.sent;
        for (int i = 0; i < wqe.sgeCount && copied < payload; i++) {
            final long length = wqe.lengths[i] & 0xFFFF_FFFFL;
            if (skip >= length) {
                skip -= length;
                continue;
            }
            final int n = (int) Math.min(length - skip, payload - copied);
            if (wqe.isInline) {
                writer.copyPayload(wqe.inline, skip, n);
            } else {
                final SoftMemoryRegion region = regions[i];
                writer.copyPayload(region.segment(), wqe.addresses[i] - region.address() + skip, n);
            }
            copied += n;
            skip = 0;
        }
        writer.finish();
        wqe.sent += payload;
    }
}
