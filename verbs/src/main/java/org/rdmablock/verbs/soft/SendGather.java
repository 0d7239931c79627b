package org.rdmablock.verbs.soft;

/**
 * The gather list of the send request being transmitted, resolved to memory regions, and how it is cut into FPDU
 * payloads: small payloads are copied into the writer's staging buffer, a large one is one contiguous piece of
 * registered memory that the writer sends without a copy.
 *
 * <p>Owned by the QP's transmit owner; the resolved regions are kept in a preallocated array.
 */
final class SendGather {
    private final LocalAccess localAccess;
    private final SoftMemoryRegion[] regions;
    /** Set by {@link #locate}: offset of byte {@code sent} inside the gather element it returned. */
    private long skipInElement;

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

    /**
     * Payload of the request's next segment, at most {@code maxSegment}: a payload larger than the copy limit is one
     * contiguous piece of memory (it ends at a gather element or view window boundary), written uncopied.
     */
    int nextPayload(final SendWqe wqe, final int maxSegment) {
        final long remaining = wqe.totalLength - wqe.sent;
        final int payload = (int) Math.min(remaining, maxSegment);
        if (payload <= FpduWriter.COPY_LIMIT || wqe.isInline) {
            return payload;
        }
        final int i = locate(wqe);
        final long skip = skipInElement;
        final long offset = wqe.addresses[i] - regions[i].address() + skip;
        final long piece = Math.min(Math.min(payload, (wqe.lengths[i] & 0xFFFF_FFFFL) - skip), SoftMemoryRegion.viewLimit(offset));
        return piece <= FpduWriter.COPY_LIMIT ? FpduWriter.COPY_LIMIT : (int) piece;
    }

    /** Appends {@code payload} bytes (from {@link #nextPayload}) at the request's {@code sent} offset and finishes the FPDU. */
    void append(final SendWqe wqe, final int payload, final FpduWriter writer) {
        if (payload <= FpduWriter.COPY_LIMIT) {
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
        } else {
            final int i = locate(wqe);
            final SoftMemoryRegion region = regions[i];
            writer.finishGathered(writer.payloadView(region, wqe.addresses[i] - region.address() + skipInElement, payload));
        }
        wqe.sent += payload;
    }

    /** Index of the gather element holding byte {@code sent} of the request; its offset there goes to {@link #skipInElement}. */
    private int locate(final SendWqe wqe) {
        long skip = wqe.sent;
        int i = 0;
        while (skip >= (wqe.lengths[i] & 0xFFFF_FFFFL)) {
            skip -= wqe.lengths[i] & 0xFFFF_FFFFL;
            i++;
        }
        skipInElement = skip;
        return i;
    }
}
