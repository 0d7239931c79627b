package org.rdmablock.target.core;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Command slots that go back to the intake stage without a completion to bring them: a post the queue pair refused
 * (no completion will come), or the backend call of an aborted or timed-out command that returned on a backend or
 * blocking-call thread. Any thread adds; the intake stage takes them on its housekeeping tick. The slot only names
 * this queue, not the pipeline that drains it.
 */
final class ReturnedSlots {
    private static final Logger LOG = LoggerFactory.getLogger(ReturnedSlots.class);
    private final ConcurrentLinkedQueue<CommandSlot> queue = new ConcurrentLinkedQueue<>();

    /** A post of {@code slot} was refused ({@code cause}, or null when the caller logged it): it comes back here. */
    void postRefused(final CommandSlot slot, final RuntimeException cause) {
        if (cause != null) {
            LOG.warn("post refused on {}: {}", slot.channel, cause.getMessage());
        }
        queue.add(slot);
    }

    /** The backend call of an aborted or timed-out command returned (a backend or blocking-call thread). */
    void backendReturned(final CommandSlot slot) {
        queue.add(slot);
    }

    /** Intake stage: the next slot back, or null. */
    CommandSlot poll() {
        return queue.poll();
    }

    boolean isEmpty() {
        return queue.isEmpty();
    }
}
