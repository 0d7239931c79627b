package org.rdmablock.verbs;

/**
 * Queue sizes of a QP ({@code struct ibv_qp_cap}).
 *
 * @param maxSendWr     outstanding send work requests
 * @param maxRecvWr     outstanding receive work requests
 * @param maxSendSge    gather elements per send work request
 * @param maxRecvSge    scatter elements per receive work request
 * @param maxInlineData largest inline send, bytes
 */
public record QueuePairCapabilities(int maxSendWr, int maxRecvWr, int maxSendSge, int maxRecvSge, int maxInlineData) {
    /** Defaults good for most uses: 128 sends and receives, 4 SGEs each, 128 bytes inline. */
    public static final QueuePairCapabilities DEFAULT = new QueuePairCapabilities(128, 128, 4, 4, 128);
}
