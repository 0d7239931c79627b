package org.rdmablock.target.metrics;

/**
 * The I/O of one LUN or session at one moment ({@link IoStats#snapshot()}).
 *
 * @param readCommands  READ commands answered
 * @param writeCommands WRITE commands answered
 * @param otherCommands other commands answered
 * @param readBytes     bytes read by commands answered GOOD
 * @param writeBytes    bytes written by commands answered GOOD
 * @param errors        commands answered with a status other than GOOD
 * @param queueDepth    commands in the target's hands now (arrived, not yet answered)
 * @param readLatency   latency of the READ commands
 * @param writeLatency  latency of the WRITE commands
 */
public record IoSnapshot(long readCommands, long writeCommands, long otherCommands, long readBytes, long writeBytes,
                         long errors, long queueDepth, LatencySnapshot readLatency, LatencySnapshot writeLatency) {
}
