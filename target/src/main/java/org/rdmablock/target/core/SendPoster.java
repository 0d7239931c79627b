package org.rdmablock.target.core;

import org.rdmablock.verbs.SendWorkRequest;

/**
 * How a command slot's send chains reach its queue pair: batched until the end of the poller's duty cycle
 * ({@link SendBatch}) on the thread that runs the pipeline itself, posted at once ({@link DirectPosts}) on every other
 * thread. The thread that hands a slot on gives it the poster of the thread that will run it
 * ({@link CommandSlot#postsThrough}); a slot never asks which thread it is on. A refused post returns the slot through
 * {@link ReturnedSlots}, so that no slot waits for a completion that will not come.
 */
public interface SendPoster {
    /** Posts {@code chain}, {@code slot}'s requests with the last one signalled, or keeps it for {@link #flush}. */
    void post(CommandSlot slot, SendWorkRequest chain);

    /** Posts what was kept; returns the number of queue pairs posted to (0 for a poster that keeps nothing). */
    int flush();
}
