package org.rdmablock.verbs.soft;

/**
 * The outbound read queue (ORQ) of a connected QP: RDMA Read Requests and Atomic Requests sent and awaiting
 * their responses, in order (RFC 5040 §5.3: responses return in request order). Also holds the provider's own
 * zero-length "confirmation" reads (see {@link RequesterCompletion}). Single producer (the transmit owner,
 * {@link RdmapTransmitter}), single consumer (the receive owner, {@link RequesterCompletion}).
 */
final class OutstandingReads {
    static final int READ = 0;
    static final int ATOMIC = 1;
    /** A zero-length read that confirms delivery of the work requests before it. */
    static final int PROBE = 2;

    private final int capacity;
    private final int[] kinds;
    private final long[] wqeSeqs;
    private final long[] covers;
    private final int[] sinkStags;
    private final long[] sinkOffsets;
    private final long[] lengths;
    private final long[] placed;
    private final int[] requestIds;
    private volatile long head;
    private volatile long tail;

    OutstandingReads(final int capacity) {
        this.capacity = capacity;
        kinds = new int[capacity];
        wqeSeqs = new long[capacity];
        covers = new long[capacity];
        sinkStags = new int[capacity];
        sinkOffsets = new long[capacity];
        lengths = new long[capacity];
        placed = new long[capacity];
        requestIds = new int[capacity];
    }

    boolean isFull() {
        return tail - head >= capacity;
    }

    boolean isEmpty() {
        return tail == head;
    }

    /** Records a request; {@code cover} is the send queue sequence up to which its response confirms delivery. */
    void push(final int kind, final long wqeSeq, final long cover, final int sinkStag, final long sinkOffset,
              final long length, final int requestId) {
        final int i = (int) (tail % capacity);
        kinds[i] = kind;
        wqeSeqs[i] = wqeSeq;
        covers[i] = cover;
        sinkStags[i] = sinkStag;
        sinkOffsets[i] = sinkOffset;
        lengths[i] = length;
        placed[i] = 0;
        requestIds[i] = requestId;
        tail = tail + 1;
    }

    private int headIndex() {
        return (int) (head % capacity);
    }

    int headKind() {
        return kinds[headIndex()];
    }

    long headWqeSeq() {
        return wqeSeqs[headIndex()];
    }

    long headCover() {
        return covers[headIndex()];
    }

    int headSinkStag() {
        return sinkStags[headIndex()];
    }

    long headSinkOffset() {
        return sinkOffsets[headIndex()];
    }

    long headLength() {
        return lengths[headIndex()];
    }

    long headPlaced() {
        return placed[headIndex()];
    }

    void addPlaced(final long n) {
        placed[headIndex()] += n;
    }

    int headRequestId() {
        return requestIds[headIndex()];
    }

    void pop() {
        head = head + 1;
    }

    void clear() {
        head = tail;
    }
}
