package org.rdmablock.initiator;

/**
 * Command parts to be sent again, first in first out, on the agent thread: the parts of an aborted command, or of every
 * command in flight when the connection was lost. Sized so that every part of every slot fits.
 */
final class RetryQueue {
    private final IoRequest[] request;
    private final long[] offset;
    private final int[] length;
    private int head;
    private int count;

    RetryQueue(final int capacity) {
        request = new IoRequest[capacity];
        offset = new long[capacity];
        length = new int[capacity];
    }

    /** Queues {@code bytes} of {@code r} from {@code at} (an offset into its buffer) to be sent again. */
    void add(final IoRequest r, final long at, final int bytes) {
        final int tail = (head + count) % request.length;
        request[tail] = r;
        offset[tail] = at;
        length[tail] = bytes;
        count++;
    }

    /** Queues every part of {@code c}. */
    void addParts(final OutstandingCommand c) {
        for (int i = 0; i < c.partCount; i++) {
            add(c.parts[i], c.partOffset[i], c.partLength[i]);
        }
    }

    boolean isEmpty() {
        return count == 0;
    }

    int size() {
        return count;
    }

    IoRequest headRequest() {
        return request[head];
    }

    long headOffset() {
        return offset[head];
    }

    int headLength() {
        return length[head];
    }

    /** Drops the head part; returns its request. */
    IoRequest removeHead() {
        final IoRequest r = request[head];
        request[head] = null;
        head = (head + 1) % request.length;
        count--;
        return r;
    }
}
