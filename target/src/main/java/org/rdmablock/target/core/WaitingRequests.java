package org.rdmablock.target.core;

import org.rdmablock.target.metrics.TargetStatistics;
import org.rdmablock.target.metrics.TargetStatistics.Count;

/**
 * Requests that arrived when no command slot or buffer run was free, first in first out: the channel, the receive
 * buffer that still holds the request, its length and when it arrived. The intake stage serves them in arrival order
 * as slots come back, before any request that arrives later; task management may cancel some.
 *
 * <p>Thread: the intake stage's alone. Preallocated: every receive of every channel may be waiting at once.
 */
public final class WaitingRequests {
    /** Channel id of a waiting request that was cancelled: skipped when its turn comes. */
    static final int CANCELLED = -1;

    /** Decides, for one waiting request, whether it is cancelled (the filter then gives its receive back itself). */
    public interface Filter {
        boolean cancels(int channelId, int receiveIndex);
    }

    private final int[] channel;
    private final int[] receiveIndex;
    private final int[] length;
    private final long[] arrived;
    private final TargetStatistics statistics;
    private int head;
    private int count;

    WaitingRequests(final int maxChannels, final int receivesPerChannel, final TargetStatistics statistics) {
        final int capacity = Math.min(maxChannels * receivesPerChannel, 1 << 20);
        this.channel = new int[capacity];
        this.receiveIndex = new int[capacity];
        this.length = new int[capacity];
        this.arrived = new long[capacity];
        this.statistics = statistics;
    }

    boolean isEmpty() {
        return count == 0;
    }

    void add(final int channelId, final int index, final int bytes, final long arrivedNanos) {
        final int tail = (head + count) % channel.length;
        channel[tail] = channelId;
        receiveIndex[tail] = index;
        length[tail] = bytes;
        arrived[tail] = arrivedNanos;
        count++;
        statistics.add(Count.WAITED_IUS, 1);
        statistics.set(Count.WAITING_IUS, count);
    }

    /** The first request's channel id ({@link #CANCELLED} when it was cancelled); there must be one. */
    int headChannel() {
        return channel[head];
    }

    int headReceiveIndex() {
        return receiveIndex[head];
    }

    int headLength() {
        return length[head];
    }

    long headArrived() {
        return arrived[head];
    }

    /** Drops the first request (served or cancelled). */
    void removeHead() {
        head = (head + 1) % channel.length;
        count--;
        statistics.set(Count.WAITING_IUS, count);
    }

    /** Cancels every waiting request {@code filter} picks; returns how many. */
    public int cancel(final Filter filter) {
        int cancelled = 0;
        for (int i = 0; i < count; i++) {
            final int at = (head + i) % channel.length;
            if (channel[at] != CANCELLED && filter.cancels(channel[at], receiveIndex[at])) {
                channel[at] = CANCELLED;
                cancelled++;
            }
        }
        return cancelled;
    }
}
