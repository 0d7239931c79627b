package org.rdmablock.verbs;

/**
 * A shared receive queue ({@code struct ibv_srq}): receive work requests shared by every QP created with it.
 * With a limit armed, {@link AsyncEvent.Type#SRQ_LIMIT_REACHED} fires once when fewer requests remain.
 */
public interface SharedReceiveQueue extends AutoCloseable {
    ProtectionDomain protectionDomain();

    /**
     * Posts a chain of receive work requests (ibv_post_srq_recv); several threads may post at once.
     *
     * @throws PostFailedException ENOMEM when the queue is full; its {@code posted()} requests were accepted
     */
    void postReceive(ReceiveWorkRequest wr);

    /** Arms the limit event (ibv_modify_srq with IBV_SRQ_LIMIT); 0 disarms. */
    void armLimit(int limit);

    @Override
    void close();
}
