package org.rdmablock.verbs.soft;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;

import org.junit.jupiter.api.Test;
import org.rdmablock.verbs.DeviceContext;

/**
 * A QP's I/O agent may still be flushing the QP (its connection lost) when the application closes the QP and then its
 * CQ: the flush's completions then go to a destroyed CQ. They are dropped; before, the agent's duty cycle failed with
 * "Already closed" (seen at the end of a bench run, the target having closed the connection after the logout).
 */
class ClosedCompletionQueueTest {
    @Test
    void aCompletionForADestroyedCompletionQueueIsDropped() {
        try (SoftProvider provider = new SoftProvider()) {
            final DeviceContext context = provider.devices().getFirst().open();
            final SoftCompletionQueue cq = (SoftCompletionQueue) context.createCompletionQueue(16, null);
            cq.close();
            assertDoesNotThrow(() -> cq.add(7, 5, 128, 0, 0, 1, 0, 0, true));
        }
    }
}
