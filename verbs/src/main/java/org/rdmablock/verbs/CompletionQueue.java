package org.rdmablock.verbs;

/**
 * A completion queue ({@code struct ibv_cq}). Poll it to reap completions; for blocking waits, arm it with
 * {@link #requestNotify(boolean)} and wait on its {@link CompletionChannel}.
 *
 * <p>If more completions arrive than the CQ holds, the CQ overruns: {@link #poll} throws, an async event
 * {@link AsyncEvent.Type#CQ_ERR} is raised and the QPs using the CQ move to ERR. Completions are never dropped
 * silently.
 *
 * <p>Threads: {@link #poll} may run while other threads post to the CQ's QPs (see {@link QueuePair}); several
 * threads may poll one CQ, each completion going to exactly one of them (the providers serialise polls).
 */
public interface CompletionQueue extends AutoCloseable {
    DeviceContext context();

    /** The number of completions the CQ holds. */
    int capacity();

    /** The channel given at creation, or null. */
    CompletionChannel channel();

    /**
     * Moves up to {@code completions.capacity()} completions into {@code completions} (ibv_poll_cq). Allocates
     * nothing.
     *
     * @return how many entries were written, 0 when the CQ is empty
     * @throws VerbsException EIO once the CQ has overrun
     */
    default int poll(WorkCompletions completions) {
        return poll(completions, completions.capacity());
    }

    /** Same as {@link #poll(WorkCompletions)} but returns at most {@code max} entries. */
    int poll(WorkCompletions completions, int max);

    /**
     * Arms the CQ (ibv_req_notify_cq): the next completion (or the next solicited one, or an error completion,
     * when {@code solicitedOnly}) raises one event on the channel. Poll once more after arming: a completion that
     * arrived before arming raises no event.
     */
    void requestNotify(boolean solicitedOnly);

    /** Destroys the CQ (ibv_destroy_cq); QPs using it must be destroyed first. */
    @Override
    void close();
}
