package org.rdmablock.verbs;

/** Flags of a send work request; the values of {@code enum ibv_send_flags} (ibv_post_send(3)). */
public final class SendFlags {
    /** Wait for all prior RDMA READ and atomic work requests on this QP to complete before starting. */
    public static final int FENCE = 1;
    /** Generate a completion when this work request completes successfully (errors always complete). */
    public static final int SIGNALED = 1 << 1;
    /** Set the solicited-event indicator: wakes a remote CQ armed for solicited events only. */
    public static final int SOLICITED = 1 << 2;
    /** Copy the gathered data at post time; the lkeys are not checked and the buffers may be reused at once. */
    public static final int INLINE = 1 << 3;

    private SendFlags() {
    }
}
