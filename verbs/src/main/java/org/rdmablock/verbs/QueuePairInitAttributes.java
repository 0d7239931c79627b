package org.rdmablock.verbs;

import java.util.Objects;

/**
 * What a new QP needs ({@code struct ibv_qp_init_attr}).
 *
 * @param type          transport
 * @param sendCq        where send completions go
 * @param receiveCq     where receive completions go
 * @param srq           shared receive queue, or null for a private receive queue
 * @param capabilities  queue sizes
 * @param signalAll     every send work request completes as if {@link SendFlags#SIGNALED} were set
 * @param completesOnTransmit an RC SEND or RDMA WRITE completes once the transport has its bytes, as on an iWARP
 *                      device, not once the peer has them: no zero-length confirmation READ, which Linux siw mishandles
 *                      (docs/benchmarks/siw-interop.md); for a protocol that tells its peer by a later message anyway.
 *                      The soft provider's choice only: a device keeps its own semantics.
 */
public record QueuePairInitAttributes(QueuePairType type, CompletionQueue sendCq, CompletionQueue receiveCq,
                                      SharedReceiveQueue srq, QueuePairCapabilities capabilities, boolean signalAll,
                                      boolean completesOnTransmit) {
    public QueuePairInitAttributes {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(sendCq, "sendCq");
        Objects.requireNonNull(receiveCq, "receiveCq");
        Objects.requireNonNull(capabilities, "capabilities");
    }

    /** A QP whose sends complete once the peer has them. */
    public QueuePairInitAttributes(final QueuePairType type, final CompletionQueue sendCq, final CompletionQueue receiveCq,
                                   final SharedReceiveQueue srq, final QueuePairCapabilities capabilities,
                                   final boolean signalAll) {
        this(type, sendCq, receiveCq, srq, capabilities, signalAll, false);
    }

    /** A QP of {@code type} using {@code cq} for both queues, with default capacities. */
    public static QueuePairInitAttributes of(final QueuePairType type, final CompletionQueue cq) {
        return new QueuePairInitAttributes(type, cq, cq, null, QueuePairCapabilities.DEFAULT, false);
    }

    public QueuePairInitAttributes withCapabilities(final QueuePairCapabilities caps) {
        return new QueuePairInitAttributes(type, sendCq, receiveCq, srq, caps, signalAll, completesOnTransmit);
    }

    public QueuePairInitAttributes withSrq(final SharedReceiveQueue sharedReceiveQueue) {
        return new QueuePairInitAttributes(type, sendCq, receiveCq, sharedReceiveQueue, capabilities, signalAll,
                completesOnTransmit);
    }

    /** The same QP, its sends completing once the transport has their bytes ({@link #completesOnTransmit}). */
    public QueuePairInitAttributes withCompletionOnTransmit() {
        return new QueuePairInitAttributes(type, sendCq, receiveCq, srq, capabilities, signalAll, true);
    }
}
