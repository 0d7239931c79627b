package org.rdmablock.tools.mount;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** One line per interval, the failures between counted into the next line. */
class FailureLogTest {
    @Test
    void oneLinePerIntervalWithTheFailuresBetweenCounted() {
        final long t0 = 1_000_000_000L;
        final FailureLog log = new FailureLog(t0);
        assertEquals(0, log.admit(t0), "the first failure is logged");
        assertEquals(-1, log.admit(t0 + 1), "then none within the interval");
        assertEquals(-1, log.admit(t0 + FailureLog.INTERVAL_NANOS - 1));
        assertEquals(2, log.admit(t0 + FailureLog.INTERVAL_NANOS), "the next line counts the two unlogged");
        assertEquals(-1, log.admit(t0 + FailureLog.INTERVAL_NANOS + 5));
        assertEquals(1, log.admit(t0 + 3 * FailureLog.INTERVAL_NANOS), "after a quiet spell, at once, with its count");
    }
}
