package org.rdmablock.verbs;

import java.time.Duration;

/**
 * A completion event channel ({@code struct ibv_comp_channel}): blocks a thread until an armed completion
 * queue gets a completion. Each armed CQ raises at most one event, then must be re-armed.
 */
public interface CompletionChannel extends AutoCloseable {
    /**
     * Waits for the next completion event (ibv_get_cq_event, with ibv_ack_cq_events done for the caller).
     *
     * @return the CQ that raised the event, or null if {@code timeout} passed first
     */
    CompletionQueue awaitEvent(Duration timeout) throws InterruptedException;

    @Override
    void close();
}
