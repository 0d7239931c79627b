package org.rdmablock.target.config;

import java.time.Duration;

/**
 * Timeouts.
 *
 * @param idle    a channel with no traffic for this long is logged out (zero: never)
 * @param command a command the backend has not finished after this long is aborted with CHECK CONDITION (zero: never)
 */
public record TimeoutConfig(Duration idle, Duration command) {
}
