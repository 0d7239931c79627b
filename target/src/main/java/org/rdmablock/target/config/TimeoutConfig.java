package org.rdmablock.target.config;

import java.time.Duration;

/**
 * Timeouts.
 *
 * @param idle    a channel with no traffic for this long is logged out (zero: never)
 * @param command a command the backend has not finished this long after it was handed to it is answered CHECK
 *                CONDITION, ABORTED COMMAND, COMMAND TIMEOUT DURING PROCESSING (zero: never); its slot and buffer are
 *                kept until the backend call returns, since a call on a pipeline thread cannot be interrupted
 */
public record TimeoutConfig(Duration idle, Duration command) {
    /** Idle channels are kept by default: an initiator with no I/O is not a fault. */
    public static final Duration DEFAULT_IDLE = Duration.ZERO;
    /** Default command timeout: 30 s, the timeout Linux's sd gives a command (the initiator aborts it then anyway). */
    public static final Duration DEFAULT_COMMAND = Duration.ofSeconds(30);
}
