package org.rdmablock.verbs;

/**
 * A queue pair ({@code struct ibv_qp}): a send queue and a receive queue (or an SRQ) bound to completion queues.
 *
 * <p>Posting follows ibv_post_send(3)/ibv_post_recv(3): a whole chain is validated for state and capacity and
 * either accepted or rejected with a {@link VerbsException}; errors in the work itself (keys, bounds, remote
 * failures) complete the work request with an error status and move the QP to {@link QueuePairState#ERR},
 * after which the remaining and newly posted work requests complete with {@link WcStatus#WR_FLUSH_ERR}.
 */
public interface QueuePair extends AutoCloseable {
    ProtectionDomain protectionDomain();

    /** The QP number: unique on its device, 24 bits. */
    int qpNum();

    QueuePairType type();

    QueuePairState state();

    /** The capacities granted at creation (at least those asked for). */
    QueuePairCapabilities capabilities();

    CompletionQueue sendCompletionQueue();

    CompletionQueue receiveCompletionQueue();

    /** The shared receive queue, or null. */
    SharedReceiveQueue sharedReceiveQueue();

    /**
     * Posts a chain of send work requests. Allocates nothing.
     *
     * @throws VerbsException EINVAL in a state that accepts no sends or for a request the QP cannot carry;
     *                        ENOMEM when the send queue is full
     */
    void postSend(SendWorkRequest wr);

    /**
     * Posts a chain of receive work requests. Allocates nothing.
     *
     * @throws VerbsException EINVAL in RESET or on a QP with an SRQ; ENOMEM when the receive queue is full
     */
    void postReceive(ReceiveWorkRequest wr);

    /**
     * Changes attributes and state (ibv_modify_qp): only the attributes set in {@code attributes} are applied.
     *
     * @throws VerbsException EINVAL for a transition the state machine forbids or a missing required attribute
     */
    void modify(QueuePairAttributes attributes);

    /** Shorthand for {@code modify(new QueuePairAttributes().state(state))}. */
    default void modify(final QueuePairState state) {
        modify(new QueuePairAttributes().state(state));
    }

    /** Destroys the QP (ibv_destroy_qp); outstanding work is dropped without completions. */
    @Override
    void close();
}
