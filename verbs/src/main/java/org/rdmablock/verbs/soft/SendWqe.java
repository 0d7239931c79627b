package org.rdmablock.verbs.soft;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.rdmablock.verbs.SendFlags;
import org.rdmablock.verbs.SendOpcode;
import org.rdmablock.verbs.SendWorkRequest;
import org.rdmablock.verbs.ScatterGatherList;

/**
 * A send queue slot: a posted {@link SendWorkRequest} copied at post time (inline data included) plus the
 * transmit and completion progress of its message. Preallocated per slot and reused.
 */
final class SendWqe {
    /** Posted, not yet started on the wire. */
    static final int POSTED = 0;
    /** Partly written to the wire. */
    static final int TRANSMITTING = 1;
    /** Finished with {@link #status}: ready to complete in order. */
    static final int DONE = 3;

    long wrId;
    SendOpcode opcode;
    int flags;
    boolean signaled;
    int sgeCount;
    final long[] addresses;
    final int[] lengths;
    final int[] lkeys;
    /** Inline data copied at post time; one SGE then points into it (its lkey is not used: {@link #isInline}). */
    final MemorySegment inline;
    boolean isInline;
    long totalLength;
    long remoteAddress;
    int rkey;
    int immediateData;
    int invalidateRkey;
    long compareAdd;
    long swap;
    SoftAddressHandle addressHandle;
    int remoteQpn;
    int remoteQkey;
    SoftMemoryWindow window;
    SoftMemoryRegion bindRegion;
    long bindAddress;
    long bindLength;
    int bindAccess;

    // progress, owned by the transmitter until DONE
    volatile int state;
    int status;
    long sent;
    /** Untagged queue and message sequence number the message went out with (for Terminate matching). */
    int queueNumber;
    int msn;

    SendWqe(final int maxSge, final int maxInline, final Arena arena) {
        addresses = new long[maxSge];
        lengths = new int[maxSge];
        lkeys = new int[maxSge];
        inline = maxInline > 0 ? arena.allocate(maxInline, 8) : MemorySegment.NULL;
    }

    /** Copies {@code wr}; inline data is gathered from its SGEs into {@link #inline} now (validated by the caller). */
    void copyFrom(final SendWorkRequest wr, final boolean signalAll, final LocalAccess gather) {
        wrId = wr.wrId();
        opcode = wr.opcode();
        flags = wr.flags();
        signaled = signalAll || wr.isSignaled();
        remoteAddress = wr.remoteAddress();
        rkey = wr.rkey();
        immediateData = wr.immediateData();
        invalidateRkey = wr.invalidateRkey();
        compareAdd = wr.compareAdd();
        swap = wr.swap();
        addressHandle = (SoftAddressHandle) wr.addressHandle();
        remoteQpn = wr.remoteQpn();
        remoteQkey = wr.remoteQkey();
        window = (SoftMemoryWindow) wr.memoryWindow();
        bindRegion = (SoftMemoryRegion) wr.bindRegion();
        bindAddress = wr.bindAddress();
        bindLength = wr.bindLength();
        bindAccess = wr.bindAccess();
        final ScatterGatherList sgl = wr.sgl();
        isInline = (flags & SendFlags.INLINE) != 0 && !opcode.needsResponse();
        long total = 0;
        if (isInline) {
            for (int i = 0; i < sgl.count(); i++) {
                gather.copyInline(sgl.lkey(i), sgl.address(i), inline, total, sgl.length(i));
                total += sgl.length(i);
            }
            sgeCount = 1;
            addresses[0] = inline.address();
            lengths[0] = (int) total;
        } else {
            sgeCount = sgl.count();
            for (int i = 0; i < sgeCount; i++) {
                addresses[i] = sgl.address(i);
                lengths[i] = sgl.length(i);
                lkeys[i] = sgl.lkey(i);
                total += sgl.length(i) & 0xFFFF_FFFFL;
            }
        }
        totalLength = total;
        status = 0;
        sent = 0;
        state = POSTED;
    }
}
