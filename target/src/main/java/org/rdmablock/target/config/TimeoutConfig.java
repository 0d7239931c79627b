package org.rdmablock.target.config;

import java.time.Duration;

/**
 * Timeouts.
 *
 * @param idle    a channel with no traffic for this long is logged out (zero: never)
 * @param command a command the backend has not finished after this long is to be aborted with CHECK CONDITION (zero:
 *                never); read and checked, not enforced yet: a backend call on a pipeline thread cannot be interrupted
 */
public record TimeoutConfig(Duration idle, Duration command) {
    /** Idle channels are kept by default: an initiator with no I/O is not a fault. */
    public static final Duration DEFAULT_IDLE = Duration.ZERO;
    /** Default command timeout: 30 s, the timeout Linux's sd gives a command (the initiator aborts it then anyway). */
    public static final Duration DEFAULT_COMMAND = Duration.ofSeconds(30);
}
