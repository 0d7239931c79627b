package org.rdmablock.verbs;

import java.time.Duration;

/**
 * A completion event channel ({@code struct ibv_comp_channel}): blocks a thread until an armed completion
 * queue gets a completion. Each armed CQ raises at most one event, then must be re-armed. Waiting allocates
 * nothing, so a completion thread can live on it; {@link #wakeup()} lets another thread stop it.
 */
public interface CompletionChannel extends AutoCloseable {
    /**
     * Waits for the next completion event (ibv_get_cq_event, with ibv_ack_cq_events done for the caller), or for
     * a {@link #wakeup()}. Allocates nothing.
     *
     * @return the CQ that raised the event, or null if {@code timeout} passed first, a wakeup was pending or
     *         came, or the channel was closed meanwhile
     * @throws VerbsException EINVAL once the channel is closed
     */
    CompletionQueue awaitEvent(Duration timeout) throws InterruptedException;

    /**
     * Makes one {@link #awaitEvent} return null: the one blocked now, or else the next one, at once. Each call
     * counts once; a pending wakeup is taken before any pending event. Callable from any thread (a shutdown
     * sets its own stop flag, then wakes the completion thread); allocates nothing. The native provider signals
     * an eventfd that the wait polls beside the channel's fd.
     */
    void wakeup();

    /** Destroys the channel (ibv_destroy_comp_channel); a thread blocked in {@link #awaitEvent} returns null. */
    @Override
    void close();
}
