package org.rdmablock.verbs;

/**
 * A set of QP attributes to apply with {@link QueuePair#modify} ({@code struct ibv_qp_attr} plus its
 * {@code attr_mask}): each setter also sets the attribute's mask bit, and only masked attributes are applied.
 * The mask bits are those of {@code enum ibv_qp_attr_mask}.
 */
public final class QueuePairAttributes {
    public static final int STATE = 1;
    public static final int ACCESS_FLAGS = 1 << 3;
    public static final int PKEY_INDEX = 1 << 4;
    public static final int PORT = 1 << 5;
    public static final int QKEY = 1 << 6;
    public static final int AV = 1 << 7;
    public static final int PATH_MTU = 1 << 8;
    public static final int TIMEOUT = 1 << 9;
    public static final int RETRY_CNT = 1 << 10;
    public static final int RNR_RETRY = 1 << 11;
    public static final int RQ_PSN = 1 << 12;
    public static final int MAX_QP_RD_ATOMIC = 1 << 13;
    public static final int MIN_RNR_TIMER = 1 << 15;
    public static final int SQ_PSN = 1 << 16;
    public static final int MAX_DEST_RD_ATOMIC = 1 << 17;
    public static final int DEST_QPN = 1 << 20;

    private int mask;
    private QueuePairState state;
    private int accessFlags;
    private int pkeyIndex;
    private int portNum;
    private int qkey;
    private AddressHandleAttributes addressVector;
    private int pathMtu;
    private int timeout;
    private int retryCount;
    private int rnrRetry;
    private int rqPsn;
    private int sqPsn;
    private int maxReadAtomic;
    private int maxDestReadAtomic;
    private int minRnrTimer;
    private int destQpNum;

    /** The attributes set so far, as {@code ibv_qp_attr_mask} bits. */
    public int mask() {
        return mask;
    }

    public boolean has(final int bit) {
        return (mask & bit) != 0;
    }

    public QueuePairAttributes state(final QueuePairState value) {
        state = value;
        mask |= STATE;
        return this;
    }

    /** Remote access the QP allows as a responder ({@link AccessFlags} remote bits). */
    public QueuePairAttributes accessFlags(final int value) {
        accessFlags = value;
        mask |= ACCESS_FLAGS;
        return this;
    }

    public QueuePairAttributes pkeyIndex(final int value) {
        pkeyIndex = value;
        mask |= PKEY_INDEX;
        return this;
    }

    public QueuePairAttributes portNum(final int value) {
        portNum = value;
        mask |= PORT;
        return this;
    }

    public QueuePairAttributes qkey(final int value) {
        qkey = value;
        mask |= QKEY;
        return this;
    }

    /** The primary path (address vector) of a connected QP. */
    public QueuePairAttributes addressVector(final AddressHandleAttributes value) {
        addressVector = value;
        mask |= AV;
        return this;
    }

    /** Path MTU as the IB enum (1 = 256 ... 5 = 4096). */
    public QueuePairAttributes pathMtu(final int value) {
        pathMtu = value;
        mask |= PATH_MTU;
        return this;
    }

    /** Local ACK timeout, IB encoding (4.096 µs × 2^timeout). */
    public QueuePairAttributes timeout(final int value) {
        timeout = value;
        mask |= TIMEOUT;
        return this;
    }

    public QueuePairAttributes retryCount(final int value) {
        retryCount = value;
        mask |= RETRY_CNT;
        return this;
    }

    /** Receiver-not-ready retries, 0..7; 7 means retry forever. */
    public QueuePairAttributes rnrRetry(final int value) {
        rnrRetry = value;
        mask |= RNR_RETRY;
        return this;
    }

    public QueuePairAttributes rqPsn(final int value) {
        rqPsn = value;
        mask |= RQ_PSN;
        return this;
    }

    public QueuePairAttributes sqPsn(final int value) {
        sqPsn = value;
        mask |= SQ_PSN;
        return this;
    }

    /** Outstanding RDMA READ/atomic requests this QP may issue (ORD). */
    public QueuePairAttributes maxReadAtomic(final int value) {
        maxReadAtomic = value;
        mask |= MAX_QP_RD_ATOMIC;
        return this;
    }

    /** Outstanding RDMA READ/atomic requests this QP accepts as responder (IRD). */
    public QueuePairAttributes maxDestReadAtomic(final int value) {
        maxDestReadAtomic = value;
        mask |= MAX_DEST_RD_ATOMIC;
        return this;
    }

    /** Minimum RNR NAK timer, IB encoding (see {@link #rnrTimerNanos(int)}). */
    public QueuePairAttributes minRnrTimer(final int value) {
        minRnrTimer = value;
        mask |= MIN_RNR_TIMER;
        return this;
    }

    public QueuePairAttributes destQpNum(final int value) {
        destQpNum = value;
        mask |= DEST_QPN;
        return this;
    }

    public QueuePairState state() {
        return state;
    }

    public int accessFlags() {
        return accessFlags;
    }

    public int pkeyIndex() {
        return pkeyIndex;
    }

    public int portNum() {
        return portNum;
    }

    public int qkey() {
        return qkey;
    }

    public AddressHandleAttributes addressVector() {
        return addressVector;
    }

    public int pathMtu() {
        return pathMtu;
    }

    public int timeout() {
        return timeout;
    }

    public int retryCount() {
        return retryCount;
    }

    public int rnrRetry() {
        return rnrRetry;
    }

    public int rqPsn() {
        return rqPsn;
    }

    public int sqPsn() {
        return sqPsn;
    }

    public int maxReadAtomic() {
        return maxReadAtomic;
    }

    public int maxDestReadAtomic() {
        return maxDestReadAtomic;
    }

    public int minRnrTimer() {
        return minRnrTimer;
    }

    public int destQpNum() {
        return destQpNum;
    }

    /** The IBTA encoding of the RNR NAK timer, in units of 10 µs (0.01 ms); encoding 0 is the longest, 655.36 ms. */
    private static final long[] RNR_TIMER_10_MICROS = {
        65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048,
        3072, 4096, 6144, 8192, 12288, 16384, 24576, 32768, 49152};

    /** The RNR NAK timer an IB encoding stands for, in nanoseconds (0 → 655.36 ms, 1 → 0.01 ms, 31 → 491.52 ms). */
    public static long rnrTimerNanos(final int encoded) {
        return RNR_TIMER_10_MICROS[encoded & 31] * 10_000L;
    }
}
