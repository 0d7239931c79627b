package org.rdmablock.target.core;

import org.rdmablock.verbs.SendWorkRequest;

/**
 * Posts each chain at once: the poster of the backend threads, the blocking-call threads and an intake stage on its
 * own Disruptor thread. Stateless apart from where refused posts go; any number of threads may share it.
 */
final class DirectPosts implements SendPoster {
    private final ReturnedSlots returned;

    DirectPosts(final ReturnedSlots returned) {
        this.returned = returned;
    }

    @Override
    public void post(final CommandSlot slot, final SendWorkRequest chain) {
        try {
            slot.channel.queuePair.postSend(chain);
        } catch (RuntimeException e) {
            // The QP is gone or in error: no completion will come, so hand the slot back through the side queue.
            returned.postRefused(slot, e);
        }
    }

    @Override
    public int flush() {
        return 0;
    }
}
