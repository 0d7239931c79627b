package org.rdmablock.initiator;

import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.Sequence;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers requests, on the agent thread: calls back each request whose last command ended (none left to issue) and
 * moves the ring's gating sequence over the answered requests in front, so that submitters may reuse their slots.
 *
 * <p>Requests finish out of ring order. It knows the request whose commands are being issued, which must not be
 * answered before they all are.
 */
final class RequestCompleter {
    private static final Logger LOG = LoggerFactory.getLogger(RequestCompleter.class);

    private final RingBuffer<IoRequest> ring;
    /** The ring's gating sequence: every request up to it is answered. */
    private final Sequence answered;
    /** The request being split into commands, or null. */
    private IoRequest issuing;

    RequestCompleter(final RingBuffer<IoRequest> ring, final Sequence answered) {
        this.ring = ring;
        this.answered = answered;
    }

    /** The request being split into commands, or null. */
    IoRequest issuing() {
        return issuing;
    }

    void issuing(final IoRequest request) {
        issuing = request;
    }

    /** One command of {@code request} ended: the request completes once none is left and no more will be issued. */
    void commandEnded(final IoRequest request) {
        request.inFlight--;
        if (request.failure != null && request == issuing) {
            issuing = null; // what is not issued yet is not issued: the request failed
        }
        if (request.inFlight == 0 && (request.failure != null || request.allIssued()) && request != issuing) {
            finish(request);
        }
    }

    /** The request being issued fails with {@code why} (the channel is gone); answered now if no command of it is out. */
    void failIssuing(final SrpIoException why) {
        final IoRequest request = issuing;
        if (request == null) {
            return;
        }
        issuing = null;
        if (request.failure == null) {
            request.failure = why;
        }
        if (request.inFlight == 0) {
            finish(request);
        }
    }

    /** Calls the request back and lets the ring reuse the answered requests in front. */
    void finish(final IoRequest request) {
        final IoCallback callback = request.callback;
        final Object attachment = request.attachment;
        final long bytes = request.bytesDone;
        final SrpIoException failure = request.failure;
        request.buffer = null;
        request.callback = null;
        request.attachment = null;
        request.done = true;
        long next = answered.get() + 1;
        while (ring.isAvailable(next) && ring.get(next).done) { // requests may finish out of ring order
            next++;
        }
        answered.set(next - 1);
        try {
            callback.completed(attachment, bytes, failure);
        } catch (RuntimeException e) {
            LOG.warn("an I/O callback threw; the channel goes on", e);
        }
    }
}
