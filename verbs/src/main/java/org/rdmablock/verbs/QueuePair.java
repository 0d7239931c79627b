package org.rdmablock.verbs;

/**
 * A queue pair ({@code struct ibv_qp}): a send queue and a receive queue (or an SRQ) bound to completion queues.
 *
 * <p>Posting follows ibv_post_send(3)/ibv_post_recv(3): a refused post throws {@link PostFailedException}, whose
 * {@link PostFailedException#posted()} says how many requests at the head of the chain were accepted anyway (the
 * soft provider accepts or refuses a chain whole; a native device may take a prefix, as libibverbs' {@code bad_wr}
 * reports). Errors in the work itself (keys, bounds, remote failures) complete the work request with an error
 * status and move the QP to {@link QueuePairState#ERR}, after which the remaining and newly posted work requests
 * complete with {@link WcStatus#WR_FLUSH_ERR}.
 *
 * <h2>Threads</h2>
 * Both providers allow, on one QP and its CQs, at the same time and without the caller's locking:
 * {@link #postSend} from several threads (each chain is posted in one piece, in the order the posting threads
 * get in), {@link #postReceive} from several threads, and {@link CompletionQueue#poll} from another thread (a
 * target's backend threads post responses while one poller polls). Posts from several threads are ordered only
 * by which post happens first; a caller that needs a WRITE before its SEND posts them as one chain, from one
 * thread. {@link #modify} and {@link #close} must not race with posting or polling on the same QP: they change
 * what a concurrent post would see (a destroyed QP's queues are freed). The work request objects belong to the
 * caller: the provider copies them during the post, after which the caller may reuse them at once, but one
 * {@link SendWorkRequest} object must not be posted by two threads at the same time.
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
     * Posts a chain of send work requests. Allocates nothing (but the exception of a refusal).
     *
     * @throws PostFailedException EINVAL in a state that accepts no sends or for a request the QP cannot carry;
     *                             ENOMEM when the send queue is full; its {@code posted()} requests were accepted
     */
    void postSend(SendWorkRequest wr);

    /**
     * Posts a chain of receive work requests. Allocates nothing (but the exception of a refusal).
     *
     * @throws PostFailedException EINVAL in RESET or on a QP with an SRQ; ENOMEM when the receive queue is full;
     *                             its {@code posted()} requests were accepted
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
