package org.rdmablock.initiator;

import com.lmax.disruptor.RingBuffer;

/**
 * Chooses the request a channel starts next (read priority) and what rides with it (merging), on the agent thread.
 *
 * <p>The oldest request, or with read priority a read that waits behind a write and overlaps no write before it (a
 * write is passed {@link #MAX_PASSED} times at most); with merging, the whole requests that follow it in the ring and
 * continue it join its command. Both act only when requests wait, for a credit or a command slot.
 */
final class RequestScheduler {
    /** How far ahead of the oldest waiting request read priority looks for a read. */
    static final int SCHEDULING_WINDOW = 64;
    /** Reads that may start ahead of one waiting write (read priority), so that writes are not starved. */
    static final int MAX_PASSED = 8;

    private final RingBuffer<IoRequest> ring;
    private final boolean merge;
    private final boolean readPriority;
    /** The oldest sequence that may hold a request not started yet. */
    private long nextToStart;
    /** Requests that rode in another's command (statistics, read by any thread). */
    private volatile long mergedRequests;

    RequestScheduler(final RingBuffer<IoRequest> ring, final boolean merge, final boolean readPriority) {
        this.ring = ring;
        this.merge = merge;
        this.readPriority = readPriority;
    }

    long mergedRequests() {
        return mergedRequests;
    }

    /** Whether a request is published that may not have started yet (the agent does not sleep while one is). */
    boolean hasWaiting() {
        return ring.isAvailable(nextToStart);
    }

    /**
     * The request to start next: the oldest one not started, or with read priority, when the oldest is a write and
     * reads wait behind it, the first such read that overlaps no write before it. Marks it started and notes its
     * sequence. Null when none is published.
     */
    IoRequest next() {
        while (ring.isAvailable(nextToStart) && ring.get(nextToStart).started) {
            nextToStart++;
        }
        if (!ring.isAvailable(nextToStart)) {
            return null;
        }
        long chosen = nextToStart;
        final IoRequest oldest = ring.get(nextToStart);
        if (readPriority && oldest.op == IoRequest.WRITE && oldest.passedBy < MAX_PASSED) {
            final long read = firstReadPassingWrites();
            if (read >= 0) {
                oldest.passedBy++;
                chosen = read;
            }
        }
        final IoRequest request = ring.get(chosen);
        request.started = true;
        request.sequence = chosen;
        return request;
    }

    /**
     * The sequence of the first unstarted read within {@link #SCHEDULING_WINDOW} of the oldest request that no earlier
     * write overlaps, or -1.
     */
    private long firstReadPassingWrites() {
        final long end = nextToStart + SCHEDULING_WINDOW;
        for (long seq = nextToStart + 1; seq < end && ring.isAvailable(seq); seq++) {
            final IoRequest candidate = ring.get(seq);
            if (candidate.started || candidate.op != IoRequest.READ) {
                continue;
            }
            boolean overlaps = false;
            for (long before = nextToStart; before < seq && !overlaps; before++) {
                final IoRequest write = ring.get(before);
                overlaps = !write.started && write.op != IoRequest.READ && write.lunField == candidate.lunField
                        && (write.op != IoRequest.WRITE || write.lba < candidate.lba + candidate.blocks
                        && candidate.lba < write.lba + write.blocks);
            }
            if (!overlaps) {
                return seq;
            }
        }
        return -1;
    }

    /**
     * With merging on, adds to {@code c} the whole requests that follow {@code head} in the ring, not started, of the
     * same kind, LUN, FUA and buffer kind, each starting where the previous ends, while they fit {@code limit} bytes;
     * marks them started. Requests submitted together (a sequential stream, or a burst the credits hold back) so
     * become one command.
     */
    void mergeFollowing(final IoRequest head, final OutstandingCommand c, final int limit) {
        if (!merge) {
            return;
        }
        long lba = head.lba + head.blocks;
        for (long seq = head.sequence + 1; c.partCount < OutstandingCommand.MAX_PARTS && ring.isAvailable(seq); seq++) {
            final IoRequest next = ring.get(seq);
            final long bytes = next.blocks * next.blockSize;
            if (next.started || next.op != head.op || next.lunField != head.lunField || next.fua != head.fua
                    || next.lba != lba || (next.rkey == RegisteredMemory.NOT_REGISTERED) != (head.rkey == RegisteredMemory.NOT_REGISTERED)
                    || c.length + bytes > limit) {
                return;
            }
            next.started = true;
            next.issuedBlocks = next.blocks;
            next.inFlight++;
            c.add(next, 0, (int) bytes);
            lba += next.blocks;
            mergedRequests++;
        }
    }
}
