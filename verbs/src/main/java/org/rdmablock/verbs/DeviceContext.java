package org.rdmablock.verbs;

/**
 * An open RDMA device ({@code struct ibv_context}): the factory for protection domains, completion queues and
 * channels, and the source of asynchronous events.
 */
public interface DeviceContext extends AutoCloseable {
    RdmaDevice device();

    /** Device limits and capabilities (ibv_query_device). */
    DeviceAttributes queryDevice();

    /** State and limits of a port, numbered from 1 (ibv_query_port). */
    PortAttributes queryPort(int portNum);

    /** Entry {@code index} of a port's GID table (ibv_query_gid). */
    Gid queryGid(int portNum, int index);

    /** Allocates a protection domain (ibv_alloc_pd). */
    ProtectionDomain allocateProtectionDomain();

    /** Creates a completion channel for blocking waits on completion queues (ibv_create_comp_channel). */
    CompletionChannel createCompletionChannel();

    /**
     * Creates a completion queue with room for at least {@code capacity} completions (ibv_create_cq).
     *
     * @param channel where completion events of this CQ are delivered once armed, or null
     */
    CompletionQueue createCompletionQueue(int capacity, CompletionChannel channel);

    /**
     * Sets the handler of asynchronous events (ibv_get_async_event): QP and CQ errors, port and device events.
     * The handler runs on a provider thread and must not block. Events before a handler is set are logged and
     * dropped.
     */
    void setAsyncEventHandler(AsyncEventHandler handler);

    /** Closes the device; every resource created from it must have been closed. */
    @Override
    void close();
}
