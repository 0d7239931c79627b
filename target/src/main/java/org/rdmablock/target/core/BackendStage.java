package org.rdmablock.target.core;

import com.lmax.disruptor.EventHandler;

/**
 * A backend thread of the ring ({@code backend_threads} N): executes the ready commands whose slot index falls to it,
 * on their logical units, straight into or out of their data buffers; the command's completion posts its data-in and
 * response at once from this thread ({@link DirectPosts}).
 *
 * <p>Thread: one of the ring's backend stage threads ({@link RingExecution}), {@code threads} instances side by side.
 */
final class BackendStage implements EventHandler<PipelineEvent> {
    private final int ordinal;
    private final int threads;
    /** The posts of this stage's thread. */
    private final SendPoster posts;

    BackendStage(final int ordinal, final int threads, final SendPoster posts) {
        this.ordinal = ordinal;
        this.threads = threads;
        this.posts = posts;
    }

    @Override
    public void onEvent(final PipelineEvent event, final long sequence, final boolean endOfBatch) {
        final CommandSlot slot = event.ready;
        if (slot != null && slot.index % threads == ordinal && runs(slot)) {
            slot.postsThrough(posts);
            slot.channel.units.execute(slot.lunField, slot.command);
        }
    }

    /**
     * Whether a backend runs the ready {@code slot}: false for one the command timeout answered while it queued, or one
     * task management aborted, which goes back to the intake stage from here (to be freed, its credit returned).
     */
    static boolean runs(final CommandSlot slot) {
        if (slot.phase == CommandSlot.TIMED_OUT) {
            slot.backendReturned(); // answered by the timeout while it queued behind a slow call
            return false;
        }
        if (slot.aborted) {
            // dropped: the intake stage frees it and returns its credit (or, if the timeout answered it first, takes
            // this as the return of its backend call)
            slot.leaveBackend();
            slot.backendReturned();
            return false;
        }
        return true;
    }
}
