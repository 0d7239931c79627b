package org.rdmablock.verbs.spi;

import java.time.Duration;

import org.rdmablock.verbs.VerbsException;

/** Argument checks of the timeouts that providers' blocking calls take. */
public final class Durations {
    private Durations() {
    }

    /** {@code timeout}, or EINVAL when it is null, zero or negative (a wait that cannot succeed). */
    public static Duration requirePositive(final Duration timeout, final String call) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new VerbsException(VerbsException.EINVAL, call + " needs a positive timeout, not " + timeout);
        }
        return timeout;
    }

    /** Whole milliseconds of {@code timeout} for a call that takes an int, at least 1. */
    public static int millis(final Duration timeout) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
    }
}
