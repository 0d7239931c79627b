package org.rdmablock.verbs;

/**
 * A reusable receive work request ({@code struct ibv_recv_wr}): the buffers an incoming SEND is scattered
 * into. The provider copies it at post time; chain several with {@link #next(ReceiveWorkRequest)}.
 */
public final class ReceiveWorkRequest {
    private final ScatterGatherList sgl;
    private long wrId;
    private ReceiveWorkRequest next;

    public ReceiveWorkRequest(final int maxSge) {
        sgl = new ScatterGatherList(maxSge);
    }

    public ReceiveWorkRequest() {
        this(1);
    }

    public ScatterGatherList sgl() {
        return sgl;
    }

    public ReceiveWorkRequest wrId(final long wrId) {
        this.wrId = wrId;
        return this;
    }

    public long wrId() {
        return wrId;
    }

    public ReceiveWorkRequest next(final ReceiveWorkRequest next) {
        this.next = next;
        return this;
    }

    public ReceiveWorkRequest next() {
        return next;
    }
}
