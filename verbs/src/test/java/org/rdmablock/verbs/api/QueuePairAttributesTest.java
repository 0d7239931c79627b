package org.rdmablock.verbs.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.rdmablock.verbs.QueuePairAttributes;

/** The RNR NAK timer encodings mean what the InfiniBand specification's table says. */
class QueuePairAttributesTest {
    @Test
    void rnrTimerEncodingsFollowTheIbTable() {
        assertEquals(655_360_000L, QueuePairAttributes.rnrTimerNanos(0), "0 is the longest: 655.36 ms");
        assertEquals(10_000L, QueuePairAttributes.rnrTimerNanos(1), "1 is 0.01 ms");
        assertEquals(640_000L, QueuePairAttributes.rnrTimerNanos(12), "12 is 0.64 ms, the usual default");
        assertEquals(491_520_000L, QueuePairAttributes.rnrTimerNanos(31), "31 is 491.52 ms");
    }
}
