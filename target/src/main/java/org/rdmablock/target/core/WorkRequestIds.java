package org.rdmablock.target.core;

/**
 * The 64-bit work request id every post of the target carries, so that the completion poller routes a completion
 * without a lookup: what the work was (8 bits), which channel (24 bits) and which receive buffer or command slot
 * (32 bits).
 *
 * <pre>
 *  63      56 55                     32 31                              0
 *  +---------+-------------------------+--------------------------------+
 *  |  kind   |       channel id        |  receive index or slot index   |
 *  +---------+-------------------------+--------------------------------+
 * </pre>
 */
public final class WorkRequestIds {
    /** A receive buffer of a channel: an IU from the initiator. */
    public static final int RECEIVE = 1;
    /** The SEND of a response IU (a command response or a message of the front end) of a command slot; signaled, it ends the slot's work. */
    public static final int RESPONSE = 2;
    /** The last RDMA READ of a command's data-out; signaled, it hands the command to the backend. */
    public static final int DATA_OUT = 3;
    /** The RDMA READ of an indirect descriptor table that did not fit in the IU; signaled. */
    public static final int TABLE = 4;
    /** The last RDMA WRITE of a round of data-in that is not the command's last round; signaled, it starts the next. */
    public static final int DATA_IN = 5;

    private WorkRequestIds() {
    }

    public static long of(final int kind, final int channel, final int index) {
        return ((long) kind << 56) | ((long) (channel & 0xFF_FFFF) << 32) | (index & 0xFFFF_FFFFL);
    }

    public static int kind(final long id) {
        return (int) (id >>> 56);
    }

    public static int channel(final long id) {
        return (int) (id >>> 32) & 0xFF_FFFF;
    }

    public static int index(final long id) {
        return (int) id;
    }
}
