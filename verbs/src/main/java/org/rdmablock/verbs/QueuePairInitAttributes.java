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
 */
public record QueuePairInitAttributes(QueuePairType type, CompletionQueue sendCq, CompletionQueue receiveCq,
                                      SharedReceiveQueue srq, QueuePairCapabilities capabilities, boolean signalAll) {
    public QueuePairInitAttributes {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(sendCq, "sendCq");
        Objects.requireNonNull(receiveCq, "receiveCq");
        Objects.requireNonNull(capabilities, "capabilities");
    }

    /** A QP of {@code type} using {@code cq} for both queues, with default capacities. */
    public static QueuePairInitAttributes of(final QueuePairType type, final CompletionQueue cq) {
        return new QueuePairInitAttributes(type, cq, cq, null, QueuePairCapabilities.DEFAULT, false);
    }

    public QueuePairInitAttributes withCapabilities(final QueuePairCapabilities caps) {
        return new QueuePairInitAttributes(type, sendCq, receiveCq, srq, caps, signalAll);
    }

    public QueuePairInitAttributes withSrq(final SharedReceiveQueue sharedReceiveQueue) {
        return new QueuePairInitAttributes(type, sendCq, receiveCq, sharedReceiveQueue, capabilities, signalAll);
    }
}
