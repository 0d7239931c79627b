package org.rdmablock.target.config;

/**
 * The command pipeline: completion queue size, the Disruptor ring, backend threads and the receive and completion
 * modes.
 *
 * @param cqSize         entries of the completion queue; must hold every completion maxChannels × credits can cause
 * @param ringSize       slots of the Disruptor ring (power of two)
 * @param backendThreads threads that run backend I/O
 * @param receiveQueue   one shared receive queue for all channels, or a receive queue per channel
 * @param completions    busy polling, or sleeping on a completion channel between completions
 */
public record PipelineConfig(int cqSize, int ringSize, int backendThreads, ReceiveQueueMode receiveQueue,
                             CompletionMode completions) {

    /** How receive buffers are shared between channels. */
    public enum ReceiveQueueMode {
        /** One SRQ for all channels (TOML {@code "srq"}). */
        SHARED,
        /** Each channel posts its own receives (TOML {@code "per-channel"}). */
        PER_CHANNEL
    }

    /** How the completion poller waits. */
    public enum CompletionMode {
        /** Spin on the CQ (TOML {@code "poll"}): lowest latency, one busy core. */
        POLL,
        /** Arm the CQ and sleep on its completion channel when idle (TOML {@code "event"}). */
        EVENT
    }
}
