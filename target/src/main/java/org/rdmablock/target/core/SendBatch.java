package org.rdmablock.target.core;

import org.rdmablock.verbs.PostFailedException;
import org.rdmablock.verbs.SendWorkRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The send chains the poller thread makes in one duty cycle (with {@code backend_threads = 0}), gathered per channel
 * and posted as one chain per queue pair when the cycle ends: the responses, data-in WRITEs and data-out READs of a
 * poll batch cost one post each QP instead of one per command (one doorbell on a device, one system call on Soft-RoCE,
 * one socket write on the soft provider). The initiator batches its commands the same way.
 *
 * <p>Poller thread only: it is the poster the pipeline gives the slots the poller runs; the backend threads' and
 * blocking-call threads' slots get {@link DirectPosts}. The slots and channels are linked through their own fields,
 * so a batch allocates nothing. Nothing is lost if a post fails: each slot whose signalled request was not accepted
 * goes to {@link ReturnedSlots}, as a refused post of its own would. A channel is never released with a slot in a
 * batch, since the slot counts as outstanding until its last request completes.
 */
final class SendBatch implements SendPoster {
    private static final Logger LOG = LoggerFactory.getLogger(SendBatch.class);
    private final ReturnedSlots returned;
    /**
     * The poller thread, known from its first flush. A backend may call back on a thread of its own (the
     * {@code BlockBackend} contract allows any thread): a slot completed there posts at once, since the batch is
     * the poller's alone.
     */
    private Thread owner;
    /** How a post from any other thread goes. */
    private final DirectPosts direct;
    /** Channels with deferred chains, linked through {@link Channel#batchNextChannel}. */
    private Channel firstChannel;
    private Channel lastChannel;

    SendBatch(final ReturnedSlots returned) {
        this.returned = returned;
        this.direct = new DirectPosts(returned);
    }

    /** Appends {@code chain}, the slot's requests (its last one signalled), to its channel's chain. */
    @Override
    public void post(final CommandSlot slot, final SendWorkRequest chain) {
        if (Thread.currentThread() != owner) {
            // a plain read: only the poller writes it, so another thread sees null or the poller, never itself
            direct.post(slot, chain);
            return;
        }
        final Channel channel = slot.channel;
        int requests = 1;
        SendWorkRequest tail = chain;
        while (tail.next() != null) {
            tail = tail.next();
            requests++;
        }
        slot.batchRequests = requests;
        slot.batchChain = chain;
        slot.batchNext = null;
        if (channel.batchFirstSlot == null) {
            channel.batchFirstSlot = slot;
            channel.batchNextChannel = null;
            if (lastChannel == null) {
                firstChannel = channel;
            } else {
                lastChannel.batchNextChannel = channel;
            }
            lastChannel = channel;
        } else {
            channel.batchLastSlot.batchNext = slot;
            channel.batchTail.next(chain);
        }
        channel.batchLastSlot = slot;
        channel.batchTail = tail;
    }

    /** Posts every channel's chain; returns the number of channels posted to. */
    @Override
    public int flush() {
        if (owner == null) {
            owner = Thread.currentThread(); // flush runs on the poller thread alone
        }
        int posted = 0;
        Channel channel = firstChannel;
        firstChannel = null;
        lastChannel = null;
        while (channel != null) {
            final Channel next = channel.batchNextChannel;
            final CommandSlot first = channel.batchFirstSlot;
            channel.batchFirstSlot = null;
            channel.batchLastSlot = null;
            channel.batchTail = null;
            channel.batchNextChannel = null;
            post(channel, first);
            posted++;
            channel = next;
        }
        return posted;
    }

    private void post(final Channel channel, final CommandSlot first) {
        try {
            channel.queuePair.postSend(first.batchChain);
        } catch (PostFailedException e) {
            refused(channel, first, e.posted(), e);
        } catch (RuntimeException e) {
            refused(channel, first, 0, e);
        }
    }

    /** The first {@code accepted} requests went; every slot with a request after them gets no completion. */
    private void refused(final Channel channel, final CommandSlot first, final int accepted, final RuntimeException cause) {
        int covered = 0;
        int slots = 0;
        for (CommandSlot slot = first; slot != null; ) {
            final CommandSlot next = slot.batchNext;
            covered += slot.batchRequests;
            slot.batchNext = null;
            if (covered > accepted) {
                // its last request, the signalled one, was not posted: no completion will free it
                returned.postRefused(slot, null);
                slots++;
            }
            slot = next;
        }
        LOG.warn("post refused on {} after {} of {} work requests: {}; {} command slot(s) taken back", channel, accepted,
                covered, cause.getMessage(), slots);
    }
}
