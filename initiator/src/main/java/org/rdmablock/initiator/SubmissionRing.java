package org.rdmablock.initiator;

import com.lmax.disruptor.InsufficientCapacityException;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.Sequence;

/**
 * The ring submitters put requests in, on the submitting threads (the agent reads it): a multi-producer ring of
 * preallocated {@link IoRequest}s (claiming a slot is one CAS), filled in place and published, after which the agent is
 * woken if it sleeps.
 *
 * <p>The ring's gating sequence is the {@link RequestCompleter}'s: it moves over requests once they are answered, so a
 * submitter waits only when a whole ring of requests is unanswered.
 */
final class SubmissionRing {
    private final RingBuffer<IoRequest> ring;
    /** Every request up to this sequence is answered (the agent moves it; submitters wait on it). */
    private final Sequence answered = new Sequence(-1);
    private final AgentWakeup wakeup;

    SubmissionRing(final int size, final AgentWakeup wakeup) {
        this.ring = RingBuffer.createMultiProducer(IoRequest::new, size);
        ring.addGatingSequences(answered);
        this.wakeup = wakeup;
    }

    /** The ring, for the agent's parts that read and answer its requests. */
    RingBuffer<IoRequest> ring() {
        return ring;
    }

    /** The gating sequence, for the part that answers requests. */
    Sequence answered() {
        return answered;
    }

    /** Claims a slot, waiting while the ring is full of unanswered requests. */
    long claim() {
        return ring.next();
    }

    /** Claims a slot, or returns -1 at once when the ring is full of unanswered requests. */
    long tryClaim() {
        try {
            return ring.tryNext();
        } catch (InsufficientCapacityException e) {
            return -1;
        }
    }

    /** The request in slot {@code sequence}, for its submitter to fill between claim and publish. */
    IoRequest request(final long sequence) {
        return ring.get(sequence);
    }

    /** Hands the filled request over and wakes the agent if it sleeps. */
    void publish(final long sequence) {
        ring.publish(sequence);
        wakeup.wakeIfParked();
    }

    /** Whether every request published so far is answered. */
    boolean allAnswered() {
        return ring.getCursor() == answered.get();
    }
}
