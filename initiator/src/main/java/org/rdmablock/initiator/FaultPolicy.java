package org.rdmablock.initiator;

/**
 * How a channel handles unanswered commands and lost connections (immutable, read on the agent thread): the command
 * timeout, how long a task management request may wait for its answer, how long a lost channel keeps logging in again,
 * and how often a command part is sent again before its request fails.
 */
record FaultPolicy(long commandTimeoutNanos, long taskManagementTimeoutNanos, long reconnectTimeoutNanos, int maxRetries) {
    /** From the session's configuration: task management may take half the command timeout. */
    static FaultPolicy of(final InitiatorConfig config) {
        return new FaultPolicy(config.commandTimeout().toNanos(), config.commandTimeout().toNanos() / 2 + 1,
                config.reconnectTimeout().toNanos(), config.maxRetries());
    }
}
