package org.rdmablock.verbs.soft;

/**
 * The inbound read queue (IRQ) of a connected QP: responses owed to the peer, in the order its requests arrived:
 * RDMA Read Responses (streamed from a source region) and Atomic Responses. Bounded by the IRD the QP granted.
 * Single producer (the receive owner, {@link RdmapReceiver}), single consumer (the transmit owner,
 * {@link RdmapTransmitter}).
 */
final class InboundRequests {
    static final int READ_RESPONSE = 0;
    static final int ATOMIC_RESPONSE = 1;

    private final int capacity;
    private final int[] kinds;
    private final int[] sinkStags;
    private final long[] sinkOffsets;
    private final SoftMemoryRegion[] sources;
    private final long[] sourceOffsets;
    private final long[] lengths;
    private final long[] sent;
    private final int[] requestIds;
    private final long[] values;
    private volatile long head;
    private volatile long tail;

    InboundRequests(final int capacity) {
        this.capacity = capacity;
        kinds = new int[capacity];
        sinkStags = new int[capacity];
        sinkOffsets = new long[capacity];
        sources = new SoftMemoryRegion[capacity];
        sourceOffsets = new long[capacity];
        lengths = new long[capacity];
        sent = new long[capacity];
        requestIds = new int[capacity];
        values = new long[capacity];
    }

    boolean isFull() {
        return tail - head >= capacity;
    }

    boolean isEmpty() {
        return tail == head;
    }

    void pushRead(final int sinkStag, final long sinkOffset, final SoftMemoryRegion source, final long sourceOffset, final long length) {
        final int i = (int) (tail % capacity);
        kinds[i] = READ_RESPONSE;
        sinkStags[i] = sinkStag;
        sinkOffsets[i] = sinkOffset;
        sources[i] = source;
        sourceOffsets[i] = sourceOffset;
        lengths[i] = length;
        sent[i] = 0;
        tail = tail + 1;
    }

    void pushAtomic(final int requestId, final long originalValue) {
        final int i = (int) (tail % capacity);
        kinds[i] = ATOMIC_RESPONSE;
        requestIds[i] = requestId;
        values[i] = originalValue;
        tail = tail + 1;
    }

    private int headIndex() {
        return (int) (head % capacity);
    }

    int headKind() {
        return kinds[headIndex()];
    }

    int headSinkStag() {
        return sinkStags[headIndex()];
    }

    long headSinkOffset() {
        return sinkOffsets[headIndex()];
    }

    SoftMemoryRegion headSource() {
        return sources[headIndex()];
    }

    long headSourceOffset() {
        return sourceOffsets[headIndex()];
    }

    long headLength() {
        return lengths[headIndex()];
    }

    long headSent() {
        return sent[headIndex()];
    }

    void addSent(final long n) {
        sent[headIndex()] += n;
    }

    int headRequestId() {
        return requestIds[headIndex()];
    }

    long headValue() {
        return values[headIndex()];
    }

    void pop() {
        sources[headIndex()] = null;
        head = head + 1;
    }

    void clear() {
        while (!isEmpty()) {
            pop();
        }
    }
}
